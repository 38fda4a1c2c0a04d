#!/usr/bin/env perl
# tests/timing_mem.t - the timing model's memory system (issue 22) on the clock64()-timed
# microbenchmarks of tests/ubench/memory.cu (their committed PTX in fixtures/ptx/ubench):
#   - near and far L2 partitions (a100, h100: -network_mode 3): chase_l2_split's far chain is
#     two far links slower than its near chain, near + far requests = all, the far link with
#     a 0-cycle latency is the flat crossbar cycle for cycle, a 1-flit link slows a triad;
#   - pointer chases that hit the L1, hit the L2 (ld.global.cg) and miss to DRAM measure, per
#     preset, exactly the latency the model reports for them (the kernel's own clock64 cycles
#     minus the loop's overhead, which a -gpgpu_perfect_mem run of known latency gives), ordered
#     L1 < L2 < DRAM, the L1 exactly -gpgpu_l1_latency and the L2 the ROP latency plus the two
#     network crossings;
#   - the coalescer's request and sector counts for 32/64/128-bit accesses at several strides
#     (sub-warp grouping of wide accesses);
#   - a write-only kernel reads no DRAM sector (the L2's lazy fetch-on-read write allocation);
#   - FR-FCFS beats FIFO on a row-locality kernel through one channel;
#   - STREAM triad's DRAM bandwidth is a fraction of the preset's peak in (0.3, 1];
#   - `ninja ubench` (tests/ubench/ubench.pl): no calibrated row of configs/reference.tsv
#     outside its tolerance;
#   - statistics invariants (slices sum to totals), -l2_ideal prints "perfect", a BookSim mesh
#     file runs; with -gpgpu_cache:dl2_texture_only 1 only texture fetches use the L2.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use JSON::PP qw(decode_json);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(find_nvcc kernels_stats ok program_env ptxemu_run run_bounded skip tap_done
                  timing_config);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $ptx = 'fixtures/ptx/ubench/memory.ptx';
my $tmp = tempdir(CLEANUP => 1);
# Sum of a DRAM counter over the channels of a kernel's statistics text.
sub dram_sum {
    my ($err, $name) = @_;
    my $s = 0;
    $s += $1 while $err =~ /\b\Q$name\E=(\d+)/g;
    return $s;
}

