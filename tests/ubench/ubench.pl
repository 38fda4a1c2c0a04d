#!/usr/bin/perl
# tests/ubench/ubench.pl — the timing presets against published microbenchmark measurements
# (issue 23): for each preset with rows in configs/reference.tsv (or the presets named), runs
# the clock64()-timed microbenchmarks of tests/ubench (committed PTX in fixtures/ptx/ubench)
# under --timing=PRESET and prints measured, reference and error per metric:
#   - dependent-issue latency of FADD/FFMA/IMAD/DFMA (latency.cu) and of the PTX ops that
#     expand, div.rn.f32, sqrt.rn.f32, rcp.rn.f32, div.s32, and of bfe (ops.cu): 64-operation
#     chains, cycles per operation;
#   - shared-memory load latency (shared.cu: an `ld.shared [j]` chase, cycles per load);
#   - L1 hit, L2 hit and DRAM miss latency (memory.cu pointer chases; the loop overhead is
#     taken from a -gpgpu_perfect_mem run of known latency); the L2 hit and the far L2
#     partition by chase_l2_split (lines sorted by their probed latency into a near and a far
#     chain, as on the hardware): the far row where the probes found far lines (presets with
#     -network_mode 3), else it says "unmodelled";
#   - L1 constant cache hit and miss (constcache.cu; under -gpgpu_perfect_inst_const_cache 0,
#     the mode that models the L1C; the loop overhead from a run with the perfect constant
#     cache, whose loads take -gpgpu_l1_latency; the misses hit the L2, warmed by a first
#     launch);
#   - bandwidth in bytes per core cycle and as a fraction of the preset's peak: shared memory
#     (one SM; peak 4 bytes x -gpgpu_shmem_num_banks), L1 (one SM, a 64 KiB footprint; peak
#     one 128-byte line per cycle, the LD/ST unit's rate), L2 (every SM, a 1 MiB footprint,
#     .cg; peak 32 bytes per L2 slice per L2 clock), DRAM (every SM, each byte once; peak
#     channels x bus width x data rate x DRAM clock);
#   - the shared-memory bank-conflict sweep (bank_conflict.cu: the marginal cycles of an n-way
#     conflicted load over a conflict-free one, reference n: 32 banks of 4 bytes) and the
#     coalescing sweep (memory.cu read32/64/128 at strides 1..32: 32-byte sectors per warp
#     load, reference the sectors the lanes' addresses touch).
# The tolerance and status of each reference row are data (configs/reference.tsv). The last
# line sums up: measurements with a reference, those outside their tolerance, and among them
# the calibrated ("cal") rows, which are regressions (tests/timing_mem.t requires none).
# A measurement, not a test: exit 0 whatever the errors.
#   usage: ubench.pl [--build DIR] [PRESET...]
use strict;
use warnings;
use File::Basename qw(dirname);
use Getopt::Long;
use POSIX qw(ceil);

