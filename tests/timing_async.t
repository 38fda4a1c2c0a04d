#!/usr/bin/env perl
# tests/timing_async.t - asynchronous copies in timing mode (issue 25; timing/README.md,
# "Asynchronous copies"): their global reads go through the memory system like loads and
# their completion is observed, on the clock64()-timed kernels of tests/ubench/async.cu
# (committed PTX in fixtures/ptx/ubench/async.ptx), run twice with only -dram_latency
# differing (by D cycles):
#   - cp_wait0: cp.async.cg of 16 bytes from DRAM, commit, wait_group 0: the copy-to-after-wait
#     cycles grow by exactly D;
#   - cp_wait1: group 1 copies a line the L1 holds, group 2 a DRAM line; wait_group 1 (the
#     first group only) takes the same cycles whatever D (it used to wait for both, as a
#     fence), wait_group 0 grows by exactly D;
#   - cp_mbar: cp.async.mbarrier.arrive.noinc and a test_wait loop: the loop ends exactly D
#     cycles later (the wait used to be satisfied at once: the engine completes the phase
#     functionally);
#   - cp_fence: a __threadfence() (membar.gl) after a DRAM cp.async does not wait for it (the
#     same cycles whatever D; it used to), the wait_group 0 after it does (+D);
#   - cp_warp: the L2 read requests and DRAM sectors of 2 CTAs x 64 threads x 16 bytes are
#     exactly the 16 lines / 64 sectors copied; .cg copies do not touch the L1D;
#   - cp_pipe (a 4-stage cp.async pipeline over 8 CTAs): --threads 1 and 2 give the same
#     statistics and results.
# and of tests/ubench/bulk.cu (sm_90, fixtures/ptx/ubench/bulk.ptx, on h100):
#   - bk_load: a 16 KiB cp.async.bulk global -> shared on an mbarrier (expect_tx, try_wait
#     loop): the loop ends exactly D cycles later with -dram_latency + D (within one cycle:
#     h100's clocks), where it used to end at once; its 128 lines are 128 read requests past
#     the L1D, 128 L2 misses and 512 DRAM sectors;
#   - bk_store: a 4 KiB bulk store, commit, wait_group 0 waits for the writes' acknowledgement
#     (+100 cycles of -gpgpu_l2_rop_latency: +100); 32 line writes; wait_group.read 0 only
#     for its lines to be sent (the same cycles whatever the ROP latency);
#   - bk_ldst: another warp's chain of 16 shared loads is delayed at most the one cycle the
#     LD/ST unit takes to hand a 16 KiB bulk copy to the TMA unit (it waited for the copy's
#     128 lines when they left through the LD/ST unit);
#   - bk_pipe (a double-buffered bulk-copy pipeline over 8 CTAs): --threads 1 = 2.
# Both pipelines also give the same statistics with -ptxemu_idle_skip 0 (every cycle stepped).
use strict;
use warnings;
use File::Basename qw(dirname);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(ok ptxemu_run tap_done strip_host stat_of);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $ptx = 'fixtures/ptx/ubench/async.ptx';
my @one = ('--grid', 1, '--block', 1, '--arg', 'buf:iota.s32=8192', '--arg', 'buf:zero=64',
           '--print', '1:s64:3');

# out[0..2] of kernel $k on preset $p with -dram_latency $dl
sub run1 {
    my ($k, $p, $dl) = @_;
    my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', $k, @one, "--timing=$p",
                                        '--timing-set', "dram_latency=$dl");
    die "exec $k --timing=$p dram_latency=$dl: exit $code\n$err" if $code;
    return split /\s+/, $out;
}

# qv100's clocks make a DRAM read's round trip grow by exactly D; on h100 (core 1755 MHz, L2
# and DRAM at their own clocks) a request meets the next edge of the L2 clock, so the growth
# is D within one cycle (h100 runs the same checks with that slack)
my $D = 200;
for my $p (qw(qv100 h100)) {
    my ($lo, $hi) = (100, 100 + $D);
    my $eq = sub { my ($d) = @_; return $p eq 'qv100' ? $d == $D : abs($d - $D) <= 1 };
    my @a = run1('cp_wait0', $p, $lo);
    my @b = run1('cp_wait0', $p, $hi);
    ok($eq->($b[0] - $a[0]), "$p cp_wait0: wait_group 0 after a 16-byte DRAM copy waits "
       . "-dram_latency more ($a[0] -> $b[0] cycles, want +$D)");
    @a = run1('cp_wait1', $p, $lo);
    @b = run1('cp_wait1', $p, $hi);
    ok($a[0] == $b[0] && $a[0] < $a[1] - $D,
       "$p cp_wait1: wait_group 1 waits for the L1-hit group only ($a[0] = $b[0] cycles, "
       . "below the DRAM group's $a[1])");
    ok($eq->($b[1] - $a[1]), "$p cp_wait1: wait_group 0 waits for the DRAM group "
       . "($a[1] -> $b[1], want +$D)");
    ok($a[2] == 2048, "$p cp_wait1: the copies' values (0 + 2048, got $a[2])");
    @a = run1('cp_mbar', $p, $lo);
    @b = run1('cp_mbar', $p, $hi);
    my $w0 = (run1('cp_wait0', $p, $lo))[0];
    ok($eq->($b[0] - $a[0]) && abs($a[0] - $w0) <= ($p eq 'qv100' ? 0 : 1),
       "$p cp_mbar: the mbarrier wait completes when the copy does, as wait_group 0 "
       . "($a[0] -> $b[0], want +$D; wait_group 0: $w0)");
    @a = run1('cp_fence', $p, $lo);
    @b = run1('cp_fence', $p, $hi);
    ok($a[0] == $b[0] && $eq->($b[1] - $a[1]),
       "$p cp_fence: a fence does not wait for the copy ($a[0] = $b[0] cycles), its "
       . "wait_group 0 does ($a[1] -> $b[1])");
}