# ---------------------------------------------------------------- latency of a pointer chase
my @chase = ('--grid', 1, '--block', 1, '--print', '5:s64:1');
my $steps = 256;
for my $p (qw(qv100 a100 rtx3070 h100)) {
    my $cfg = timing_config("--timing=$p");
    # loop overhead: the chase under perfect memory of latency 20
    my ($c0, $t0, $e0) = ptxemu_run('exec', $ptx, '--kernel', 'chase_cg', @chase, '--arg',
        'buf:zero=65536', '--arg', 'u32:32', '--arg', 'u32:255', '--arg', 's32:0', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', "--timing=$p", '--timing-set',
        'gpgpu_perfect_mem=1', '--timing-set', 'ptxemu_perfect_mem_latency=20');
    chomp $t0;
    my $over = $t0 - 20 * $steps;
    # L1 hits: 8 lines, warmed by 64 steps
    my ($c1, $t1, $e1) = ptxemu_run('exec', $ptx, '--kernel', 'chase_ca', @chase, '--arg',
        'buf:zero=65536', '--arg', 'u32:32', '--arg', 'u32:255', '--arg', 's32:64', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', "--timing=$p");
    chomp $t1;
    my $l1 = ($t1 - $over) / $steps;
    ok($c0 == 0 && $c1 == 0 && abs($l1 - $cfg->{gpgpu_l1_latency}) <= 2 / $steps,
       "$p: an L1 hit takes -gpgpu_l1_latency ($cfg->{gpgpu_l1_latency}) cycles (within 2 of $steps x)",
       "measured $l1 (exit $c0/$c1)", $e0, $e1);
    # L2 hits: the second launch of a .cg chase over 8 lines (the first brought them in)
    my ($c2, $t2, $e2) = ptxemu_run('exec', $ptx, '--kernel', 'chase_cg', @chase, '--arg',
        'buf:zero=65536', '--arg', 'u32:32', '--arg', 'u32:255', '--arg', 's32:0', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', "--timing=$p", '--repeat', 2);
    chomp $t2;
    my @k2 = kernels_stats($e2);
    my $l2 = ($t2 - $over) / $steps;
    my $rop = $cfg->{gpgpu_l2_rop_latency};
    ok($c2 == 0 && @k2 == 2 && $k2[1]{L2_total_cache_misses} == 0
       && abs($l2 - $k2[1]{averagemflatency}) < 0.05,
       "$p: an L2 hit takes what the model reports as its latency ($k2[1]{averagemflatency})",
       "measured $l2, misses $k2[1]{L2_total_cache_misses}", $e2);
    my $net = $l2 - $rop;
    ok($net >= 2 && $net <= 16,
       "$p: an L2 hit is the ROP latency ($rop) plus two network crossings ($net cycles)");
    # DRAM: a cold .cg chase with a 128-byte stride over 8 MiB (every step a new line)
    my ($c3, $t3, $e3) = ptxemu_run('exec', $ptx, '--kernel', 'chase_cg', @chase, '--arg',
        'buf:zero=8388608', '--arg', 'u32:32', '--arg', 'u32:2097151', '--arg', 's32:0',
        '--arg', "s32:$steps", '--arg', 'buf:zero=16', "--timing=$p");
    chomp $t3;
    my ($k3) = kernels_stats($e3);
    my $dram = ($t3 - $over) / $steps;
    ok($c3 == 0 && $k3->{L2_total_cache_misses} >= $steps
       && abs($dram - $k3->{averagemflatency}) < 1.0,
       "$p: an L2 miss to DRAM takes what the model reports ($k3->{averagemflatency})",
       "measured $dram, L2 misses $k3->{L2_total_cache_misses}", $e3);
    ok($l1 < $l2 && $l2 + $cfg->{dram_latency} < $dram,
       sprintf("$p: L1 (%.1f) < L2 (%.1f) < L2 + -dram_latency (%.1f) < DRAM (%.1f)", $l1, $l2,
               $l2 + $cfg->{dram_latency}, $dram));
}

# ---------------------------------------------------------------- near and far L2 partitions
# chase_l2_split sorts 64 lines by their probed latency into a near and a far chain. The
# hierarchical crossbar (-network_mode 3, the a100 and h100 presets) puts a slice of the other
# partition than the SM's behind the far link: a far hit is two far links longer than a near
# one (in core cycles), the near one the plain L2 hit; qv100 has one partition.
my @split = ('--kernel', 'chase_l2_split', '--grid', 1, '--block', 1, '--arg', 'buf:zero=8192',
             '--arg', 'u32:32', '--arg', 'u32:64', '--arg', "s32:$steps", '--arg',
             'buf:zero=' . 8 * 68, '--print', '4:s64:4');
for my $p (qw(a100 h100 qv100)) {
    my $cfg = timing_config("--timing=$p");
    my ($c0, $o0, $e0) = ptxemu_run('exec', $ptx, @split, "--timing=$p", '--timing-set',
        'gpgpu_perfect_mem=1', '--timing-set', 'ptxemu_perfect_mem_latency=20');
    my ($p0, $p1, $pn, $pf) = split /\n/, $o0;
    my $over = $p0 - 20 * $steps;
    my ($c1, $o1, $e1) = ptxemu_run('exec', $ptx, @split, "--timing=$p");
    my ($tn, $tf, $nn, $nf) = split /\n/, $o1;
    my ($near, $far) = (($tn - $over) / $steps, ($tf - $over) / $steps);
    ok($c0 == 0 && $pf == 0 && $p1 == $p0,
       "$p: under perfect memory every line is near and both chains take the same time",
       "far lines $pf, $p0 vs $p1", $e0);
    if ($cfg->{network_mode} != 3) {
        ok($c1 == 0 && $nn == 64 && $nf == 0 && $e1 !~ /icnt_l2_/,
           "$p: one L2 partition: 64 near lines, no far line, no near/far counters",
           "near $nn, far $nf", $e1);
        next;
    }
    my ($core, $icnt) = split /:/, $cfg->{gpgpu_clock_domains};
    my $hops = 2 * $cfg->{ptxemu_icnt_far_latency} * $core / $icnt;
    ok($c1 == 0 && $nn > 0 && $nf > 0 && $nn + $nf == 64 && abs($far - $near - $hops) <= 1,
       sprintf("$p: %d near and %d far lines; a far L2 hit (%.1f) is a near one (%.1f) plus two "
               . "far links (%.1f core cycles)", $nn, $nf, $far, $near, $hops),
       "near $nn ($near), far $nf ($far)", $e1);
    # every request of one SM is near or far, each answered over the same link
    my ($c2, $o2, $e2) = ptxemu_run('exec', $ptx, '--kernel', 'chase_cg', @chase, '--arg',
        'buf:zero=8388608', '--arg', 'u32:32', '--arg', 'u32:2097151', '--arg', 's32:0',
        '--arg', "s32:$steps", '--arg', 'buf:zero=16', "--timing=$p");
    my ($k2) = kernels_stats($e2);
    ok($c2 == 0 && $k2->{icnt_l2_far_req} > 0 && $k2->{icnt_l2_near_req} > 0
       && $k2->{icnt_l2_near_req} + $k2->{icnt_l2_far_req} == $k2->{icnt_packets_req}
       && $k2->{icnt_l2_far_rep} == $k2->{icnt_l2_far_req} && $k2->{icnt_l2_far_wait} == 0,
       "$p: DRAM chase: near ($k2->{icnt_l2_near_req}) + far ($k2->{icnt_l2_far_req}) requests = "
       . "all, as many far replies, no wait on the unlimited far link", '', $e2);
}
# the partitions without a far link are the flat crossbar, cycle for cycle; a 1-flit far
# link makes the far packets wait and the kernel longer
{
    my @triad = ('--kernel', 'stream_triad', '--grid', 16, '--block', 256, '--arg',
                 'buf:zero=65536', '--arg', 'buf:zero=65536', '--arg', 'buf:zero=65536', '--arg',
                 'f32:2', '--arg', 's32:16384', '--timing=a100');
    my %r;
    for my $v (['flat', 'network_mode=2'], ['near', 'ptxemu_icnt_far_latency=0'],
               ['far', 'ptxemu_icnt_far_latency=78'], ['narrow', 'ptxemu_icnt_far_flits=1']) {
        my ($c, $o, $e) = ptxemu_run('exec', $ptx, @triad, '--timing-set', $v->[1]);
        $e =~ s/^(gpgpu_simulation_(time|rate)|icnt:|icnt_l2_).*\n//mg;
        $r{$v->[0]} = [$c, $e, kernels_stats($e)];
    }
    ok($r{flat}[0] == 0 && $r{near}[0] == 0 && $r{flat}[1] eq $r{near}[1],
       "a100 triad: two partitions with a 0-cycle far link, a port per SM = -network_mode 2, "
       . "every statistic", '', $r{near}[1]);
    my ($f, $w) = ($r{far}[2], $r{narrow}[2]);
    ok($r{narrow}[0] == 0 && $w->{gpu_sim_cycle} > $f->{gpu_sim_cycle},
       "a100 triad: a 1-flit/cycle far link ($w->{gpu_sim_cycle} cycles) is slower than the "
       . "unlimited one ($f->{gpu_sim_cycle})");
}

# ---------------------------------------------------------------- coalescer
# (kernel, stride, read requests, sectors read + written) for one warp
my @coal = (
    ['read32', 1, 1, 4 + 4],  ['read32', 0, 1, 1 + 4],   ['read32', 2, 2, 8 + 4],
    ['read32', 8, 8, 32 + 4], ['read32', 32, 32, 32 + 4],
    ['read64', 1, 2, 8 + 8],  ['read64', 0, 2, 2 + 8],   ['read64', 4, 8, 32 + 8],
    ['read128', 1, 4, 16 + 16], ['read128', 0, 4, 4 + 16], ['read128', 2, 8, 32 + 16],
);
for my $c (@coal) {
    my ($k, $stride, $req, $sect) = @$c;
    my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', $k, '--grid', 1, '--block', 32,
        '--arg', 'buf:zero=65536', '--arg', 'buf:zero=2048', '--arg', "s32:$stride",
        '--timing=qv100');
    my ($s) = kernels_stats($err);
    ok($code == 0 && $s->{gpgpu_n_mem_read_global} == $req
       && $s->{mem_sectors_requested} == $sect,
       "$k stride $stride: $req read requests, $sect sectors with the store's",
       "got $s->{gpgpu_n_mem_read_global} requests, $s->{mem_sectors_requested} sectors", $err);
}

# ---------------------------------------------------------------- instruction cache
{
    my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'read32', '--grid', 1, '--block',
                                        32, '--arg', 'buf:zero=65536', '--arg', 'buf:zero=2048',
                                        '--arg', 's32:1', '--timing=qv100', '--timing-set',
                                        'gpgpu_perfect_inst_const_cache=0', '--stats');
    my ($s) = kernels_stats($err);
    my ($w) = $err =~ /: (\d+) warp instructions/;
    my $lines = defined $w ? int(($w + 7) / 8) : -1;
    ok($code == 0 && $s->{icache_miss} == $lines && $s->{icache_access} > $lines,
       "L1I: a straight-line kernel of $w instructions misses once per 128-byte line ($lines)",
       "icache_miss $s->{icache_miss}, icache_access $s->{icache_access}", $err);
}

