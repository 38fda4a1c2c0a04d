#!/usr/bin/env perl
# tests/timing_tensor.t - tensor-core instructions in timing mode (issue 25's timing clause;
# timing/README.md, "Tensor cores"): -ptxemu_tensor_rate gives an MMA its unit time from its
# shape and operand class, wgmma.mma_async is asynchronous (wait_group N waits for all but the N
# newest groups), tcgen05.mma runs in the SM's tcgen05 queue and tcgen05.commit's mbarrier
# arrival waits for it. On the clock64()-timed kernels of tests/ubench/tensor.cu (sm_90a, h100)
# and tensor100.cu (sm_100a, b200), committed PTX in fixtures/ptx/ubench/:
#   - mma_chain: 16 dependent mma.sync m16n8k16 (2048 multiply-adds) take exactly 15 x (L + c)
#     + 15 cycles, c = 2048 / rate (c = 0 and GPGPU-Sim's fixed latency with the rate off); 16
#     in four independent chains at rate 128 are bound by the unit: exactly 16 x 16 cycles;
#     the tf32 entry of the rate list times the tf32 chain only;
#   - wgmma_groups: two groups of four m64n64k16 (16 x 64 x 16 per warp each): wait_group 0
#     comes exactly 4 c after wait_group 1 (it used to be a fence: both waited for everything);
#     group 1 grows by 4 x the change of c; tensor_mac counts 8 x 4 x 16384;
#   - tc5_mma4 / tc5_mma8: 4 / 8 tcgen05.mma M128 N256 K16 (524288 multiply-adds) on b200's
#     4 x 1024 per cycle: the mbarrier wait of tcgen05.commit ends exactly 4 x 128 cycles later
#     for 8 than for 4 (4 x 256 at half the rate; it used to end at once); tcgen05_queue_busy
#     and tensor_mac count exactly;
# and on real programs (fixtures/cuda, nvcc): wgmma_gemm and tcgen05_gemm count M x N x K
# multiply-adds, take longer at half the rate, PASS, and give the same statistics on 1 and 2
# host threads.
use strict;
use warnings;
use File::Basename qw(dirname);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(ok ptxemu_run run_bounded tap_done strip_host stat_of);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $ptx = 'fixtures/ptx/ubench/tensor.ptx';
my $ptx100 = 'fixtures/ptx/ubench/tensor100.ptx';

# out[0 .. n-1] and the statistics of kernel $k of $file on preset $p with block $b, rate $r
sub run1 {
    my ($file, $k, $p, $b, $r, $n) = @_;
    my ($code, $out, $err) = ptxemu_run('exec', $file, '--kernel', $k, '--grid', 1, '--block', $b,
        '--arg', 'buf:iota.u32=512', '--arg', 'buf:zero=64', '--print', "1:s64:$n",
        "--timing=$p", '--timing-set', "ptxemu_tensor_rate=$r");
    die "exec $k --timing=$p rate $r: exit $code\n$err" if $code;
    return ($err, split /\s+/, $out);
}