# ---------------------------------------------------------------- the memory system's counts
{
    my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'cp_warp', '--grid', 2,
        '--block', 64, '--arg', 'buf:iota.s32=8192', '--arg', 'buf:zero=1024', '--print',
        '1:s32:4', '--timing=qv100');
    my $rd = stat_of($err, 'gpgpu_n_mem_read_global') // -1;
    my $l2 = stat_of($err, 'L2_cache_stats_breakdown[GLOBAL_ACC_R][MISS]') // -1;
    my $sec = stat_of($err, 'L2_partition_dram_read_sectors') // -1;
    my $n_rd = 0;
    $n_rd += $1 while $err =~ /\bn_rd=(\d+)/g;
    ok($code == 0 && $rd == 16 && $l2 == 16 && $sec == 64 && $n_rd == 64,
       "cp_warp: 2048 bytes copied = 16 line requests, 16 L2 read misses, 64 DRAM sectors "
       . "(got $rd, $l2, $sec, n_rd $n_rd)");
    my @v = split /\s+/, $out;
    ok("@v" eq '3 11 19 27', "cp_warp: the copied values (x + w of int4 i: 8i + 3; got @v)");
    my $l1 = stat_of($err, 'L1D_total_cache_accesses') // -1;
    my $wr = stat_of($err, 'gpgpu_n_mem_write_global') // -1;
    ok($l1 == $wr, ".cg copies bypass the L1D (its $l1 accesses are the $wr stores)");
}

# ---------------------------------------------------------------- --threads 1 = 2
{
    my @args = ('exec', $ptx, '--kernel', 'cp_pipe', '--grid', 8, '--block', 256, '--arg',
                'buf:iota.s32=131072', '--arg', 'buf:zero=8192', '--arg', 's32:16', '--print',
                '1:s32:4', '--timing=h100');
    my ($c1, $o1, $e1) = ptxemu_run(@args, '--threads', 1);
    my ($c2, $o2, $e2) = ptxemu_run(@args, '--threads', 2);
    my $cyc = stat_of($e1, 'gpu_sim_cycle') // 0;
    ok($c1 == 0 && $c2 == 0 && $cyc > 0 && $o1 eq $o2 && strip_host($e1) eq strip_host($e2),
       "cp_pipe: --threads 1 and 2 give the same statistics ($cyc cycles) and results");
    my ($c3, $o3, $e3) = ptxemu_run(@args, '--timing-set', 'ptxemu_idle_skip=0');
    ok($c3 == 0 && $o3 eq $o1 && strip_host($e3) eq strip_host($e1),
       "cp_pipe: idle skipping changes nothing (a warp waiting for its copies sleeps exactly)");
    # thread 0 sums int4 k*256 + 0 over 16 tiles: sum of (4j + 0+1+2+3), j = k*256
    my $want = 0;
    $want += 4 * ($_ * 256) * 4 + 6 for 0 .. 15;
    my @v = split /\s+/, $o1;
    ok($v[0] == $want, "cp_pipe: thread 0's sum ($v[0], want $want)");
}