# ---------------------------------------------------------------- write-only streaming
{
    my $json = "$tmp/wo.json";
    my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'write_only', '--grid', 64,
                                        '--block', 256, '--arg', 'buf:zero=262144', '--arg',
                                        's32:65536', '--timing=qv100', '--timing-stats', $json);
    my ($s) = kernels_stats($err);
    ok($code == 0 && dram_sum($err, 'n_rd') == 0 && $s->{L2_cache_FULL_SECTOR_WRITES} == 8192
       && $s->{L2_total_cache_accesses} == 2048,
       "a write-only kernel reads no DRAM sector: 2,048 L2 writes make 8,192 sectors valid",
       "n_rd " . dram_sum($err, 'n_rd') . ", full-sector writes "
       . ($s->{L2_cache_FULL_SECTOR_WRITES} // '?'), $err);
    my $k = eval { decode_json(do { local (@ARGV, $/) = $json; <> })->[0] } // {};
    my $l2 = $k->{memory}{l2} // {};
    my ($acc, $miss) = (0, 0);
    for my $sl (@{$l2->{slices} // []}) { $acc += $sl->{accesses}; $miss += $sl->{misses} }
    ok(@{$l2->{slices} // []} == 64 && $acc == $l2->{accesses} && $miss == $l2->{misses},
       "JSON: the 64 slices' accesses and misses sum to the L2 totals", "$acc/$miss");
    my ($sm_acc) = (0);
    $sm_acc += $_->{L1D_total_cache_accesses} for @{$k->{sm} // []};
    ok($sm_acc == $k->{totals}{L1D_total_cache_accesses} && $sm_acc == 2048,
       "JSON: per-SM L1D accesses sum to the total (2,048 write lines)", "$sm_acc");
}

# ---------------------------------------------------------------- FR-FCFS vs FIFO
{
    my %cyc;
    for my $sch (0, 1) {
        my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'row_pingpong', '--grid', 8,
            '--block', 256, '--arg', 'buf:zero=8388608', '--arg', 'buf:zero=8192', '--arg',
            's32:1048576', '--arg', 's32:32', '--timing=qv100', '--timing-set',
            "gpgpu_dram_scheduler=$sch", '--timing-set', 'gpgpu_n_mem=1', '--timing-set',
            'gpgpu_n_sub_partition_per_mchannel=1', '--timing-set',
            'gpgpu_memory_partition_indexing=0');
        my ($s) = kernels_stats($err);
        $cyc{$sch} = $code == 0 ? $s->{gpu_sim_cycle} : 0;
    }
    ok($cyc{0} && $cyc{1} && $cyc{1} < 0.9 * $cyc{0},
       "FR-FCFS finishes the row-alternating kernel sooner than FIFO ($cyc{1} < $cyc{0} cycles)");
}

# ---------------------------------------------------------------- STREAM triad bandwidth
for my $p (qw(qv100 a100)) {
    my $cfg = timing_config("--timing=$p");
    my $nel = 1048576;
    my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'stream_triad', '--grid', 320,
        '--block', 256, '--arg', "buf:iota.f32=$nel", '--arg', "buf:iota.f32=$nel", '--arg',
        'buf:zero=' . 4 * $nel, '--arg', 'f32:3', '--arg', "s32:$nel", "--timing=$p");
    my ($s) = kernels_stats($err);
    my ($core, $dclk) = (split /:/, $cfg->{gpgpu_clock_domains})[0, 3];
    my $peak = $cfg->{gpgpu_n_mem} * $cfg->{gpgpu_dram_buswidth}
        * $cfg->{dram_data_command_freq_ratio} * $dclk / $core;    # bytes per core cycle
    my $bytes = 12 * $nel;
    my $frac = $s->{gpu_sim_cycle} ? $bytes / ($s->{gpu_sim_cycle} * $peak) : 0;
    ok($code == 0 && $frac > 0.3 && $frac <= 1.0,
       sprintf("$p: STREAM triad moves 12 MiB at %.2f of the %.0f B/cycle peak", $frac, $peak),
       $err);
}

# ---------------------------------------------------------------- run to run
{
    my @runs;
    for (1 .. 3) {
        my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'stream_triad', '--grid', 80,
            '--block', 256, '--arg', 'buf:iota.f32=262144', '--arg', 'buf:iota.f32=262144',
            '--arg', 'buf:zero=1048576', '--arg', 'f32:3', '--arg', 's32:262144',
            '--timing=a100');
        $err =~ s/^gpgpu_simulation_(time|rate) .*\n//mg;    # host time differs, nothing else
        push @runs, $code == 0 ? $err : "exit $code";
    }
    ok($runs[0] =~ /^gpu_sim_cycle = \d+$/m && $runs[0] eq $runs[1] && $runs[1] eq $runs[2],
       "three runs print identical statistics (device blocks decoded at their canonical "
       . "addresses, wherever the host put them)");
}

# ---------------------------------------------------------------- perfect L2, BookSim mesh
{
    my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'chase_cg', @chase, '--arg',
        'buf:zero=65536', '--arg', 'u32:32', '--arg', 'u32:255', '--arg', 's32:0', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', '--timing=qv100', '--timing-set', 'l2_ideal=1');
    ok($code == 0 && $err =~ /^L2_total_cache_misses = perfect$/m
       && dram_sum($err, 'n_rd') == 0,
       "-l2_ideal 1: the L2 says perfect and DRAM is never read", $err);
    ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'chase_cg', @chase, '--arg',
        'buf:zero=65536', '--arg', 'u32:32', '--arg', 'u32:255', '--arg', 's32:0', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', '--timing=qv100', '--repeat', 2, '--timing-set',
        'gpgpu_cache:dl2_texture_only=1');
    my @k = kernels_stats($err);
    ok($code == 0 && @k == 2 && $err =~ /^L2_total_cache = texture only/m
       && dram_sum($err, 'n_rd') == 2 * $steps,
       "-gpgpu_cache:dl2_texture_only 1: global loads bypass the L2 (every step of both "
       . "launches reads DRAM)", "n_rd " . dram_sum($err, 'n_rd'), $err);
    ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'chase_cg', @chase, '--arg',
        'buf:zero=65536', '--arg', 'u32:32', '--arg', 'u32:255', '--arg', 's32:0', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', '--timing=qv100', '--timing-set',
        'network_mode=1', '--timing-set', 'inter_config_file=fixtures/icnt/mesh66.icnt',
        '--timing-set', 'gpgpu_n_clusters=28', '--timing-set', 'gpgpu_n_mem=4');
    ok($code == 0 && $err =~ /^icnt: booksim mesh 6-ary 2-cube .*28 SMs \+ 8 memory nodes/m,
       "a BookSim 6x6 mesh file carries the traffic of 28 SMs and 8 L2 slices", $err);
    ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'chase_cg', @chase, '--arg',
        'buf:zero=65536', '--arg', 'u32:32', '--arg', 'u32:255', '--arg', 's32:0', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', '--timing=qv100', '--timing-set',
        'network_mode=1', '--timing-set', 'inter_config_file=fixtures/icnt/fly4x2.icnt');
    ok($code != 0 && $err =~ /fly4x2\.icnt/,
       "a network whose node count does not fit the GPU is refused, naming the file", $err);
}

