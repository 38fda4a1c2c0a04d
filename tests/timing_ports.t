#!/usr/bin/env perl
# tests/timing_ports.t - data and fill ports of the L2 slices, the L1C and the L1T (issue 22),
# every expected number computed from the configuration:
#   - L2 (GPGPU-Sim's bandwidth_management, port width W = the dl2 string's last field): on
#     bw_cg of tests/ubench/bandwidth.cu (8 SMs, 4 channels x 2 slices, a 256 KiB footprint
#     that stays in the L2, .cg 512-byte warp loads = 4 full lines), the data port is busy
#     ceil(32 / W) cycles per sector of each hit (every read hit has 4 sectors; the 8-byte
#     stores of the CTAs' results ceil(8 / W)) plus the written-back sectors' 32 / W, the fill
#     port ceil(32 / W) per filled sector; with W = 8 and 4 the timed pass reads at most
#     slices x W bytes per L2 cycle and at least 90% of that (the port binds), while the
#     preset's 32 leaves it above 4 x 8 x 4 (bandwidth-bound elsewhere);
#   - L1C: chase_const of tests/ubench/constcache.cu with 32 distinct words per warp load
#     (serialised, one access per cycle): a hit holds the port ceil(4 / W) cycles, so the LD/ST
#     unit's busy cycles grow by (ceil(4 / W) - 1) x H, H the hits followed by another access
#     of the same load: linear in ceil(4 / W) - 1 (W = 2 and 1 against the preset's 64), and H
#     between the timed pass's 64 x 31 and all hits;
#   - L1T: fixtures/cuda/tm_tex (one warp fetches, then fetches the same texels again: the
#     second fetch hits every line): with an 8-byte port each hit of s sectors holds it
#     ceil(32 s / 8) cycles and the next hit of the fetch waits; the busy cycles per kernel
#     grow by the sum over its hits but the last of ceil(32 s / 8) - 1.
use strict;
use warnings;
use File::Basename qw(dirname);
use POSIX qw(ceil);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(find_nvcc kernels_stats ok program_env ptxemu_run run_bounded skip tap_done
                  timing_config);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $build = $ENV{PTXEMU_BUILD} // 'build';

my $cfg = timing_config('--timing=qv100');
# A GPGPU-Sim cache string with data port width $w (the miss-queue field gets its result-FIFO
# part, 0 when absent, so that the port field is read).
sub with_port {
    my ($s, $w) = @_;
    my @f = split /,/, $s;
    $f[3] .= ':0' unless $f[3] =~ /:/;
    return join(',', @f[0 .. 3], $w);
}