chdir(dirname(__FILE__) . '/../..') or die "chdir: $!";
my $build = $ENV{PTXEMU_BUILD} // 'build';
GetOptions('build=s' => \$build) or die "usage: ubench.pl [--build DIR] [PRESET...]\n";
my $ptxemu = "$build/ptxemu";
my $ub = 'fixtures/ptx/ubench';
my (%ref, @order);
open my $fh, '<', 'configs/reference.tsv' or die "configs/reference.tsv: $!";
while (<$fh>) {
    next if /^\s*(#|$)/;
    chomp;
    my ($p, $m, $lo, $hi, $tol, $status, $src) = split /\t/;
    die "configs/reference.tsv:$.: expected 7 tab-separated columns\n" unless defined $src;
    die "configs/reference.tsv:$.: bad tolerance '$tol'\n" unless $tol =~ /^(exact|\d+(%|pp))$/;
    die "configs/reference.tsv:$.: bad status '$status'\n" unless $status =~ /^(cal|open: .+)$/;
    push @order, $p unless exists $ref{$p};
    $ref{$p}{$m} = {lo => $lo, hi => $hi, tol => $tol, status => $status, src => $src};
}
close $fh;
my @presets = @ARGV ? @ARGV : @order;

sub exec_out {
    my $out = `$ptxemu exec @_ 2>/dev/null`;
    die "ptxemu exec @_: failed\n" if $?;
    chomp $out;
    return $out;
}

# The kernel's statistics text (stderr) of a run.
sub exec_err {
    my $err = `$ptxemu exec @_ 2>&1 >/dev/null`;
    die "ptxemu exec @_: failed\n" if $?;
    return $err;
}

sub max { my $m = shift; $_ > $m and $m = $_ for @_; return $m }

sub preset_config {
    my ($p) = @_;
    my $out = `$ptxemu timing-config --timing=$p`;
    die "ptxemu timing-config --timing=$p: failed\n" if $?;
    my %o;
    $o{$1} = $2 while $out =~ /^-(\S+)[ \t]+(.*?)[ \t]*$/mg;
    return \%o;
}

# metric => [kernel of latency.ptx or ops.ptx, input buffer]
my %chain = (
    fadd => ['latency', 'lat_fadd', 'f32=1,1,0'], ffma => ['latency', 'lat_ffma', 'f32=1,1,0'],
    imad => ['latency', 'lat_imad', 's32=1,1,0'], dfma => ['latency', 'lat_dfma', 'f64=1,1,0'],
    div_f32 => ['ops', 'lat_div_f32', 'f32=1.5,1.0001'], sqrt_f32 => ['ops', 'lat_sqrt_f32', 'f32=2'],
    rcp_f32 => ['ops', 'lat_rcp_f32', 'f32=2'], div_s32 => ['ops', 'lat_div_s32', 's32=1000000,1'],
    bfe => ['ops', 'lat_bfe', 'u32=12345,0,31']);
my @metrics = (qw(fadd ffma imad dfma div_f32 sqrt_f32 rcp_f32 div_s32 bfe shared l1_hit l2_hit
                  l2_far dram const_hit const_miss),
               qw(smem_bw l1_bw l2_bw dram_bw));
my %bw_of = (smem_bw => 1, l1_bw => 1, l2_bw => 1, dram_bw => 1);
my @ways = (2, 4, 8, 16, 32);
my @coal = (['read32', 4, 1], ['read32', 4, 2], ['read32', 4, 8], ['read32', 4, 32],
            ['read64', 8, 1], ['read64', 8, 4], ['read128', 16, 1], ['read128', 16, 2]);

my ($n, $nout, @regress, @open_ok) = (0, 0);
printf "%-8s %-12s %11s %13s %8s  %s\n", 'preset', 'metric', 'measured', 'reference', 'error',
    'source / note';

# One row: measured value (undef: unmodelled), the reference row (if any), unit suffix.
sub row {
    my ($p, $k, $v, $fmt, $note) = @_;
    my $r = $ref{$p}{$k};
    my $mtxt = defined $v ? sprintf($fmt, $v) : 'unmodelled';
    if (!$r) {
        printf "%-8s %-12s %11s %13s %8s  %s\n", $p, $k, $mtxt, '-', '-', $note // '';
        return;
    }
    my ($lo, $hi) = ($r->{lo}, $r->{hi});
    my $rtxt = $lo == $hi ? $lo : "$lo-$hi";
    if (!defined $v) {
        printf "%-8s %-12s %11s %13s %8s  %s [%s]\n", $p, $k, $mtxt, $rtxt, '-', $r->{src},
            $r->{status};
        push @regress, "$p $k unmodelled" if $r->{status} eq 'cal';
        return;
    }
    $n++;
    my ($err, $etxt, $out);
    if ($r->{tol} =~ /pp$/) {
        $err = $v < $lo ? $v - $lo : $v > $hi ? $v - $hi : 0;
        $etxt = sprintf('%+.1fpp', 100 * $err);
        $out = abs(100 * $err) > ($r->{tol} =~ s/pp//r) + 1e-9;
    } else {
        $err = $v < $lo ? ($v - $lo) / $lo : $v > $hi ? ($v - $hi) / $hi : 0;
        $etxt = sprintf('%+.1f%%', 100 * $err);
        my $t = $r->{tol} eq 'exact' ? 0 : $r->{tol} =~ s/%//r;
        $out = abs(100 * $err) > $t + 1e-9;
    }
    my $mark = $out ? ($r->{status} eq 'cal' ? ' OUTSIDE ' . $r->{tol} : " outside $r->{tol}")
                    : '';
    if ($out) {
        $nout++;
        push @regress, "$p $k $etxt" if $r->{status} eq 'cal';
    } elsif ($r->{status} ne 'cal') {
        push @open_ok, "$p $k";
    }
    printf "%-8s %-12s %11s %13s %8s  %s%s%s\n", $p, $k, $mtxt, $rtxt, $etxt, $r->{src},
        $r->{status} eq 'cal' ? '' : " [$r->{status}]", $mark;
}

for my $p (@presets) {
    my $cfg = preset_config($p);
    my $nsm = $cfg->{gpgpu_n_clusters} * $cfg->{gpgpu_n_cores_per_cluster};
    my ($core, $icnt, $l2clk, $dclk) = split /:/, $cfg->{gpgpu_clock_domains};
    my (%m, %note);
    my @t = ("--timing=$p");
    for my $k (sort keys %chain) {
        my ($file, $kern, $arg) = @{$chain{$k}};
        $m{$k} = exec_out("$ub/$file.ptx", '--kernel', $kern, '--grid', 1, '--block', 1,
                          '--arg', "buf:$arg", '--arg', 'buf:zero=16', '--print', '1:s64:1',
                          @t) / 64;
    }
    $m{shared} = exec_out("$ub/shared.ptx", '--kernel', 'lat_shared', '--grid', 1, '--block',
        32, '--arg', 'u32:1', '--arg', 's32:16', '--arg', 's32:256', '--arg', 'buf:zero=16',
        '--print', '3:s64:1', @t) / 256;

    # pointer chases (memory.cu)
    my $steps = 256;
    my @chase = ("$ub/memory.ptx", '--grid', 1, '--block', 1, '--print', '5:s64:1');
    my @small = ('--arg', 'buf:zero=65536', '--arg', 'u32:32', '--arg', 'u32:255');
    my $t0 = exec_out(@chase, '--kernel', 'chase_cg', @small, '--arg', 's32:0', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', @t, '--timing-set', 'gpgpu_perfect_mem=1',
        '--timing-set', 'ptxemu_perfect_mem_latency=20');
    my $over = $t0 - 20 * $steps;
    $m{l1_hit} = (exec_out(@chase, '--kernel', 'chase_ca', @small, '--arg', 's32:64', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', @t) - $over) / $steps;
    # L2 hits, near and far partition (chase_l2_split: 64 lines sorted by their probed
    # latency into a near and a far chain, each chased $steps steps; its own loop overhead from
    # a perfect-memory run, where every line is near): the near chain is the L2 hit
    my @split = ("$ub/memory.ptx", '--kernel', 'chase_l2_split', '--grid', 1, '--block', 1,
        '--arg', 'buf:zero=' . 64 * 128, '--arg', 'u32:32', '--arg', 'u32:64', '--arg',
        "s32:$steps", '--arg', 'buf:zero=' . 8 * (4 + 64), '--print', '4:s64:4');
    my ($p0) = split /\n/, exec_out(@split, @t, '--timing-set', 'gpgpu_perfect_mem=1',
        '--timing-set', 'ptxemu_perfect_mem_latency=20');
    my $over_s = $p0 - 20 * $steps;
    my ($tn, $tf, $nn, $nf) = split /\n/, exec_out(@split, @t);
    $m{l2_hit} = ($tn - $over_s) / $steps;
    $note{l2_hit} = "near chain of $nn lines" if $nf;
    $m{dram} = (exec_out(@chase, '--kernel', 'chase_cg', '--arg', 'buf:zero=8388608', '--arg',
        'u32:32', '--arg', 'u32:2097151', '--arg', 's32:0', '--arg', "s32:$steps", '--arg',
        'buf:zero=16', @t) - $over) / $steps;
    # The far L2 partition: the far chain, when the probes found far lines (only the
    # hierarchical crossbar, -network_mode 3, has two partitions)
    $m{l2_far} = $nf ? ($tf - $over_s) / $steps : undef;
    $note{l2_far} = $nf ? "far chain of $nf lines"
        : $cfg->{network_mode} != 3 ? "unmodelled: -network_mode $cfg->{network_mode} has no far "
            . 'L2 partition'
        : 'no far line found among 64';

    # constant cache (constcache.cu), L1C modelled: -gpgpu_perfect_inst_const_cache 0
    my @cc = ("$ub/constcache.ptx", '--kernel', 'chase_const', '--grid', 1, '--block', 32,
              '--print', '5:s64:1', '--arg', 'u32:0', '--arg', 'u32:16');
    my $cn = 64;
    my $c0 = exec_out(@cc, '--arg', 'u32:511', '--arg', 's32:32', '--arg', "s32:$cn", '--arg',
        'buf:zero=512', @t, '--timing-set', 'gpgpu_perfect_inst_const_cache=1');
    # the clock64 after the loop does not wait for the last load: cn - 1 latencies are timed
    my $lat_c = sub { $cfg->{gpgpu_l1_latency} + ($_[0] - $c0) / ($cn - 1) };
    my @l1c = ('--timing-set', 'gpgpu_perfect_inst_const_cache=0');
    $m{const_hit} = $lat_c->(exec_out(@cc, '--arg', 'u32:511', '--arg', 's32:32', '--arg',
        "s32:$cn", '--arg', 'buf:zero=512', @t, @l1c));
    $m{const_miss} = $lat_c->(exec_out(@cc, '--arg', 'u32:8191', '--arg', 's32:0', '--arg',
        "s32:$cn", '--arg', 'buf:zero=512', @t, @l1c, '--repeat', 2));
    $note{const_hit} = 'no published reference listed; -gpgpu_perfect_inst_const_cache 0';
    $note{const_miss} = 'no published reference listed; an L2 hit, 64-byte lines';

    # bandwidths
    my %peak = (smem_bw => 4 * $cfg->{gpgpu_shmem_num_banks}, l1_bw => 128,
                l2_bw => 32 * $cfg->{gpgpu_n_mem} * $cfg->{gpgpu_n_sub_partition_per_mchannel}
                    * $l2clk / $core,
                dram_bw => $cfg->{gpgpu_n_mem} * $cfg->{gpgpu_dram_buswidth}
                    * $cfg->{dram_data_command_freq_ratio} * $dclk / $core);
    my ($s0, $s1) = split /\n/, exec_out("$ub/shared.ptx", '--kernel', 'bw_shared', '--grid', 1,
        '--block', 1024, '--arg', 'buf:u64=18446744073709551615,0,0', '--arg', 's32:32',
        '--print', '0:u64:2', @t);
    $m{smem_bw} = 1024 * 4 * 8 * 32 / ($s1 - $s0);
    my @bw = ("$ub/bandwidth.ptx", '--block', 1024);
    my $bw_run = sub {
        my ($kern, $grid, $bytes, $mask, $warm, $meas) = @_;
        my @c = split /\n/, exec_out(@bw, '--kernel', $kern, '--grid', $grid, '--arg',
            "buf:zero=$bytes", '--arg', "u32:$mask", '--arg', "s32:$warm", '--arg',
            "s32:$meas", '--arg', 'buf:zero=' . 8 * ($grid + 1), '--print', "4:s64:$grid", @t);
        return $grid * 1024 * 16 * $meas / max(@c);
    };
    $m{l1_bw} = $bw_run->('bw_ca', 1, 65536, 4095, 4, 32);
    # 1 MiB: warmed by enough grid-wide steps to touch every element
    $m{l2_bw} = $bw_run->('bw_cg', $nsm, 1 << 20, 65535, ceil(65536 / ($nsm * 1024)), 8);
    $m{dram_bw} = $bw_run->('bw_cg', $nsm, 1 << 25, (1 << 21) - 1, 0, 8);
    $m{"${_}_frac"} = $m{$_} / $peak{$_} for keys %peak;

    for my $k (@metrics) {
        next if $k eq 'l2_far' && !$ref{$p}{$k} && $cfg->{network_mode} != 3;
        if ($bw_of{$k}) {
            my $txt = sprintf('%.1f B/cycle, %.1f%% of %.0f', $m{$k}, 100 * $m{"${k}_frac"},
                              $peak{$k});
            row($p, "${k}_frac", $m{"${k}_frac"}, '%.3f', $txt);
        } else {
            row($p, $k, $m{$k}, '%.1f', $note{$k});
        }
    }

    # bank-conflict sweep: marginal cycles per conflicted load over a conflict-free one
    my $bank = sub {
        my ($way) = @_;
        my ($a, $b) = split /\n/, exec_out("$ub/bank_conflict.ptx", '--grid', 1, '--block',
            1024, '--arg', 'buf:u64=18446744073709551615,0,0', '--arg', "s32:$way", '--arg',
            's32:16', '--print', '0:u64:2', @t);
        return $b - $a;
    };
    my $b1 = $bank->(1);
    for my $w (@ways) {  # 32 warps x 16 steps x 8 loads
        my $v = 1 + ($bank->($w) - $b1) / (32 * 16 * 8);
        printf "%-8s %-12s %11.2f %13s %+7.1f%%  %s\n", $p, "bank_$w", $v, $w,
            100 * ($v - $w) / $w, 'cycles per load (32 banks x 4 B: an n-way conflict costs n)';
    }
    # coalescing sweep: sectors per warp load
    for my $c (@coal) {
        my ($kern, $w, $stride) = @$c;
        my $err = exec_err("$ub/memory.ptx", '--kernel', $kern, '--grid', 1, '--block', 32,
            '--arg', 'buf:zero=' . 32 * 32 * $w, '--arg', 'buf:zero=' . 32 * $w, '--arg',
            "s32:$stride", @t);
        # the sectors the L1 asked for, less the store's (32 contiguous elements: w sectors)
        my ($sec) = $err =~ /^mem_sectors_requested = (\d+)$/m;
        $sec -= $w if defined $sec;
        my %touched;
        $touched{int($_ * $stride * $w / 32)} = 1 for 0 .. 31;
        my $want = keys %touched;
        printf "%-8s %-12s %11s %13d %+7.1f%%  %s\n", $p, "coal_${w}Bx$stride", $sec // '?',
            $want, defined $sec ? 100 * ($sec - $want) / $want : 0,
            "32-byte sectors of one warp load, $w-byte elements at stride $stride";
    }
}
printf "%d measurements with a reference, %d outside their tolerance, %d calibrated rows "
    . "outside%s\n", $n, $nout, scalar @regress, @regress ? ': ' . join(', ', @regress) : '';
print "open rows now within tolerance: @open_ok\n" if @open_ok;
