#!/usr/bin/env perl
# tests/timing_l1.t - the SM's L1 data path in timing mode (issue 22), on l1_bw of
# tests/ubench/memory.cu (committed PTX in fixtures/ptx/ubench): 32 warps each read the same
# float4 per lane n times, a warp instruction of 512 bytes = 16 sectors that hit the L1D after
# the first pass.
#   - L1D banks and data ports: the LD/ST unit's cycles per load, measured as the difference
#     of the unit's cycles between n = 64 and n = 128 (2,048 more loads), are what the
#     configuration gives (bank_cycles below: the coalescer's sectors in order through
#     -gpgpu_l1_banks banks chosen by -gpgpu_l1_banks_byte_interleaving and
#     -gpgpu_l1_banks_hashing_function, each bank serving max(1, port / 32) sectors per cycle
#     and holding a sector max(1, 32 / port) cycles, port = the dl1 string's data port width;
#     the first sector without room ends the cycle); for an aligned load that is
#     ceil(16 / banks / cap) x cyc; the kernel's cycles grow by about as much (bandwidth-bound).
#   - the L1D's fill port: one warp's 4-line miss with 2-byte data ports fills 128 bytes a line
#     at 2 bytes per cycle (64 cycles each, one after the other; the lines leave 16 cycles
#     apart, a sector holding its bank 16 cycles): the kernel takes at least 3 x 64 - 48 and at
#     most 4 x 64 cycles more than with the preset's 32-byte ports.
#   - caches between kernels: three launches of a pointer chase over 8 lines with one CTA
#     per SM miss the same in every launch with -gpgpu_flush_l1_cache 1 (the presets') and
#     only in the first with 0 (L1D); a .cg chase misses the L2 again in its second launch
#     iff -gpgpu_flush_l2_cache 1, whose flush writes the dirty lines to DRAM (write_only:
#     8,192 write sectors per launch, the launch longer by at least 256 KiB over the DRAM
#     peak; none with 0);
#   - kernel parameters: with -gpgpu_perfect_inst_const_cache 0 each ld.param of a warp is an
#     L1C access (read32's three: one miss of their line, two pending hits), none with 1.
use strict;
use warnings;
use File::Basename qw(dirname);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(kernels_stats ok ptxemu_run tap_done timing_config);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $ptx = 'fixtures/ptx/ubench/memory.ptx';

# LD/ST cycles per l1_bw load in steady state: the 16-byte lanes' addresses (shift float4s
# into a 2 MiB-aligned block) coalesced per quarter warp into (line, sector) pairs in lane
# order, sent in order through the banks, the first one without room ending the cycle; the
# next load starts the cycle after; the third of three loads' cycles.
sub bank_cycles {
    my ($shift, %o) = @_;
    my $cap = $o{port} >= 32 ? $o{port} / 32 : 1;
    my $hold = $o{port} >= 32 ? 1 : 32 / $o{port};
    my $lg = log($o{banks}) / log(2);
    my $bank = sub {
        my $blk = int($_[0] / $o{interleave});
        my $b = $blk % $o{banks};
        $b ^= int($blk / $o{banks}) % $o{banks} if $o{hash} == 1;
        return $b;
    };
    my @sec; # sector addresses of one load, in the order the unit sends them
    for my $q (0 .. 3) {
        my %seen;
        for my $lane (8 * $q .. 8 * $q + 7) {
            my $a = 16 * ($shift + $lane);
            for my $s (int($a / 32) .. int(($a + 15) / 32)) {
                push @sec, 32 * $s unless $seen{$s}++;
            }
        }
    }
    my ($t, @free, @ends) = (0);
    for my $load (1 .. 3) {
        my @left = @sec;
        while (@left) {
            $t++;
            my %used;
            while (@left) {
                my $b = $bank->($left[0]);
                last if ($free[$b] // 0) > $t || ($used{$b} // 0) >= $cap;
                $used{$b}++;
                $free[$b] = $t + $hold if $hold > 1;
                shift @left;
            }
        }
        push @ends, $t;
    }
    return $ends[2] - $ends[1];
}

# ---------------------------------------------------------------- L1D banks and data ports
my $cfg = timing_config('--timing=qv100');
my $dl1 = $cfg->{'gpgpu_cache:dl1'};
(my $dl1_16 = $dl1) =~ s/,\d+$/,16/;
(my $dl1_128 = $dl1) =~ s/,\d+$/,128/;
# (label, shift in float4s, banks, data port width, extra --timing-set)
my @cases = (
    ['4 banks of 32 bytes (the preset)', 0, 4, 32],
    ['misaligned by 32 bytes', 2, 4, 32],
    ['2 banks', 0, 2, 32, 'gpgpu_l1_banks=2'],
    ['1 bank', 0, 1, 32, 'gpgpu_l1_banks=1'],
    ['1 bank, misaligned', 2, 1, 32, 'gpgpu_l1_banks=1'],
    ['16-byte data ports', 0, 4, 16, "gpgpu_cache:dl1=$dl1_16"],
    ['1 bank with a 128-byte data port', 0, 1, 128, 'gpgpu_l1_banks=1',
     "gpgpu_cache:dl1=$dl1_128"],
    ['XOR bank hashing, misaligned', 2, 4, 32, 'gpgpu_l1_banks_hashing_function=1'],
);
for my $c (@cases) {
    my ($label, $shift, $banks, $port, @set) = @$c;
    my %o = (banks => $banks, port => $port, interleave => 32, hash => 0);
    /hashing_function=(\d+)/ and $o{hash} = $1 for @set;
    my $want = bank_cycles($shift, %o);
    my (%ldst, %cyc, @err);
    for my $n (64, 128) {
        my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'l1_bw', '--grid', 1,
            '--block', 1024, '--arg', 'buf:zero=8192', '--arg', "s32:$shift", '--arg', "s32:$n",
            '--arg', 'buf:zero=4096', '--timing=qv100', map { ('--timing-set', $_) } @set);
        my ($s) = kernels_stats($err);
        push @err, $err;
        next if $code || !$s;
        $ldst{$n} = $s->{unit_ldst_busy} + $s->{unit_ldst_dispatch};
        $cyc{$n} = $s->{gpu_sim_cycle};
    }
    my $per = defined $ldst{64} && defined $ldst{128} ? ($ldst{128} - $ldst{64}) / 2048 : -1;
    my $kper = defined $cyc{64} && defined $cyc{128} ? ($cyc{128} - $cyc{64}) / 2048 : -1;
    ok($per == $want && $kper >= 0.99 * $want && $kper <= 1.1 * $want,
       "L1D $label: $want LD/ST cycles per 512-byte load, the kernel about as many",
       "measured $per LD/ST cycles and $kper kernel cycles per load", @err);
}