# ---------------------------------------------------------------- L2 data and fill ports
{
    my ($nsm, $nmem) = (8, 4);
    my $nsp = $nmem * $cfg->{gpgpu_n_sub_partition_per_mchannel};
    my @dom = split /:/, $cfg->{gpgpu_clock_domains};
    my $l2_per_core = $dom[2] / $dom[0];
    my $bytes = $nsm * 1024 * 16 * 8; # the timed pass: 8 steps of 16 bytes per thread
    for my $w (32, 8, 4) {
        my $dl2 = with_port($cfg->{'gpgpu_cache:dl2'}, $w);
        my ($code, $out, $err) = ptxemu_run('exec', 'fixtures/ptx/ubench/bandwidth.ptx',
            '--kernel', 'bw_cg', '--grid', $nsm, '--block', 1024, '--arg', 'buf:zero=262144',
            '--arg', 'u32:16383', '--arg', 's32:2', '--arg', 's32:8', '--arg',
            'buf:zero=' . 8 * ($nsm + 1), '--print', "4:s64:$nsm", '--timing=qv100',
            '--timing-set', "gpgpu_n_clusters=$nsm", '--timing-set', "gpgpu_n_mem=$nmem",
            '--timing-set', "gpgpu_cache:dl2=$dl2");
        my ($s) = kernels_stats($err);
        my @c = grep { /^\d+$/ } split /\n/, $out;
        if ($code || !$s || @c != $nsm) {
            ok(0, "L2 ports, W = $w: bw_cg runs", $out, $err);
            next;
        }
        my $c = ceil(32 / $w);
        my $want_d = $c * 4 * ($s->{'L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT]'} // 0)
            + ceil(8 / $w) * ($s->{'L2_cache_stats_breakdown[GLOBAL_ACC_W][HIT]'} // 0)
            + $s->{L2_cache_WRITEBACK_SECTORS} * 32 / $w;
        my $want_f = $c * $s->{L2_cache_FILL_SECTORS};
        ok($s->{L2_partition_data_port_cycles} == $want_d
               && $s->{L2_partition_fill_port_cycles} == $want_f,
           "L2 ports, W = $w: data port $want_d cycles, fill port $want_f (got "
           . "$s->{L2_partition_data_port_cycles}, $s->{L2_partition_fill_port_cycles})");
        my $max = 0;
        $max < $_ and $max = $_ for @c;
        my $bw = $bytes / $max / $l2_per_core; # bytes per L2 cycle
        my $bound = $nsp * $w;
        if ($w < 32) {
            ok($bw <= $bound && $bw >= 0.9 * $bound,
               sprintf('L2 ports, W = %d: %.1f bytes per L2 cycle, bound %d (%d slices x %d), '
                       . 'at least 90%% of it', $w, $bw, $bound, $nsp, $w));
        } else {
            ok($bw > 4 * 8 * 4,
               sprintf('L2 ports, W = %d: %.1f bytes per L2 cycle, more than W = 4 allows',
                       $w, $bw));
        }
    }
}

# ---------------------------------------------------------------- L1C data port
{
    my $l1c = $cfg->{'gpgpu_const_cache:l1'};
    my %busy;
    my $hits;
    for my $w (64, 2, 1) {
        my ($code, $out, $err) = ptxemu_run('exec', 'fixtures/ptx/ubench/constcache.ptx',
            '--kernel', 'chase_const', '--grid', 1, '--block', 32, '--arg', 'u32:1', '--arg',
            'u32:16', '--arg', 'u32:511', '--arg', 's32:32', '--arg', 's32:64', '--arg',
            'buf:zero=512', '--timing=qv100', '--timing-set', 'gpgpu_perfect_inst_const_cache=0',
            '--timing-set', 'gpgpu_const_cache:l1=' . with_port($l1c, $w));
        my ($s) = kernels_stats($err);
        next if $code || !$s;
        $busy{$w} = $s->{unit_ldst_busy};
        $hits = $s->{L1C_total_cache_accesses} - $s->{L1C_total_cache_misses}
            - $s->{L1C_total_cache_pending_hits};
    }
    my $h = defined $busy{2} && defined $busy{64} ? $busy{2} - $busy{64} : -1;
    ok(defined $busy{1} && $busy{1} - $busy{64} == (ceil(4 / 1) - 1) * $h
           && $h >= 64 * 31 && $h <= $hits,
       "L1C port: LD/ST busy cycles grow by (ceil(4/W) - 1) x H, H = $h in [1984, $hits] "
       . "(busy: " . join(', ', map { "W=$_: " . ($busy{$_} // '?') } 64, 2, 1) . ')');
}

# ---------------------------------------------------------------- L1T data port
{
    my $exe = 'build/fixtures/tm_tex';
    my $nvcc = find_nvcc();
    if ($nvcc && (!-x $exe || -M $exe > -M 'fixtures/cuda/tm_tex.cu')) {
        local $ENV{NVCC} = $nvcc;
        `scripts/gen-fixtures.sh --exe --variants '' tm_tex 2>&1`;
    }
    if (!-x $exe) {
        skip('tm_tex needs nvcc to build');
    } else {
        my $l1t = $cfg->{'gpgpu_tex_cache:l1'};
        my (@busy, $bad);
        for my $w (128, 8) {
            my %env = program_env(PTXEMU_TIMING => 'qv100',
                                  PTXEMU_TIMING_SET => 'gpgpu_tex_cache:l1=' . with_port($l1t, $w));
            my ($code, $out, $err) = run_bounded(300, \%env, "./$exe");
            $bad = "$out$err" if $code || $out !~ /^PASS$/m;
            push @busy, [map { $_->{unit_ldst_busy} // -1 } kernels_stats($err)];
        }
        # per kernel, the sectors of each line the second fetch hits, in the order sent:
        # tex1Dfetch at strides 1, 8, 32 floats (1 line of 1 sector, 8 lines of 4, 32 of 1),
        # tex2D point along row 0 (1 line of 4), linear between rows 0 and 1 (columns 0..31 of
        # each row: a 4-sector line, column 32: a 1-sector line; the last line sent is one
        # of column 32)
        my @lines = ([1], [(4) x 8], [(1) x 32], [4], [4, 4, 1, 1]);
        my @want;
        for my $l (@lines) {
            my $t = 0;
            $t += ceil(32 * $l->[$_] / 8) - 1 for 0 .. $#$l - 1;
            push @want, $t;
        }
        my $got = join ' ', map { $busy[1][$_] - $busy[0][$_] } 0 .. $#{$busy[0]};
        ok(!$bad && $got eq join(' ', @want),
           "L1T port of 8 bytes: LD/ST busy cycles per kernel grow by @want (got $got)",
           $bad // '');
    }
}

exit(tap_done());