# ---------------------------------------------------------------- sampling: --timing-ctas
{
    my @a = ('exec', $ptx, '--kernel', 'stream_triad', '--grid', 320, '--block', 256, '--arg',
             'buf:iota.f32=262144', '--arg', 'buf:iota.f32=262144', '--arg', 'buf:zero=1048576',
             '--arg', 'f32:3', '--arg', 's32:262144', '--timing=qv100', '--timing-set',
             'gpgpu_n_clusters=8');
    my ($c0, $o0, $e0) = ptxemu_run(@a, '--dump', "2=$tmp/full.bin");
    my ($c2, $o2, $e2) = ptxemu_run(@a, '--timing-ctas', 2, '--dump', "2=$tmp/two.bin");
    my ($full) = $e0 =~ /^gpu_sim_cycle = (\d+)/m;
    my ($ext) = $e2 =~ /^gpu_sim_cycle = (\d+)/m;
    my $same = -s "$tmp/full.bin" && `cmp $tmp/full.bin $tmp/two.bin 2>&1` eq '' && $? == 0;
    ok($c0 == 0 && $c2 == 0 && $same
       && $e2 =~ /^gpu_sim_cycle_extrapolated = 1 \(128 of 320 CTAs simulated in \d+ cycles/m,
       "--timing-ctas 2: 2 waves of 64 CTAs simulated, the other 192 run functionally with the "
       . "same results", $e2);
    ok($full && $ext && abs($ext - $full) <= 0.1 * $full,
       "--timing-ctas 2: the extrapolated cycles ($ext) are within 10% of the full run's ($full)");
}

# ---------------------------------------------------------------- calibration (issue 23)
{
    my ($code, $out, $err) = run_bounded(600, {PTXEMU_BUILD => $build},
                                         'tests/ubench/ubench.pl', '--build', $build);
    my ($nm, $nout, $ncal) = $out =~
        /^(\d+) measurements with a reference, (\d+) outside their tolerance, (\d+) calibrated rows outside/m;
    ok($code == 0 && $nm && $nm >= 36 && defined $ncal && $ncal == 0
       && $out !~ /^open rows now within tolerance/m,
       "ninja ubench: every calibrated row of configs/reference.tsv within its tolerance ("
       . ($nm // '?') . " measurements, " . ($nout // '?') . " outside on open rows)",
       grep({ /^\d+ measurements|^open rows/ } split /\n/, $out), $err);
}

# ---------------------------------------------------------------- timed copies
# fixtures/cuda/tm_copy: 16 MiB host-to-device, device-to-device, device-to-host between events
{
    my $exe = 'build/fixtures/tm_copy';
    my $nvcc = find_nvcc();
    if ($nvcc && (!-x $exe || -M $exe > -M 'fixtures/cuda/tm_copy.cu')) {
        local $ENV{NVCC} = $nvcc;
        `scripts/gen-fixtures.sh --exe --variants '' tm_copy 2>&1`;
    }
    if (!-x $exe) {
        skip('tm_copy needs nvcc to build');
    } else {
        my %env = program_env(PTXEMU_TIMING => 'qv100',
                              PTXEMU_TIMING_SET => 'ptxemu_memcpy_timed=1');
        my ($code, $out, $err) = run_bounded(300, \%env, "./$exe");
        # 16 MiB at 12 GB/s + 5 us; twice 16 MiB at 32 channels x 16 B x 2 x 850 MHz
        ok($code == 0 && $out =~ /^h2d 1403\.1 us\nd2d 38\.6 us\nkernel [0-9.]+ us\nd2h 1403\.1 us\nPASS$/m,
           "-ptxemu_memcpy_timed 1: events see 1403.1 us per 16 MiB host copy, 38.6 us on the "
           . "device", $out, $err);
        $env{PTXEMU_TIMING_SET} = 'ptxemu_memcpy_timed=0';
        ($code, $out, $err) = run_bounded(300, \%env, "./$exe");
        ok($code == 0 && $out =~ /^h2d 0\.0 us\nd2d 0\.0 us\nkernel [0-9.]+ us\nd2h 0\.0 us\nPASS$/m,
           "-ptxemu_memcpy_timed 0 (GPGPU-Sim's default): copies take no simulated time",
           $out, $err);
    }
}

# ---------------------------------------------------------------- L1 constant cache
# tests/ubench/constcache.cu: a chase through __constant__ memory (zeros), one warp, under qv100
# with -gpgpu_perfect_inst_const_cache 0 (the L1C modelled: -gpgpu_const_cache:l1, 64-byte
# lines). Args: spread, stride (ints), mask, n_warm, n_meas. The kernel's 6 ld.param are L1C
# accesses too (one line of their own: 1 miss, 5 pending hits).
{
    my $cptx = 'fixtures/ptx/ubench/constcache.ptx';
    my $crun = sub {
        my ($spread, $stride, $warm, $meas, @set) = @_;
        my ($code, $out, $err) = ptxemu_run('exec', $cptx, '--kernel', 'chase_const', '--grid', 1,
            '--block', 32, '--print', '5:s64:1', '--arg', "u32:$spread", '--arg', "u32:$stride",
            '--arg', 'u32:511', '--arg', "s32:$warm", '--arg', "s32:$meas", '--arg',
            'buf:zero=512', '--timing=qv100', '--timing-set', 'gpgpu_perfect_inst_const_cache=0',
            map { ('--timing-set', $_) } @set);
        chomp $out;
        my ($k) = kernels_stats($err);
        return ($code, $out, $k // {}, $err);
    };
    # a broadcast sweep over 32 lines, then 64 more steps over the same lines: one access per
    # warp load, one miss per line (and the parameters')
    my ($c1, $t1, $k1, $e1) = $crun->(0, 16, 32, 64);
    ok($c1 == 0 && $k1->{L1C_total_cache_accesses} == 96 + 6
       && $k1->{L1C_total_cache_misses} == 32 + 1 && $k1->{L1C_total_cache_pending_hits} == 5
       && $k1->{gpgpu_n_param_mem_insn} == 6
       && $k1->{L1C_total_cache_reservation_fails} == 0 && $k1->{gpgpu_n_cmem_portconflict} == 0,
       'L1C: a uniform sweep of 32 lines then 64 steps over them: 96 accesses, 32 misses (+6, +1 for the parameters)',
       "exit $c1: accesses $k1->{L1C_total_cache_accesses} misses $k1->{L1C_total_cache_misses}"
       . " pending $k1->{L1C_total_cache_pending_hits}", $e1);
    # the timed pass hits: its cycles follow -ptxemu_l1c_latency, 10 more cycles per step. The
    # clock64 after the loop does not wait for the last load, so 63 of the 64 latencies are
    # timed (latencies above the load's own pipeline latency: 40 and 50)
    my ($c2, $t2, $k2, $e2) = $crun->(0, 16, 32, 64, 'ptxemu_l1c_latency=40');
    my ($c3, $t3, $k3, $e3) = $crun->(0, 16, 32, 64, 'ptxemu_l1c_latency=50');
    ok($c2 == 0 && $c3 == 0 && $t3 - $t2 == 10 * 63,
       "L1C: 63 timed dependent hits take 630 more cycles with -ptxemu_l1c_latency 50 than 40 "
       . "($t2, $t3)", $e2, $e3);
    # divergence: lane t reads word t (32 addresses, 2 lines) every step: 32 accesses per load,
    # the first two misses, the other 30 of the first load pending hits; 31 cycles more per load
    # than a broadcast of one address (the 64 steps plus 4 warm-up ones: 68 loads)
    my ($c4, $t4, $k4, $e4) = $crun->(0, 0, 4, 64);
    my ($c5, $t5, $k5, $e5) = $crun->(1, 0, 4, 64);
    ok($c4 == 0 && $c5 == 0 && $k5->{L1C_total_cache_accesses} == 32 * 68 + 6
       && $k5->{L1C_total_cache_misses} == 2 + 1 && $k5->{L1C_total_cache_pending_hits} == 30 + 5
       && $k5->{gpgpu_n_cmem_portconflict} == 31 * 68 && $k4->{L1C_total_cache_misses} == 1 + 1,
       'L1C: 32 divergent addresses in 2 lines: 32 accesses per load, 2 misses, 30 pending hits',
       "accesses $k5->{L1C_total_cache_accesses} misses $k5->{L1C_total_cache_misses} pending "
       . "$k5->{L1C_total_cache_pending_hits} conflicts $k5->{gpgpu_n_cmem_portconflict}", $e5);
    ok($t5 - $t4 == 31 * 63,
       "L1C: a load of 32 distinct addresses costs 31 cycles more than a broadcast (63 timed "
       . "loads: $t4, $t5)");
    # -gpgpu_perfect_inst_const_cache 1 (the presets'): no L1C, nothing counted
    my ($code, $out, $err) = ptxemu_run('exec', $cptx, '--kernel', 'chase_const', '--grid', 1,
        '--block', 32, '--print', '5:s64:1', '--arg', 'u32:1', '--arg', 'u32:16', '--arg',
        'u32:511', '--arg', 's32:4', '--arg', 's32:4', '--arg', 'buf:zero=512', '--timing=qv100');
    my ($k6) = kernels_stats($err);
    ok($code == 0 && $k6 && $k6->{L1C_total_cache_accesses} == 0
       && $k6->{gpgpu_n_cmem_portconflict} == 31 * 8,
       '-gpgpu_perfect_inst_const_cache 1: no L1C accesses, divergence still serialised', $err);
}

# fixtures/cuda/const_mem (cuda_programs.t builds it) with the L1C: still PASS; each launch's
# 4 CTAs land on 4 SMs and each SM misses the two lines of coeffs[] and table[] and the line of
# the kernel's parameters once
if (-x 'build/fixtures/const_mem') {
    my %env = program_env(PTXEMU_TIMING => 'qv100',
                          PTXEMU_TIMING_SET => 'gpgpu_perfect_inst_const_cache=0');
    my ($code, $out, $err) = run_bounded(300, \%env, './build/fixtures/const_mem');
    my $m = join ' ', map { $_->{L1C_total_cache_misses} // '?' } kernels_stats($err);
    ok($code == 0 && $out =~ /^PASS$/m && $m eq '12 12',
       "const_mem with the L1C: PASS, 12 misses per launch (3 lines x 4 SMs; got $m)", $out);
}

# ---------------------------------------------------------------- L1 texture cache
# fixtures/cuda/tm_tex: one warp fetches, then fetches the same texels again; per kernel the
# L1T's accesses are the lines of the footprint twice, its misses the lines once.
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
        my %env = program_env(PTXEMU_TIMING => 'qv100');
        my ($code, $out, $err) = run_bounded(300, \%env, "./$exe");
        my @k = kernels_stats($err);
        # tex1Dfetch at strides 1, 8, 32 floats; tex2D point along a row; tex2D linear
        my @lines = (1, 8, 32, 1, 4);
        my $got = join ' ', map { ($_->{L1T_total_cache_accesses} // '?') . '/'
                                  . ($_->{L1T_total_cache_misses} // '?') } @k;
        my $want = join ' ', map { 2 * $_ . "/$_" } @lines;
        ok($code == 0 && $out =~ /^PASS$/m && $got eq $want,
           "L1T: accesses/misses per kernel follow the texel footprint ($want)", "got $got",
           $out, $err);
        my $tex = join ' ', map { $_->{gpgpu_n_tex_insn} // '?' } @k;
        ok($tex eq '2 2 2 2 2', "every fetch counted in gpgpu_n_tex_insn ($tex)");
        # -gpgpu_cache:dl2_texture_only 1: the L2 slices see the texture fetches only (each
        # L1T miss an L2 hit: -gpgpu_perf_sim_memcpy warmed the lines), nothing written
        $env{PTXEMU_TIMING_SET} = 'gpgpu_cache:dl2_texture_only=1';
        ($code, $out, $err) = run_bounded(300, \%env, "./$exe");
        @k = kernels_stats($err);
        my $hits = join ' ', map { $_->{L2_cache_RD_HIT} // '?' } @k;
        my $wr = 0;
        $wr += ($_->{L2_cache_WR_HIT} // 1) + ($_->{L2_cache_WR_MISS} // 1) for @k;
        ok($code == 0 && $out =~ /^PASS$/m && $hits eq join(' ', @lines) && $wr == 0,
           "-gpgpu_cache:dl2_texture_only 1: texture fetches go through the L2 (hits $hits), "
           . "nothing else does", "writes $wr", $out, $err);
    }
}

exit(tap_done());