# ---------------------------------------------------------------- fill port
{
    (my $dl1_2 = $dl1) =~ s/,\d+$/,2/;
    my %cyc;
    for my $d ($dl1, $dl1_2) {
        my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'l1_bw', '--grid', 1,
            '--block', 32, '--arg', 'buf:zero=8192', '--arg', 's32:0', '--arg', 's32:1', '--arg',
            'buf:zero=4096', '--timing=qv100', '--timing-set', "gpgpu_cache:dl1=$d");
        my ($s) = kernels_stats($err);
        $cyc{$d} = $code == 0 && $s ? $s->{gpu_sim_cycle} : undef;
    }
    my $d = defined $cyc{$dl1} && defined $cyc{$dl1_2} ? $cyc{$dl1_2} - $cyc{$dl1} : -1;
    ok($d >= 3 * 64 - 48 && $d <= 4 * 64,
       "L1D fill port: four 128-byte fills through 2-byte ports serialise ($d more cycles)");
}

# ---------------------------------------------------------------- flushes between kernels
{
    my $nsm = $cfg->{gpgpu_n_clusters} * $cfg->{gpgpu_n_cores_per_cluster};
    my @chase = ('--block', 1, '--arg', 'buf:zero=65536', '--arg', 'u32:32', '--arg', 'u32:255',
                 '--arg', 's32:0', '--arg', 's32:64', '--arg', 'buf:zero=16', '--timing=qv100');
    for my $flush (1, 0) {
        my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'chase_ca', '--grid', $nsm,
            @chase, '--repeat', 3, '--timing-set', "gpgpu_flush_l1_cache=$flush");
        my @k = kernels_stats($err);
        my $got = join ' ', map { $_->{L1D_total_cache_misses} // '?' } @k;
        # per SM: the chase's 8 lines and the line of out[]
        my $first = 9 * $nsm;
        my $want = $flush ? "$first $first $first" : "$first 0 0";
        ok($code == 0 && $got eq $want,
           "-gpgpu_flush_l1_cache $flush: L1D misses of three launches on $nsm SMs are $want",
           "got $got", $err);
    }
    for my $flush (0, 1) {
        my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'chase_cg', '--grid', 1,
            @chase, '--repeat', 2, '--timing-set', "gpgpu_flush_l2_cache=$flush");
        my @k = kernels_stats($err);
        my $got = join ' ', map { $_->{L2_total_cache_misses} // '?' } @k;
        my $want = $flush ? '9 9' : '9 0';
        ok($code == 0 && $got eq $want,
           "-gpgpu_flush_l2_cache $flush: L2 misses of two launches are $want", "got $got", $err);
    }
    # the flush writes the dirty lines back: each launch of write_only fully writes 65,536
    # floats (8,192 sectors, 256 KiB, resident in the L2); with 1 they reach DRAM as write
    # sectors (DRAM write commands: bytes / atom) and the launch lasts at least their bytes
    # over the DRAM peak longer; with 0 nothing is written to DRAM
    my @dom = split /:/, $cfg->{gpgpu_clock_domains};
    my $peak = $cfg->{gpgpu_n_mem} * $cfg->{gpgpu_dram_buswidth}
        * $cfg->{dram_data_command_freq_ratio} * $dom[3] / $dom[0]; # bytes per core cycle
    my $atom = $cfg->{gpgpu_dram_burst_length} * $cfg->{gpgpu_dram_buswidth}
        * $cfg->{gpgpu_n_mem_per_ctrlr};
    my %cyc;
    for my $flush (0, 1) {
        my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'write_only', '--grid', 64,
            '--block', 256, '--arg', 'buf:zero=262144', '--arg', 's32:65536', '--repeat', 2,
            '--timing=qv100', '--timing-set', "gpgpu_flush_l2_cache=$flush");
        my @k = kernels_stats($err);
        my @nwr;
        for my $line (split /\n/, $err) {
            push @nwr, 0 if $line =~ /^kernel_name = /;
            $nwr[-1] += $1 if @nwr && $line =~ /^DRAM\[\d+\]:.* n_wr=(\d+)/;
        }
        my $got = join ' ', map { ($k[$_]{L2_partition_dram_write_sectors} // '?') . '/'
                                  . ($nwr[$_] // '?') } 0 .. $#k;
        my ($sec, $cmd) = $flush ? (8192, 8192 * 32 / $atom) : (0, 0);
        my $want = "$sec/$cmd $sec/$cmd";
        $cyc{$flush} = $k[0] ? $k[0]{gpu_sim_cycle} : undef;
        ok($code == 0 && $got eq $want,
           "-gpgpu_flush_l2_cache $flush: write_only's DRAM write sectors/commands per launch "
           . "are $want", "got $got", $err);
    }
    my $extra = defined $cyc{0} && defined $cyc{1} ? $cyc{1} - $cyc{0} : -1;
    ok($extra >= 262144 / $peak,
       sprintf('-gpgpu_flush_l2_cache 1: the write-backs take %d cycles, at least 256 KiB over '
               . 'the DRAM peak (%.0f)', $extra, 262144 / $peak));
}

# ---------------------------------------------------------------- parameters through the L1C
for my $pc (1, 0) {
    my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'read32', '--grid', 1,
        '--block', 32, '--arg', 'buf:zero=65536', '--arg', 'buf:zero=2048', '--arg', 's32:1',
        '--timing=qv100', '--timing-set', "gpgpu_perfect_inst_const_cache=$pc");
    my ($s) = kernels_stats($err);
    $s //= {};
    my $got = join ' ', map { $s->{$_} // '?' } qw(gpgpu_n_param_mem_insn L1C_total_cache_accesses
        L1C_total_cache_misses L1C_total_cache_pending_hits);
    my $want = $pc ? '3 0 0 0' : '3 3 1 2';
    ok($code == 0 && $got eq $want,
       "-gpgpu_perfect_inst_const_cache $pc: 3 ld.param, L1C accesses/misses/pending hits "
       . join('/', (split / /, $want)[1 .. 3]), "got $got", $err);
}

# bad bank options are configuration errors naming the option
for my $bad (['gpgpu_l1_banks=3', qr/-gpgpu_l1_banks \(1\.\.32\)/],
             ['gpgpu_l1_banks_byte_interleaving=48', qr/-gpgpu_l1_banks_byte_interleaving must be/],
             ['gpgpu_l1_banks_hashing_function=3', qr/-gpgpu_l1_banks_hashing_function: 0 \(linear\)/]) {
    my ($set, $re) = @$bad;
    my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'l1_bw', '--grid', 1,
        '--block', 32, '--arg', 'buf:zero=8192', '--arg', 's32:0', '--arg', 's32:1', '--arg',
        'buf:zero=4096', '--timing=qv100', '--timing-set', $set);
    ok($code != 0 && $err =~ $re, "-$set is refused with a message", $err);
}

exit(tap_done());