# ---------------------------------------------------------------- bulk copies (sm_90, h100)
my $bptx = 'fixtures/ptx/ubench/bulk.ptx';
sub runb {
    my ($k, $buf, @set) = @_;
    my ($code, $out, $err) = ptxemu_run('exec', $bptx, '--kernel', $k, '--grid', 1, '--block', 1,
        '--arg', $buf, '--arg', 'buf:zero=64', '--print', '1:s64:2', '--timing=h100',
        map { ('--timing-set', $_) } @set);
    die "exec $k @set: exit $code\n$err" if $code;
    return ($err, split /\s+/, $out);
}
{
    my ($e1, @a) = runb('bk_load', 'buf:iota.s32=8192', 'dram_latency=100');
    my ($e2, @b) = runb('bk_load', 'buf:iota.s32=8192', 'dram_latency=' . (100 + $D));
    ok(abs($b[0] - $a[0] - $D) <= 1 && $a[1] == 4095,
       "bk_load: the try_wait loop on a 16 KiB bulk copy's mbarrier ends -dram_latency later "
       . "($a[0] -> $b[0], want +$D within 1; last word $a[1])");
    my $rd = stat_of($e1, 'gpgpu_n_mem_read_global') // -1;
    my $l2 = stat_of($e1, 'L2_cache_stats_breakdown[GLOBAL_ACC_R][MISS]') // -1;
    my $sec = stat_of($e1, 'L2_partition_dram_read_sectors') // -1;
    my $l1 = stat_of($e1, 'L1D_total_cache_accesses') // -1;
    my $wr = stat_of($e1, 'gpgpu_n_mem_write_global') // -1;
    ok($rd == 128 && $l2 == 128 && $sec == 512 && $l1 == $wr,
       "bk_load: 16 KiB = 128 line reads past the L1D, 128 L2 misses, 512 DRAM sectors "
       . "(got $rd, $l2, $sec; L1D $l1 = stores $wr)");
    my ($e3, @c) = runb('bk_store', 'buf:zero=8192', 'gpgpu_l2_rop_latency=100');
    my ($e4, @d) = runb('bk_store', 'buf:zero=8192', 'gpgpu_l2_rop_latency=200');
    ok(abs($d[0] - $c[0] - 100) <= 1,
       "bk_store: bulk wait_group 0 waits for the writes' acknowledgements ($c[0] -> $d[0] "
       . "with the ROP latency +100)");
    my ($e5, @f) = runb('bk_store_read', 'buf:zero=8192', 'gpgpu_l2_rop_latency=100');
    my ($e6, @g) = runb('bk_store_read', 'buf:zero=8192', 'gpgpu_l2_rop_latency=200');
    ok($f[0] == $g[0] && $f[0] < $c[0] - 100 && abs($g[1] - $f[1] - 100) <= 1,
       "bk_store_read: wait_group.read 0 waits for the source read only ($f[0] = $g[0] "
       . "cycles), the wait_group 0 after it for the writes ($f[1] -> $g[1])");
    my $w = stat_of($e3, 'L2_cache_stats_breakdown[GLOBAL_ACC_W][MISS]') // -1;
    ok($w == 33, "bk_store: 4 KiB = 32 line writes (+ the kernel's own store: got $w)");
    my @l;
    for my $bulk (0, 1) {
        my ($code, $out, $err) = ptxemu_run('exec', $bptx, '--kernel', 'bk_ldst', '--grid', 1,
            '--block', 64, '--arg', 'buf:iota.s32=8192', '--arg', 'buf:zero=64', '--arg',
            "s32:$bulk", '--print', '1:s64:1', '--timing=h100');
        chomp $out;
        push @l, $code ? -1000 : $out;
    }
    ok($l[0] > 0 && $l[1] - $l[0] >= 0 && $l[1] - $l[0] <= 1,
       "bk_ldst: a 16 KiB bulk copy's lines leave from the TMA unit, not the LD/ST unit: "
       . "another warp's shared-load chain takes $l[0] cycles without it, $l[1] with it "
       . "(the LD/ST unit takes the copy in one cycle)");
    my @args = ('exec', $bptx, '--kernel', 'bk_pipe', '--grid', 8, '--block', 128, '--arg',
                'buf:iota.s32=131072', '--arg', 'buf:zero=4096', '--arg', 's32:32', '--print',
                '1:s32:2', '--timing=h100');
    my ($c1, $o1, $r1) = ptxemu_run(@args, '--threads', 1);
    my ($c2, $o2, $r2) = ptxemu_run(@args, '--threads', 2);
    my $cyc = stat_of($r1, 'gpu_sim_cycle') // 0;
    ok($c1 == 0 && $c2 == 0 && $cyc > 0 && $o1 eq $o2 && strip_host($r1) eq strip_host($r2),
       "bk_pipe: --threads 1 and 2 give the same statistics ($cyc cycles) and results");
    my ($c3, $o3, $r3) = ptxemu_run(@args, '--timing-set', 'ptxemu_idle_skip=0');
    ok($c3 == 0 && $o3 eq $o1 && strip_host($r3) eq strip_host($r1),
       "bk_pipe: idle skipping changes nothing");
    my $want = 0;
    $want += 16 * $_ * 128 + 6 for 0 .. 31;
    my @v = split /\s+/, $o1;
    ok(@v && $v[0] == $want, "bk_pipe: thread 0's sum ($v[0], want $want)");
}

exit(tap_done());