# ---------------------------------------------------------------- mma.sync
{
    my %dep;
    for my $r (0, 512, 256, 128) {
        my ($e, @o) = run1($ptx, 'mma_chain', 'h100', 32, $r, 5);
        my $c = $r ? 2048 / $r : 0;
        $dep{$r} = $o[0];
        ok($o[0] == 15 * (24 + $c) + 15,
           "mma_chain rate $r: 16 dependent m16n8k16 take 15 x (24 + $c) + 15 cycles (got $o[0])");
        ok((stat_of($e, 'tensor_mac') // -1) == (16 + 16 + 16 + 16) * 2048 - 32 * 1024,
           "mma_chain rate $r: tensor_mac = 48 x 2048 + 16 x 1024 (got "
           . (stat_of($e, 'tensor_mac') // 'none') . ")");
        ok($o[1] == 256, "mma_chain rate 128: four independent chains are bound by the unit: "
           . "16 x 16 cycles (got $o[1])") if $r == 128;
    }
    my ($e1, @a) = run1($ptx, 'mma_chain', 'h100', 32, '512:512:256', 5);
    my ($e2, @b) = run1($ptx, 'mma_chain', 'h100', 32, '512:512:64', 5);
    ok($a[0] == $b[0] && $a[1] == $b[1] && $a[2] == $b[2] && $b[3] - $a[3] == 15 * (16 - 4),
       "mma_chain: the tf32 rate times the tf32 chain only (m16n8k8, c 4 -> 16: +180; "
       . "got @a[0..3] -> @b[0..3])");
}

# ---------------------------------------------------------------- wgmma
{
    my %g1;
    for my $r (512, 256, 128) {
        my ($e, @o) = run1($ptx, 'wgmma_groups', 'h100', 128, $r, 3);
        my $c = 16 * 64 * 16 / $r;
        $g1{$r} = $o[0];
        ok($o[1] - $o[0] == 4 * $c,
           "wgmma_groups rate $r: wait_group 0 comes 4 x $c cycles after wait_group 1 "
           . "($o[0] -> $o[1])");
        ok((stat_of($e, 'tensor_mac') // -1) == 8 * 4 * 16384,
           "wgmma_groups rate $r: tensor_mac = 8 x 4 warps x 16384 (got "
           . (stat_of($e, 'tensor_mac') // 'none') . ")");
    }
    ok($g1{256} - $g1{512} == 4 * 32 && $g1{128} - $g1{256} == 4 * 64,
       "wgmma_groups: group 1 grows by 4 x the change of c ($g1{512}, $g1{256}, $g1{128})");
}

# ---------------------------------------------------------------- tcgen05 (b200)
for my $r (1024, 512) {
    my $c = 128 * 256 * 16 / (4 * $r);
    my ($e4, @a) = run1($ptx100, 'tc5_mma4', 'b200', 128, $r, 2);
    my ($e8, @b) = run1($ptx100, 'tc5_mma8', 'b200', 128, $r, 2);
    ok($b[0] - $a[0] == 4 * $c,
       "tc5_mma rate $r: the commit's mbarrier wait ends 4 x $c cycles later for 8 MMAs than "
       . "for 4 ($a[0] -> $b[0])");
    my ($q4, $q8) = (stat_of($e4, 'tcgen05_queue_busy') // -1, stat_of($e8, 'tcgen05_queue_busy') // -1);
    my ($m8) = stat_of($e8, 'tensor_mac') // -1;
    ok($q4 == 4 * $c && $q8 == 8 * $c && $m8 == 8 * 524288,
       "tc5_mma rate $r: tcgen05_queue_busy 4 / 8 x $c, tensor_mac 8 x 524288 "
       . "(got $q4, $q8, $m8)");
}

# ---------------------------------------------------------------- real programs
{
    my $have_nvcc = -x ($ENV{NVCC} // '/usr/local/cuda/bin/nvcc');
    my @names = qw(wgmma_gemm tcgen05_gemm);
    if ($have_nvcc) {
        `scripts/gen-fixtures.sh --exe --variants '' @names 2>&1`;
    }
    my $build = $ENV{PTXEMU_BUILD} // 'build';
    my $libdir = "$build/lib";
    my %want = (wgmma_gemm => ['h100', 256 * 256 * 512, 512], tcgen05_gemm => ['b200', 256 * 128 * 256, 1024]);
    for my $name (@names) {
        my ($dev, $macs, $rate) = @{$want{$name}};
        my $exe = "build/fixtures/$name";
        if (!-x $exe) {
            ok(1, "$name # SKIP no executable (needs nvcc)") for 1 .. 3;
            next;
        }
        my %env = (LD_LIBRARY_PATH => $libdir, PTXEMU_TIMING => '1', PTXEMU_DEVICE => $dev);
        if ($build =~ /asan/) { # the program loads the ASan libcudart: the runtime first
            chomp(my $so = `gcc -print-file-name=libasan.so`);
            $env{LD_PRELOAD} = $so if $so =~ m{/};
        }
        my @run;
        for my $set ("ptxemu_tensor_rate=$rate", 'ptxemu_tensor_rate=' . $rate / 4) {
            my ($code, $out, $err) = run_bounded(600, { %env, PTXEMU_TIMING_SET => $set }, "./$exe");
            push @run, [$code, $out, $err];
        }
        my ($c0, $m0) = (stat_of($run[0][2], 'gpu_sim_cycle') // 0, stat_of($run[0][2], 'tensor_mac') // -1);
        my $c1 = stat_of($run[1][2], 'gpu_sim_cycle') // 0;
        ok($run[0][0] == 0 && $run[0][1] =~ /^PASS$/m && $run[1][1] =~ /^PASS$/m && $m0 == $macs,
           "$name on $dev: PASS, tensor_mac = M x N x K = $macs (got $m0)");
        ok($c1 > $c0, "$name on $dev: a quarter of the tensor rate takes longer ($c0 -> $c1 cycles)");
        my ($code2, $out2, $err2) = run_bounded(600, { %env, PTXEMU_THREADS => 2,
            PTXEMU_TIMING_SET => "ptxemu_tensor_rate=$rate" }, "./$exe");
        my ($code1, $out1, $err1) = run_bounded(600, { %env, PTXEMU_THREADS => 1,
            PTXEMU_TIMING_SET => "ptxemu_tensor_rate=$rate" }, "./$exe");
        ok($code1 == 0 && $code2 == 0 && strip_host($err1) eq strip_host($err2),
           "$name on $dev: 1 and 2 host threads give the same statistics");
    }
}
exit tap_done();
