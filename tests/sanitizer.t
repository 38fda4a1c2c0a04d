#!/usr/bin/env perl
# tests/sanitizer.t - `--check` on CUDA programs (the hand-written PTX cases of every tool are
# fixtures/check/*.ptx, run by tests/fixtures.t):
#   - fixtures/sanitizer/*.cu, built with nvcc -lineinfo: racecheck reports with CUDA source
#     lines (shared memory; global memory between blocks, warps and lanes of one warp, with the fences, scopes,
#     release/acquire and atomics that order them), --fill-uninit patterns, --check-report
#     JSON and XML, synccheck (divergent __syncthreads, __shfl_sync masks; misuses of
#     mbarrier objects and of the cluster barrier, sm_90, and the clean uses), initcheck of cudaMalloc memory (cudaMemset / cudaMemcpy / kernel stores count as
#     writes), initcheck of local memory (a local array nvcc keeps in a local depot; a
#     __noinline__ function's frame reused by its next call starts uninitialized),
#     leakcheck at exit and at cudaDeviceReset (host backtraces, a device malloc
#     block's site); --error-exitcode, --print-limit,
#     --log-file, PTXEMU_CHECK through the drop-in libcudart without `ptxemu run`; asynccheck
#     (--check-async) of a cp.async read before its wait, of a TMA tile read before its
#     mbarrier wait and of a TMA store's source rewritten before cp.async.bulk.wait_group.read;
#   - every fixtures/cuda/NAME.cu program (build/fixtures/NAME, as tests/cuda_programs.t
#     builds it) under `ptxemu run --check all`: PASS and "ERROR SUMMARY: 0 errors", except
#     rt_fault and rt_errors, whose findings are asserted exactly (deliberate faults, a leak
#     at cudaDeviceReset, a race).
# Reports' addresses (host addresses, different per run) are compared as ADDR. Without nvcc
# everything is skipped. PTXEMU_TIMEOUT (seconds, default 300) bounds each program.
use strict;
use warnings;
use File::Basename qw(dirname basename);
use File::Path qw(make_path);
use File::Temp qw(tempdir);
use Cwd qw(getcwd);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(find_nvcc run_bounded fixture_sm fail_diag);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $root    = getcwd();
my $build   = $ENV{PTXEMU_BUILD} // 'build';
my $ptxemu  = "$build/ptxemu";
my $timeout = $ENV{PTXEMU_TIMEOUT} // 300;
my $tmp     = tempdir(CLEANUP => 1);

my $nvcc = find_nvcc();
if (!$nvcc) {
    print "1..0 # SKIP nvcc not found\n";
    exit 0;
}

my $libdir = "$root/$build/lib";
my %asan;
if ($build =~ /asan/) {
    chomp(my $so = `gcc -print-file-name=libasan.so`);
    $asan{LD_PRELOAD} = $so if $so =~ m{/};
}
my %env = (%asan, LD_LIBRARY_PATH => $libdir);

my $n = 0;
sub ok_ {
    my ($cond, $desc, @diag) = @_;
    $n++;
    print(($cond ? "ok" : "not ok") . " $n - $desc\n");
    fail_diag($n, $desc, 60, @diag) if !$cond;
    return $cond;
}

sub run { return (run_bounded($timeout, @_))[0 .. 2] }

# The report lines ("=========") of some output, addresses as ADDR.
sub report {
    my ($text) = @_;
    my @l = grep { /^=========/ } split /\n/, $text;
    s/0x[0-9a-f]{6,}/ADDR/g for @l;
    return join('', map { "$_\n" } @l);
}

# The report lines of a fixtures/sanitizer program NAME's run with PTX lines as (PTX:N), CUDA
# headers under CUDA/include/ and the program's own source path from fixtures/.
sub norm_report {
    my ($name, $text) = @_;
    my $t = report($text);
    $t =~ s/\(\S+?:(\d+)\)/(PTX:$1)/g;
    $t =~ s{\S*?/include/}{CUDA/include/}g;
    $t =~ s{(in|,|at) \S*?(fixtures/sanitizer/\Q$name\E\.cu)}{$1 $2}g;
    return $t;
}

# A --check-report JSON file with its "ptx" and "source" paths cut to their file names ('' when
# it is missing).
sub json_report {
    my ($path) = @_;
    my $json = '';
    if (open(my $fh, '<', $path)) {
        local $/;
        $json = <$fh>;
        close $fh;
    }
    $json =~ s{"(ptx|source)": "\S*?([^/"]+:\d+)"}{"$1": "$2"}g;
    return $json;
}

# Build fixtures/sanitizer/NAME.cu with -lineinfo unless up to date; '' or an error. leak.cu
# is linked with -rdynamic (its leaks' host backtraces name its functions).
my $fx = "$build/fixtures/sanitizer";
make_path($fx);
my %extra = (leak => ['-Xcompiler', '-rdynamic']);
# the architecture each is built for (compute_80 unless named: mbarrier.cu needs sm_90)
my %arch = (mbarrier => 'compute_90', async_tma => 'compute_90', async_cluster => 'compute_90');
sub build_one {
    my ($name) = @_;
    my ($src, $exe) = ("fixtures/sanitizer/$name.cu", "$fx/$name");
    return '' if -x $exe && -M $exe <= -M $src && -M $exe <= -M __FILE__;
    my $a = $arch{$name} // 'compute_80';
    my ($st, $out, $err) = run({}, $nvcc, '-cudart', 'shared', '-lineinfo', '-O3', '-gencode',
        "arch=$a,code=$a", @{ $extra{$name} // [] }, '-o', $exe, $src);
    return $st ? "nvcc failed: $err" : '';
}

my @fixtures = sort glob('fixtures/cuda/*.cu');
print "1..", 23 + scalar(@fixtures), "\n";

# ------------------------------------------------------------------ racecheck, source lines
{
    my $e = build_one('race');
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'racecheck', '--',
        "$fx/race");
    my $want = <<'R';
========= Error: Race reported between Write access at _Z4racyPi+0x70 (PTX:35) in fixtures/sanitizer/race.cu:13
=========     and Read access at _Z4racyPi+0xb0 (PTX:40) in fixtures/sanitizer/race.cu:14 [63 hazards]
========= Error: Race reported between Read access at _Z4racyPi+0xb0 (PTX:40) in fixtures/sanitizer/race.cu:14
=========     and Write access at _Z4racyPi+0x70 (PTX:35) in fixtures/sanitizer/race.cu:13 [1 hazard]
========= ERROR SUMMARY: 2 errors
R
    my $got = report($err);
    $got =~ s/\(\S+?:(\d+)\)/(PTX:$1)/g;
    $got =~ s{in \S*?(fixtures/sanitizer/race\.cu)}{in $1}g;
    ok_($st == 0 && $out eq "done\n" && $got eq $want,
        'racecheck: read-after-write and write-after-read hazards with both CUDA source lines, the fixed kernel clean',
        "status $st", $out, $err, "got:\n$got");
}

# ------------------------------------------------------------------ racecheck, global memory
{
    # one host thread: block 0 runs before block 1, so which access of a pair comes first
    # (and so the hazard kind) is fixed
    my $e = build_one('grace');
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--threads', '1',
        '--check', 'racecheck', '--error-exitcode', '6', '--', "$fx/grace");
    my $got = report($err);
    $got =~ s/\(\S+?:(\d+)\)/(PTX:$1)/g;
    $got =~ s{(in|at) \S*?(fixtures/sanitizer/grace\.cu|device_atomic_functions\.hpp)}{$1 $2}g;
    my $want = <<'R';
========= Error: Race reported between Write access at _Z4racyPiS_+0xe0 (PTX:53) in fixtures/sanitizer/grace.cu:25
=========     and Read access at _Z4racyPiS_+0xa0 (PTX:46) in fixtures/sanitizer/grace.cu:27 [64 hazards]
=========     by thread (0,0,0) in block (1,0,0)
=========     Address ADDR in __global__ memory
========= Error: Race reported between Write access at _Z9cta_fencePiS_+0xa0 (PTX:151) in fixtures/sanitizer/grace.cu:51
=========     and Read access at _Z9cta_fencePiS_+0x180 (PTX:175) in fixtures/sanitizer/grace.cu:57 [1 hazard]
=========     by thread (0,0,0) in block (1,0,0)
=========     Address ADDR in __global__ memory
========= Warning: Race reported between Write access at _Z5resetPjS_+0xf0 (PTX:227) in device_atomic_functions.hpp:112 inlined at fixtures/sanitizer/grace.cu:63
=========     and Write access at _Z5resetPjS_+0xd0 (PTX:221) in fixtures/sanitizer/grace.cu:66 [1 hazard]
=========     by thread (0,0,0) in block (1,0,0)
=========     Address ADDR in __global__ memory
========= Error: Race reported between Write access at _Z5warpsPiS_+0xf0 (PTX:269) in fixtures/sanitizer/grace.cu:73
=========     and Read access at _Z5warpsPiS_+0x110 (PTX:274) in fixtures/sanitizer/grace.cu:75 [32 hazards]
=========     by thread (32,0,0) in block (0,0,0)
=========     Address ADDR in __global__ memory
========= Error: Race reported between Write access at _Z7relaxedPiS_S_+0x140 (PTX:435) in fixtures/sanitizer/grace.cu:88 inlined at fixtures/sanitizer/grace.cu:102
=========     and Read access at _Z7relaxedPiS_S_+0xf0 (PTX:425) in fixtures/sanitizer/grace.cu:91 inlined at fixtures/sanitizer/grace.cu:102 [1 hazard]
=========     by thread (0,0,0) in block (1,0,0)
=========     Address ADDR in __global__ memory
========= ERROR SUMMARY: 5 errors
R
    ok_($st == 6 && $out eq "21 41 5 7 7 1\n" && $got eq $want,
        'racecheck on global memory: unordered blocks and warps (Error), a .cta fence between blocks (Error), an atomic against a plain store (Warning), a relaxed flag (Error); __threadfence + atomic ticket, release/acquire flag, __syncthreads, the atomicCAS-style plain read, a volatile flag reset by its reader: clean',
        "status $st", $out, $err, "got:\n$got");
}

# ------------------------------------------------------------------ racecheck, global memory, one warp
{
    # sm_70+: lanes of a warp are not in lock step; nvcc forwards lane 0's store to itself, so
    # lanes 1-31 read what it wrote (31 hazards); own, atomics and synced are clean
    my $e = build_one('wrace');
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check',
        'racecheck', '--', "$fx/wrace");
    my $got = report($err);
    $got =~ s/\(\S+?:(\d+)\)/(PTX:$1)/g;
    $got =~ s{in \S*?(fixtures/sanitizer/wrace\.cu)}{in $1}g;
    my $want = <<'R';
========= Error: Race reported between Write access at _Z4racyPiS_+0x90 (PTX:43) in fixtures/sanitizer/wrace.cu:16
=========     and Read access at _Z4racyPiS_+0x60 (PTX:35) in fixtures/sanitizer/wrace.cu:17 [31 hazards]
=========     by thread (1,0,0) in block (0,0,0)
=========     Address ADDR in __global__ memory
========= Error: Race reported between Read access at _Z5shiftPi+0x50 (PTX:72) in fixtures/sanitizer/wrace.cu:22
=========     and Write access at _Z5shiftPi+0x60 (PTX:74) in fixtures/sanitizer/wrace.cu:23 [31 hazards]
=========     by thread (1,0,0) in block (0,0,0)
=========     Address ADDR in __global__ memory
========= ERROR SUMMARY: 2 errors
R
    ok_($st == 0 && $out eq "42 0 32 32 43\n" && $got eq $want,
        'racecheck on global memory between lanes of one warp: a lock-step handoff and a lock-step shift (Errors); one lane\'s own word, atomics, a __syncwarp handoff: clean',
        "status $st", $out, $err, "got:\n$got");
}

# ------------------------------------------------------------------ --fill-uninit
{
    # zero-filled the sums come out right; the patterns show each bug: cudaMalloc memory,
    # __shared__ memory and device malloc memory read before written
    my $e = build_one('fill');
    my @got;
    for my $how (['run', '--'], ['run', '--fill-uninit=0xff', '--'], ['run', '--fill-uninit',
        'nan', '--']) {
        my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, @$how, "$fx/fill");
        push @got, $st == 0 && $err eq '' ? $out : "status $st: $err";
    }
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({ %env, PTXEMU_FILL_UNINIT => '0x01' },
        "$fx/fill");
    push @got, $st == 0 && $err eq '' ? $out : "status $st: $err";
    my $want = "2080 64 1 32\n|2016 63 0 -nan\n|2016 -2147483585 -2147483648 nan\n"
        . "|1077954656 16843073 16843010 32\n";
    ok_(join('|', @got) eq $want,
        '--fill-uninit 0xff / nan / PTXEMU_FILL_UNINIT=0x01: cudaMalloc, __shared__ and device malloc memory hold the pattern; none: zeros',
        "got:\n" . join('|', @got));
}

# ------------------------------------------------------------------ initcheck
{
    my $e = build_one('initcheck');
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'initcheck',
        '--error-exitcode', '3', '--', "$fx/initcheck");
    my $got = report($err);
    $got =~ s/\(\S+?:(\d+)\)/(PTX)/g;
    $got =~ s{in \S*?(fixtures/sanitizer/initcheck\.cu)}{in $1}g;
    my $want = <<'R';
========= Uninitialized __global__ memory read of size 4 bytes
=========     at _Z3sumPKiPii+0xc0 (PTX) in fixtures/sanitizer/initcheck.cu:10
=========     by thread (0,0,0) in block (1,0,0)
=========     Address ADDR is 512 bytes into the allocation of 1024 bytes at ADDR
=========     (128 such reads by this instruction)
========= ERROR SUMMARY: 1 error
R
    ok_($st == 3 && $out eq "2\n" && $got eq $want,
        'initcheck: the half cudaMemset did not write, once per instruction; memcpy and kernel stores count; --error-exitcode',
        "status $st", $out, $err, "got:\n$got");
}

# ------------------------------------------------------------------ initcheck, local memory
{
    # nvcc keeps a dynamically indexed per-thread array in local memory (a local depot); the
    # threads whose index names an element the kernel did not write are reported, the kernel
    # that writes every element first is clean; the JSON record says "local"
    my $e = build_one('localinit');
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'all',
        '--check-report', "$tmp/local.json", '--', "$fx/localinit");
    my $got = report($err);
    $got =~ s/\(\S+?:(\d+)\)/(PTX)/g;
    $got =~ s{in \S*?(fixtures/sanitizer/localinit\.cu)}{in $1}g;
    my $json = '';
    if (open(my $fh, '<', "$tmp/local.json")) { local $/; $json = <$fh> }
    $json =~ s/"ptx": "\S+?:\d+"/"ptx": "PTX"/g;
    $json =~ s{"/\S*?/(fixtures/)}{"$1}g;
    my $want = <<'R';
========= Uninitialized __local__ memory read of size 4 bytes
=========     at _Z6partlyPKiPi+0x150 (PTX) in fixtures/sanitizer/localinit.cu:12
=========     by thread (3,0,0) in block (0,0,0)
=========     Address 0x30 in the thread's local memory
=========     (8 such reads by this instruction)
========= ERROR SUMMARY: 1 error
R
    my $want_json = <<'J';
[
  {"tool": "initcheck", "kind": "uninitialized-read", "severity": "error", "kernel": "_Z6partlyPKiPi", "block": [0, 0, 0], "thread": [3, 0, 0], "function": "_Z6partlyPKiPi", "pc": "0x150", "ptx": "PTX", "source": "fixtures/sanitizer/localinit.cu:12", "space": "local", "address": "0x30", "size": 4, "count": 8},
  {"summary": {"errors": 1, "reported": 1}}
]
J
    ok_($st == 0 && $out eq "2\n" && $got eq $want && $json eq $want_json,
        'initcheck of local memory (nvcc -O3, a dynamically indexed local array): the threads reading elements never written, with the offset in their local memory; the fully written array clean; JSON record',
        "status $st", $out, $err, "got:\n$got", "json:\n$json");
}

# ------------------------------------------------------------------ initcheck, local frames across calls
{
    # a __noinline__ function's local frame reused by its second call: the slot only the first
    # call wrote is uninitialized for the second (threads 16..31 read it)
    my $e = build_one('localcall');
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'initcheck',
        '--', "$fx/localcall");
    my $got = report($err);
    $got =~ s/\(\S+?:(\d+)\)/(PTX)/g;
    $got =~ s{in \S*?(fixtures/sanitizer/localcall\.cu)}{in $1}g;
    my $want = <<'R';
========= Uninitialized __local__ memory read of size 4 bytes
=========     at _Z4slotiii+0xa0 (PTX) in fixtures/sanitizer/localcall.cu:13
=========     by thread (16,0,0) in block (0,0,0)
=========     Address 0x34 in the thread's local memory
=========     (16 such reads by this instruction)
========= ERROR SUMMARY: 1 error
R
    ok_($st == 0 && $out eq "102 234\n" && $got eq $want,
        'initcheck of local memory across calls: the second call of a __noinline__ function reads a slot of its frame only the first call wrote (16 threads), the slot it wrote itself clean',
        "status $st", $out, $err, "got:\n$got");
}

# ------------------------------------------------------------------ synccheck
{
    my $e = build_one('sync');
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'synccheck',
        '--', "$fx/sync");
    my $got = report($err);
    $got =~ s/\(\S+?:(\d+)\)/(PTX:$1)/g;
    $got =~ s{(in|at|,) \S*?(fixtures/sanitizer/sync\.cu|sm_30_intrinsics\.hpp)}{$1 $2}g;
    my $want = <<'R';
========= Barrier error detected. Divergent thread(s) in block
=========     at _Z9divergentPi+0x60 (PTX:35) in fixtures/sanitizer/sync.cu:10
=========     by thread (0,0,0) in block (0,0,0)
=========     lanes 0000ffff of warp 0 executed the barrier; its live lanes are ffffffff
========= Barrier error detected. Divergent thread(s) in warp
=========     at _Z9divergentPi+0xa0 (PTX:41) in sm_30_intrinsics.hpp:373 inlined at fixtures/sanitizer/sync.cu:12
=========     by thread (0,0,0) in block (0,0,0)
=========     shfl.sync member mask ffffffff names lanes that do not execute it (0000ffff do)
========= ERROR SUMMARY: 2 errors
R
    ok_($st == 0 && $out eq "3 35\n" && $got eq $want,
        'synccheck on nvcc output: __syncthreads skipped by half a warp, a full-mask __shfl_sync in half a warp (inlined intrinsic), the masked one clean',
        "status $st", $out, $err, "got:\n$got");
}

# ------------------------------------------------------------------ synccheck: mbarrier, cluster
{
    # one run per kernel (a misuse the engine stops at fails the launch as it does without
    # the check, and the context with it): the report, then the program's line (the launch's
    # error, out[0], out[64])
    my $e = build_one('mbarrier');
    my $got = '';
    my $st = 0;
    for my $k (qw(uninit over nocomplete tx reinit twice nowait halfwarp)) {
        my ($s, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check',
            'synccheck', '--', "$fx/mbarrier", $k);
        $st ||= $s;
        $got .= report($err) . $out;
    }
    $got =~ s/\(\S+?:(\d+)\)/(PTX:$1)/g;
    $got =~ s{in \S*?(fixtures/sanitizer/mbarrier\.cu)}{in $1}g;
    my $want = <<'R';
========= Barrier error detected. Invalid mbarrier
=========     at _Z6uninitPy+0x30 (PTX:38) in fixtures/sanitizer/mbarrier.cu:26
=========     by thread (0,0,0) in block (0,0,0)
=========     mbarrier.arrive on the mbarrier at shared address 0x0, which is not initialized (no mbarrier.init by its block, or mbarrier.inval since)
========= ERROR SUMMARY: 1 error
uninit: cudaErrorIllegalInstruction 0 0
========= Barrier error detected. Invalid arrive
=========     at _Z4overPy+0xa0 (PTX:83) in fixtures/sanitizer/mbarrier.cu:40
=========     by thread (0,0,0) in block (0,0,0)
=========     mbarrier.arrive: 2 arrivals on the mbarrier at shared address 0x0, whose phase waits for 1 (expected 1 per phase)
========= ERROR SUMMARY: 1 error
over: cudaErrorIllegalInstruction 0 0
========= Barrier error detected. Invalid arrive
=========     at _Z10nocompletePy+0x70 (PTX:123) in fixtures/sanitizer/mbarrier.cu:52
=========     by thread (0,0,0) in block (0,0,0)
=========     mbarrier.arrive: 2 arrivals on the mbarrier at shared address 0x0, whose phase waits for 2 (expected 2 per phase): a .noComplete arrival must not complete it
========= ERROR SUMMARY: 1 error
nocomplete: cudaErrorIllegalInstruction 0 0
========= Barrier error detected. Invalid transaction count
=========     at _Z2txPy+0x70 (PTX:163) in fixtures/sanitizer/mbarrier.cu:64
=========     by thread (0,0,0) in block (0,0,0)
=========     mbarrier.expect_tx: the tx-count of the mbarrier at shared address 0x0 would go from 0 to 1048576, outside -(2^20 - 1) .. 2^20 - 1
========= ERROR SUMMARY: 1 error
tx: cudaErrorIllegalInstruction 0 0
========= Barrier error detected. Invalid mbarrier
=========     at _Z6reinitPy+0x60 (PTX:203) in fixtures/sanitizer/mbarrier.cu:75
=========     by thread (0,0,0) in block (0,0,0)
=========     mbarrier.init of the mbarrier at shared address 0x0, which its block initialized already (mbarrier.inval it first)
========= ERROR SUMMARY: 1 error
reinit: cudaSuccess 2 0
========= Barrier error detected. Invalid arrive
=========     at _Z5twicePy+0x30 (PTX:238) in fixtures/sanitizer/mbarrier.cu:84
=========     by thread (0,0,0) in block (0,0,0)
=========     barrier.cluster.arrive by a thread that arrived in this phase already (no barrier.cluster.wait in between; block of cluster rank 0)
========= ERROR SUMMARY: 1 error
twice: cudaErrorIllegalInstruction 0 0
========= Barrier error detected. Invalid wait
=========     at _Z6nowaitPy+0x50 (PTX:282) in fixtures/sanitizer/mbarrier.cu:94
=========     by thread (8,0,0) in block (0,0,0)
=========     barrier.cluster.wait by a thread that did not arrive (no barrier.cluster.arrive since its last wait; block of cluster rank 0)
========= ERROR SUMMARY: 1 error
nowait: cudaErrorIllegalInstruction 0 0
========= Barrier error detected. Divergent thread(s) in block
=========     at _Z8halfwarpPy+0x60 (PTX:316) in fixtures/sanitizer/mbarrier.cu:103
=========     by thread (0,0,0) in block (0,0,0)
=========     lanes 0000ffff of warp 0 executed the barrier; its live lanes are ffffffff
========= ERROR SUMMARY: 1 error
halfwarp: cudaSuccess 5 0
R
    ok_($st == 0 && $got eq $want,
        'synccheck on nvcc output (sm_90): an mbarrier used uninitialized, over-arrived, completed by .noComplete, its tx-count overflowed, re-initialized; barrier.cluster.arrive twice, wait without arrive, .aligned in half a warp',
        "status $st", "got:\n$got");

    # the clean kernel under every tool, and a misuse in the JSON report
    my ($s, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'all', '--',
        "$fx/mbarrier", 'clean');
    my ($s2, $out2, $err2) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check',
        'synccheck', '--check-report', "$tmp/mbar.json", '--', "$fx/mbarrier", 'twice');
    my $j = '';
    if (open(my $fh, '<', "$tmp/mbar.json")) { local $/; $j = <$fh> }
    $j =~ s{"/\S*?/(fixtures/)}{"$1}g;
    my $jwant = <<'J';
[
  {"tool": "synccheck", "kind": "cluster-arrive-twice", "severity": "error", "kernel": "_Z5twicePy", "block": [0, 0, 0], "thread": [0, 0, 0], "function": "_Z5twicePy", "pc": "0x30", "ptx": "mbarrier.compute_90.ptx:238", "source": "fixtures/sanitizer/mbarrier.cu:84", "instruction": "barrier.cluster.arrive", "cluster_rank": 0, "count": 1},
  {"summary": {"errors": 1, "reported": 1}}
]
J
    ok_($s == 0 && $out eq "clean: cudaSuccess 2 2\n" && report($err) eq "========= ERROR SUMMARY: 0 errors\n"
            && $s2 == 0 && $j eq $jwant,
        'synccheck on nvcc output (sm_90): a cuda::barrier, cluster.sync() and an mbarrier tx-count raised and lowered are clean under --check all; a cluster barrier misuse in the JSON report',
        "status $s", $out, $err, "json:\n$j");
}

# ------------------------------------------------------------------ asynccheck
{
    # a cp.async read before its wait (<cuda_pipeline.h>), reported with the copy's site (its
    # inlining chain through the CUDA headers, their directory as CUDA/); the waited-for copy
    # and a cuda::memcpy_async on a cuda::barrier clean under --check all
    my $e = build_one('async');
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check-async',
        '--', "$fx/async", 'early');
    my $got = report($err);
    $got =~ s/\(\S+?:(\d+)\)/(PTX:$1)/g;
    $got =~ s{\S*?/include/}{CUDA/include/}g;
    $got =~ s{(in|,) \S*?(fixtures/sanitizer/async\.cu)}{$1 $2}g;
    my $want = <<'R';
========= Read of a cp.async destination before the copy was waited for (size 4 bytes)
=========     at _Z5earlyPK4int4Pi+0xb0 (PTX:56) in fixtures/sanitizer/async.cu:25
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x0 in shared memory, to be written by the cp.async at _Z5earlyPK4int4Pi+0x90 (PTX:46) in CUDA/include/cuda_pipeline_helpers.h:203 inlined at CUDA/include/cuda_pipeline_helpers.h:219, CUDA/include/cuda_pipeline_helpers.h:292, CUDA/include/cuda_pipeline_primitives.h:69, fixtures/sanitizer/async.cu:23 of thread 0 of the block, which no cp.async.wait_group / wait_all of that thread (nor an mbarrier wait after its cp.async.mbarrier.arrive) has completed yet: the read sees the old bytes (here 0xff)
=========     (32 such accesses by this instruction)
========= ERROR SUMMARY: 1 error
R
    my ($s2, $out2, $err2) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'all',
        '--', "$fx/async", 'fine');
    my ($s3, $out3, $err3) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'all',
        '--', "$fx/async", 'barrier');
    my ($s4, $out4) = $e ? (-1, '') : run({%asan}, $ptxemu, 'run', '--', "$fx/async", 'early');
    ok_($st == 0 && $out eq "early: cudaSuccess 49568\n" && $got eq $want
            && $s2 == 0 && $out2 eq "fine: cudaSuccess 50096\n"
            && report($err2) eq "========= ERROR SUMMARY: 0 errors\n"
            && $s3 == 0 && $out3 eq "barrier: cudaSuccess 50096\n"
            && report($err3) eq "========= ERROR SUMMARY: 0 errors\n"
            && $s4 == 0 && $out4 eq "early: cudaSuccess 50096\n",
        'asynccheck on nvcc output: a cp.async destination read before __pipeline_wait_prior is reported (and sees 0xff bytes); the waited-for copy and cuda::memcpy_async on a cuda::barrier are clean under --check all; without the tool the copy completes at once',
        "status $st", $out, $err, "got:\n$got", "fine: $s2 $out2 $err2", "barrier: $s3 $out3 $err3",
        "plain: $s4 $out4");
}

{
    # TMA through cuda::ptx: a tensor load's tile read before the mbarrier wait, a tensor
    # store's source tile rewritten before cp.async.bulk.wait_group.read (also as JSON), and
    # the program with its waits where they belong, clean under --check all; the results are
    # right in every mode (the engine's copies are exact; the finding is the hazard)
    my $e = build_one('async_tma');
    my $tmp = tempdir(CLEANUP => 1);
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check',
        'asynccheck', '--', "$fx/async_tma", 'early');
    my $got = norm_report('async_tma', $err);
    my ($s2, $out2, $err2) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check-async',
        '--check-report', "$tmp/tma.json", '--', "$fx/async_tma", 'store');
    $got .= norm_report('async_tma', $err2);
    my $json = json_report("$tmp/tma.json");
    my ($s3, $out3, $err3) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'all',
        '--', "$fx/async_tma", 'fine');
    # an expect_tx of 16 bytes more than the box: every thread spins on try_wait forever (a
    # hang on a GPU): the engine reports the mbarrier deadlock and the launch fails
    my ($s4, $out4, $err4) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--',
        "$fx/async_tma", 'txbug');
    my $got4 = norm_report('async_tma', $err4);
    my $want4 = <<'R';
========= Barrier deadlock
=========     at _Z11tile_kernel14CUtensorMap_stS_iPi+0x280 (PTX:114) in CUDA/include/cccl/cuda/__ptx/instructions/generated/mbarrier_try_wait_parity.h:26 inlined at fixtures/sanitizer/async_tma.cu:48
=========     by thread (0,0,0) in block (0,0,0)
=========     mbarrier deadlock: warp 0 waits for the phase of parity 0 of the mbarrier at shared 0x1000, which can never complete: its current phase (parity 0) has 0 of 1 arrivals and 16 transaction bytes pending; 1 live warp of the block spins on mbarrier waits, the others are parked at barriers or have exited
R
    my $want = <<'R';
========= Read of a bulk copy destination before the copy was waited for (size 4 bytes)
=========     at _Z11tile_kernel14CUtensorMap_stS_iPi+0x240 (PTX:100) in fixtures/sanitizer/async_tma.cu:47
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x0 in shared memory, to be written by the bulk copy at _Z11tile_kernel14CUtensorMap_stS_iPi+0x140 (PTX:77) in CUDA/include/cccl/cuda/__ptx/instructions/generated/cp_async_bulk_tensor.h:209 inlined at fixtures/sanitizer/async_tma.cu:41 of thread 0 of the block, whose mbarrier phase no mbarrier.test_wait / try_wait has seen complete yet: the read sees the old bytes (here 0xff)
=========     (32 such accesses by this instruction)
========= ERROR SUMMARY: 1 error
========= Write of a bulk copy source before the copy was waited for (size 4 bytes)
=========     at _Z11tile_kernel14CUtensorMap_stS_iPi+0xbd0 (PTX:294) in fixtures/sanitizer/async_tma.cu:67
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x0 in shared memory, still to be read by the bulk copy at _Z11tile_kernel14CUtensorMap_stS_iPi+0xb70 (PTX:277) in CUDA/include/cccl/cuda/__ptx/instructions/generated/cp_async_bulk_tensor.h:351 inlined at fixtures/sanitizer/async_tma.cu:62 of thread 0 of the block, which no cp.async.bulk.wait_group{.read} of that thread has waited for yet: the copy may read the new bytes
=========     (32 such accesses by this instruction)
========= ERROR SUMMARY: 1 error
R
    my $wantj = <<'J';
[
  {"tool": "asynccheck", "kind": "source-write-before-wait", "severity": "error", "kernel": "_Z11tile_kernel14CUtensorMap_stS_iPi", "block": [0, 0, 0], "thread": [0, 0, 0], "function": "_Z11tile_kernel14CUtensorMap_stS_iPi", "pc": "0xbd0", "ptx": "async_tma.compute_90.ptx:294", "source": "async_tma.cu:67", "space": "shared", "address": "0x0", "size": 4, "copy": {"function": "_Z11tile_kernel14CUtensorMap_stS_iPi", "pc": "0xb70", "ptx": "async_tma.compute_90.ptx:277", "source": "cp_async_bulk_tensor.h:351", "thread_in_block": 0, "completed_by": "cp.async.bulk.wait_group"}, "count": 32},
  {"summary": {"errors": 1, "reported": 1}}
]
J
    ok_($st == 0 && $out eq "early: cudaSuccess 103304 PASS\n" && $s2 == 0
            && $out2 eq "store: cudaSuccess 103304 PASS\n" && $got eq $want && $json eq $wantj
            && $s3 == 0 && $out3 eq "fine: cudaSuccess 103304 PASS\n"
            && report($err3) eq "========= ERROR SUMMARY: 0 errors\n"
            && $s4 == 0 && $out4 eq "txbug: cudaErrorLaunchTimeout\n" && $got4 eq $want4,
        'asynccheck on nvcc TMA code: a tensor load\'s tile read before its mbarrier wait and a tensor store\'s source rewritten before cp.async.bulk.wait_group.read are reported (text and JSON); the correct program is clean under --check all; a wrong expect_tx byte count is an mbarrier deadlock report and cudaErrorLaunchTimeout, not a hang',
        "early: $st $out", "got:\n$got", "json:\n$json", "store: $s2 $out2", "fine: $s3 $out3 $err3",
        "txbug: $s4 $out4", "got:\n$got4");
}

{
    # a bulk copy into another CTA of the cluster (cp.async.bulk to shared::cluster through
    # cooperative_groups' map_shared_rank): read in that CTA before its mbarrier wait is
    # reported there, naming the copy's thread and cluster rank (text and JSON); a circular
    # mbarrier wait across the cluster is a deadlock report and cudaErrorLaunchTimeout, also
    # under --timing; the correct program is clean under --check all
    my $e = build_one('async_cluster');
    my $tmp = tempdir(CLEANUP => 1);
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check',
        'asynccheck', '--check-report', "$tmp/c.json", '--', "$fx/async_cluster", 'early');
    my $got = norm_report('async_cluster', $err);
    my $json = json_report("$tmp/c.json");
    my ($s2, $out2, $err2) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--',
        "$fx/async_cluster", 'cycle');
    my $got2 = norm_report('async_cluster', $err2);
    my ($s3, $out3, $err3) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--timing',
        '--', "$fx/async_cluster", 'cycle');
    my $got3 = norm_report('async_cluster', $err3);
    my ($s4, $out4, $err4) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'all',
        '--', "$fx/async_cluster", 'fine');
    my $want = <<'R';
========= Read of a bulk copy destination before the copy was waited for (size 4 bytes)
=========     at _Z11send_kernelPKiPii+0x300 (PTX:162) in fixtures/sanitizer/async_cluster.cu:49
=========     by thread (0,0,0) in block (1,0,0)
=========     Address 0x0 in shared memory, to be written by the bulk copy at _Z11send_kernelPKiPii+0x250 (PTX:135) in CUDA/include/cccl/cuda/__ptx/instructions/generated/cp_async_bulk.h:35 inlined at fixtures/sanitizer/async_cluster.cu:43 of thread 0 of the block of cluster rank 0, whose mbarrier phase no mbarrier.test_wait / try_wait has seen complete yet: the read sees the old bytes (here 0xff)
=========     (32 such accesses by this instruction)
========= ERROR SUMMARY: 1 error
R
    my $wantj = <<'J';
[
  {"tool": "asynccheck", "kind": "read-before-wait", "severity": "error", "kernel": "_Z11send_kernelPKiPii", "block": [1, 0, 0], "thread": [0, 0, 0], "function": "_Z11send_kernelPKiPii", "pc": "0x300", "ptx": "async_cluster.compute_90.ptx:162", "source": "async_cluster.cu:49", "space": "shared", "address": "0x0", "size": 4, "copy": {"function": "_Z11send_kernelPKiPii", "pc": "0x250", "ptx": "async_cluster.compute_90.ptx:135", "source": "cp_async_bulk.h:35", "thread_in_block": 0, "cluster_rank": 0, "completed_by": "mbarrier"}, "count": 32},
  {"summary": {"errors": 1, "reported": 1}}
]
J
    my $want2 = <<'R';
========= Barrier deadlock
=========     at _Z11send_kernelPKiPii+0x6e0 (PTX:274) in CUDA/include/cccl/cuda/__ptx/instructions/generated/mbarrier_try_wait_parity.h:26 inlined at fixtures/sanitizer/async_cluster.cu:59
=========     by thread (0,0,0) in block (0,0,0)
=========     mbarrier deadlock: warp 0 waits for the phase of parity 0 of the mbarrier at shared 0x408, which can never complete: its current phase (parity 0) has 1 of 1 arrivals and 0 transaction bytes pending; 2 live warps of the cluster's 2 blocks spin on mbarrier waits, the others are parked at barriers or have exited
R
    ok_($st == 0 && $out eq "early: cudaSuccess -51 PASS\n" && $got eq $want && $json eq $wantj
            && $s2 == 0 && $out2 eq "cycle: cudaErrorLaunchTimeout\n" && $got2 eq $want2
            && $s3 == 0 && $out3 eq "cycle: cudaErrorLaunchTimeout\n"
            && $got3 =~ /2 live warps of the cluster's 2 blocks spin on mbarrier waits/
            && $s4 == 0 && $out4 eq "fine: cudaSuccess -51 PASS\n"
            && report($err4) eq "========= ERROR SUMMARY: 0 errors\n",
        'asynccheck and deadlocks across a cluster on nvcc code: a bulk copy into the peer CTA read there before its mbarrier wait is reported with the issuing CTA\'s rank (text and JSON); a circular mbarrier wait between the two CTAs is a deadlock report and cudaErrorLaunchTimeout (also under --timing), not a hang; the correct program is clean under --check all',
        "early: $st $out", "got:\n$got", "json:\n$json", "cycle: $s2 $out2", "got:\n$got2",
        "timing: $s3 $out3", "got:\n$got3", "fine: $s4 $out4 $err4");
}

# ------------------------------------------------------------------ leakcheck
{
    # the report lines with host frames' module offsets as OFF and paths from fixtures/ (the
    # program's own: its name)
    my $leaks = sub {
        my $t = report($_[0]);
        $t =~ s{ \[0x[0-9a-f]+\] in \S*/(\S+)$}{ [OFF] in $1}mg;
        $t =~ s/\(\S+?:(\d+)\)/(PTX:$1)/g;
        $t =~ s{in \S*?(fixtures/sanitizer/leak\.cu)}{in $1}g;
        return $t;
    };
    my $e = build_one('leak');
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'leakcheck',
        '--error-exitcode', '5', '--', "$fx/leak");
    my $want = <<'R';
========= Leaked 1024 bytes at ADDR
=========     Saved host backtrace up to driver entry point at cudaMalloc time
=========         Host Frame:main [OFF] in leak
========= Leaked 64 bytes at ADDR
=========     Saved host backtrace up to driver entry point at cudaMalloc time
=========         Host Frame:alloc_buffer(unsigned long) [OFF] in leak
=========         Host Frame:main [OFF] in leak
========= Leaked 48 bytes at ADDR on the device heap
=========     Saved device site at malloc time: _Z5leakyPPi+0x60 (PTX:43) in fixtures/sanitizer/leak.cu:11
=========     by thread (1,0,0) in block (0,0,0)
========= LEAK SUMMARY: 1136 bytes leaked in 3 allocations
========= ERROR SUMMARY: 3 errors
R
    ok_($st == 5 && $out eq "exit\n" && $leaks->($err) eq $want,
        'leakcheck at exit: the allocations not freed, in allocation order, each with its cudaMalloc call\'s host backtrace (the helper function that called it, then main), the device malloc block with its instruction and thread; --error-exitcode 5',
        "status $st", $out, $err, "got:\n" . $leaks->($err));

    ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'all', '--',
        "$fx/leak", 'reset');
    ok_($st == 0 && $out eq "reset\n" && $leaks->($err) eq $want,
        'leakcheck at cudaDeviceReset (nothing left at exit); no --error-exitcode: the program\'s status',
        "status $st", $out, $err, "got:\n" . $leaks->($err));

    ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--check', 'leakcheck',
        '--print-limit', '1', '--log-file', "$tmp/log", '--', "$fx/leak");
    my $log = '';
    if (open(my $fh, '<', "$tmp/log")) { local $/; $log = <$fh> }
    ok_($st == 0 && $err eq '' && $leaks->($log) eq <<'R',
========= Leaked 1024 bytes at ADDR
=========     Saved host backtrace up to driver entry point at cudaMalloc time
=========         Host Frame:main [OFF] in leak
========= LEAK SUMMARY: 1136 bytes leaked in 3 allocations
========= ERROR SUMMARY: 3 errors
========= 2 errors not printed (--print-limit 1)
R
        '--print-limit 1 --log-file: one report printed, both counted, nothing on stderr',
        "status $st", $err, "log:\n$log");

    ($st, $out, $err) = $e ? (-1, '', $e) : run({ %env, PTXEMU_CHECK => 'leakcheck',
        PTXEMU_ERROR_EXITCODE => '4' }, "$fx/leak");
    ok_($st == 4 && $leaks->($err) eq $want,
        'PTXEMU_CHECK / PTXEMU_ERROR_EXITCODE through the drop-in libcudart (no ptxemu run)',
        "status $st", $out, $err);

    ($st, $out, $err) = $e ? (-1, '', $e) : run(\%env, "$fx/leak");
    ok_($st == 0 && $err eq '', 'without --check: no report, no summary', "status $st", $err);
}

# ------------------------------------------------------------------ --check-report
{
    # the JSON report: one object per printed report, then the summary; addresses as ADDR,
    # source paths from fixtures/ on
    my $json = sub {
        my ($path) = @_;
        my $t = '';
        if (open(my $fh, '<', $path)) { local $/; $t = <$fh> }
        $t =~ s/0x[0-9a-f]{6,}/ADDR/g;
        # host frames: offsets (the host compiler's) as OFF, modules by their file name
        $t =~ s{("offset": "|<offset>)0x[0-9a-f]+}{${1}OFF}g;
        $t =~ s{("module": "|<module>)[^"<]*/([^/"<]+)}{$1$2}g;
        $t =~ s{"/\S*?/(fixtures/|device_atomic_functions)}{"$1}g;
        $t =~ s{ in /\S*?/fixtures/}{ in fixtures/}g;
        return $t;
    };
    my $e = build_one('grace') || build_one('leak');
    my ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--threads', '1',
        '--check', 'racecheck', '--check-report', "$tmp/race.json", '--', "$fx/grace");
    my $got = $json->("$tmp/race.json");
    ($st, $out, $err) = $e ? (-1, '', $e) : run({ %env, PTXEMU_CHECK => 'leakcheck',
        PTXEMU_CHECK_REPORT => "$tmp/leak.json" }, "$fx/leak");
    $got .= $json->("$tmp/leak.json");
    ($st, $out, $err) = run({%asan}, $ptxemu, 'exec', 'fixtures/check/fill.ptx', '--kernel', 'inc',
        '--grid', '1', '--block', '1', '--arg', 'buf:zero=2', '--check', 'memcheck',
        '--check-report', "$tmp/mem.json");
    $got .= $json->("$tmp/mem.json");
    my $want = <<'J';
[
  {"tool": "racecheck", "kind": "read-after-write", "severity": "error", "kernel": "_Z4racyPiS_", "block": [1, 0, 0], "thread": [0, 0, 0], "function": "_Z4racyPiS_", "pc": "0xa0", "ptx": "grace.compute_80.ptx:46", "source": "fixtures/sanitizer/grace.cu:27", "space": "global", "address": "ADDR", "first": {"function": "_Z4racyPiS_", "pc": "0xe0", "ptx": "grace.compute_80.ptx:53", "source": "fixtures/sanitizer/grace.cu:25"}, "count": 64},
  {"tool": "racecheck", "kind": "read-after-write", "severity": "error", "kernel": "_Z9cta_fencePiS_", "block": [1, 0, 0], "thread": [0, 0, 0], "function": "_Z9cta_fencePiS_", "pc": "0x180", "ptx": "grace.compute_80.ptx:175", "source": "fixtures/sanitizer/grace.cu:57", "space": "global", "address": "ADDR", "first": {"function": "_Z9cta_fencePiS_", "pc": "0xa0", "ptx": "grace.compute_80.ptx:151", "source": "fixtures/sanitizer/grace.cu:51"}, "count": 1},
  {"tool": "racecheck", "kind": "write-after-write", "severity": "warning", "kernel": "_Z5resetPjS_", "block": [1, 0, 0], "thread": [0, 0, 0], "function": "_Z5resetPjS_", "pc": "0xd0", "ptx": "grace.compute_80.ptx:221", "source": "fixtures/sanitizer/grace.cu:66", "space": "global", "address": "ADDR", "first": {"function": "_Z5resetPjS_", "pc": "0xf0", "ptx": "grace.compute_80.ptx:227", "source": "device_atomic_functions.hpp:112"}, "count": 1},
  {"tool": "racecheck", "kind": "read-after-write", "severity": "error", "kernel": "_Z5warpsPiS_", "block": [0, 0, 0], "thread": [32, 0, 0], "function": "_Z5warpsPiS_", "pc": "0x110", "ptx": "grace.compute_80.ptx:274", "source": "fixtures/sanitizer/grace.cu:75", "space": "global", "address": "ADDR", "first": {"function": "_Z5warpsPiS_", "pc": "0xf0", "ptx": "grace.compute_80.ptx:269", "source": "fixtures/sanitizer/grace.cu:73"}, "count": 32},
  {"tool": "racecheck", "kind": "read-after-write", "severity": "error", "kernel": "_Z7relaxedPiS_S_", "block": [1, 0, 0], "thread": [0, 0, 0], "function": "_Z7relaxedPiS_S_", "pc": "0xf0", "ptx": "grace.compute_80.ptx:425", "source": "fixtures/sanitizer/grace.cu:91", "space": "global", "address": "ADDR", "first": {"function": "_Z7relaxedPiS_S_", "pc": "0x140", "ptx": "grace.compute_80.ptx:435", "source": "fixtures/sanitizer/grace.cu:88"}, "count": 1},
  {"summary": {"errors": 5, "reported": 5}}
]
[
  {"tool": "leakcheck", "kind": "leak", "severity": "error", "address": "ADDR", "size": 1024, "backtrace": {"api": "cudaMalloc", "frames": [{"function": "main", "offset": "OFF", "module": "leak"}]}},
  {"tool": "leakcheck", "kind": "leak", "severity": "error", "address": "ADDR", "size": 64, "backtrace": {"api": "cudaMalloc", "frames": [{"function": "alloc_buffer(unsigned long)", "offset": "OFF", "module": "leak"}, {"function": "main", "offset": "OFF", "module": "leak"}]}},
  {"tool": "leakcheck", "kind": "leak", "severity": "error", "address": "ADDR", "size": 48, "space": "heap", "site": "_Z5leakyPPi+0x60 (leak.compute_80.ptx:43) in fixtures/sanitizer/leak.cu:11"},
  {"summary": {"errors": 3, "reported": 3}}
]
[
  {"tool": "memcheck", "kind": "out-of-bounds", "severity": "error", "kernel": "inc", "block": [0, 0, 0], "thread": [0, 0, 0], "function": "inc", "pc": "0x10", "ptx": "fixtures/check/fill.ptx:77", "source": null, "space": "global", "access": "read", "address": "ADDR", "size": 4, "message": "and crosses the end of the allocation at ADDR of size 2 bytes"},
  {"summary": {"errors": 1, "reported": 1}}
]
J
    ok_($got eq $want,
        '--check-report FILE.json (run, PTXEMU_CHECK_REPORT, exec): racecheck, leakcheck (with each cudaMalloc call\'s host backtrace) and memcheck reports as JSON objects with the summary',
        "got:\n$got");

    # FILE.xml: the same records as an XML document
    ($st, $out, $err) = $e ? (-1, '', $e) : run({ %env, PTXEMU_CHECK => 'leakcheck',
        PTXEMU_CHECK_REPORT => "$tmp/leak.xml" }, "$fx/leak");
    $got = $json->("$tmp/leak.xml");
    ($st, $out, $err) = run({%asan}, $ptxemu, 'exec', 'fixtures/check/fill.ptx', '--kernel', 'inc',
        '--grid', '1', '--block', '1', '--arg', 'buf:zero=2', '--check', 'memcheck',
        '--check-report', "$tmp/mem.xml");
    $got .= $json->("$tmp/mem.xml");
    $want = <<'X';
<?xml version="1.0" encoding="UTF-8"?>
<reports>
  <report tool="leakcheck" kind="leak" severity="error"><address>ADDR</address><size>1024</size><backtrace><api>cudaMalloc</api><frames><frame><function>main</function><offset>OFF</offset><module>leak</module></frame></frames></backtrace></report>
  <report tool="leakcheck" kind="leak" severity="error"><address>ADDR</address><size>64</size><backtrace><api>cudaMalloc</api><frames><frame><function>alloc_buffer(unsigned long)</function><offset>OFF</offset><module>leak</module></frame><frame><function>main</function><offset>OFF</offset><module>leak</module></frame></frames></backtrace></report>
  <report tool="leakcheck" kind="leak" severity="error"><address>ADDR</address><size>48</size><space>heap</space><site>_Z5leakyPPi+0x60 (leak.compute_80.ptx:43) in fixtures/sanitizer/leak.cu:11</site></report>
  <summary errors="3" reported="3"/>
</reports>
<?xml version="1.0" encoding="UTF-8"?>
<reports>
  <report tool="memcheck" kind="out-of-bounds" severity="error"><kernel>inc</kernel><block x="0" y="0" z="0"/><thread x="0" y="0" z="0"/><function>inc</function><pc>0x10</pc><ptx>fixtures/check/fill.ptx:77</ptx><space>global</space><access>read</access><address>ADDR</address><size>4</size><message>and crosses the end of the allocation at ADDR of size 2 bytes</message></report>
  <summary errors="1" reported="1"/>
</reports>
X
    ok_($got eq $want,
        '--check-report FILE.xml (PTXEMU_CHECK_REPORT, exec): the same records as an XML document (host backtraces too)',
        "got:\n$got");
}

# ------------------------------------------------------------------ usage
{
    my ($st, $out, $err) = run({}, $ptxemu, 'exec', 'fixtures/check/racecheck.ptx', '--kernel',
        'waw', '--grid', '1', '--block', '64', '--check', 'racecheck,bogus');
    ok_($st == 2 && $err =~ /^ptxemu: --check: unknown tool 'bogus' \(memcheck, racecheck, initcheck, synccheck, leakcheck, asynccheck, all\)$/m,
        '--check with an unknown tool is a usage error naming it', "status $st", $err);
    ($st, $out, $err) = run({}, $ptxemu, 'run', '--fill-uninit=0x100', '--', 'true');
    ok_($st == 2 && $err =~ /^ptxemu: --fill-uninit: expected 0xNN \(a byte\) or nan, not '0x100'$/m,
        '--fill-uninit with a bad pattern is a usage error', "status $st", $err);
    ($st, $out, $err) = run({}, $ptxemu, 'run', '--error-exitcode', '3', '--', 'true');
    ok_($st == 2 && $err =~ /^ptxemu: --error-exitcode, --print-limit, --log-file and --check-report need --check$/m,
        '--error-exitcode without --check is a usage error', "status $st", $err);
}

# ------------------------------------------------------------------ fixtures/cuda under --check all
my @stale = grep { my $e = 'build/fixtures/' . basename($_, '.cu'); !-x $e || -M $e > -M $_ } @fixtures;
if (@stale) {
    local $ENV{NVCC} = $nvcc;
    my @names = map { basename($_, '.cu') } @stale;
    `scripts/gen-fixtures.sh --exe --variants '' @names 2>&1`;
}
my %deliberate = (
    rt_limits     => 'a stack overflow it provokes, buffers alive at its resets',
    rt_reset_race => 'kernels of other threads cut off by cudaDeviceReset',
    rt_surf_fault => 'a surface store outside its surface',
    rt_tex_stale  => 'destroyed texture handles used on purpose',
    rt_tex_ms     => 'a multisample fetch, which faults (CUDA makes no multisample textures)',
    tma_2sm       => 'a .cta_group::1 tensor copy signalling the other CTA\'s mbarrier, last (sticky)',
    tma_im2col    => 'an im2col load with a tiled map, last (sticky; its buffers stay allocated)',
    tma_im2col_wide => 'four faulting im2col-wide copies, last, each followed by cudaDeviceReset (its buffers alive there)',
    tma_reduce    => 'a tensor .inc on f32, last (sticky; its buffer stays allocated)',
    tma_replace   => 'a tensormap.replace of box dimension 0, last (sticky; its buffers stay allocated)',
);
my %known = ( # NAME => why it does not run clean yet (a TODO test); none at present
);
for my $src (@fixtures) {
    my $name = basename($src, '.cu');
    my $exe  = "build/fixtures/$name";
    if (!-x $exe) {
        ok_(0, "--check all: $name", "nvcc failed to build $exe");
        next;
    }
    # a program that needs an architecture newer than the emulated default (sm_90) runs on
    # that device, as in cuda_programs.t: `// fixtures: sm_100a` -> --device sm=100
    my $sm = fixture_sm("fixtures/cuda/$name.cu");
    my @dev = $sm ? ('--device', "sm=$sm") : ();
    my ($st, $out, $err) = run({%asan}, $ptxemu, 'run', @dev, '--check', 'all',
        '--error-exitcode', '99', '--', "./$exe");
    my $rep = report($err);
    # leaks' host frames: those of a program built without -rdynamic, through the C library,
    # depend on the toolchain (leak.cu's are asserted above)
    $rep =~ s/^=========         Host Frame:.*\n//mg;
    if ($name eq 'rt_fault') {
        # its fault is deliberate (memcheck); the buffer cannot be freed before the
        # cudaDeviceReset that clears the sticky error (leakcheck reports it there)
        my $want = <<'R';
========= Invalid __global__ write of size 4 bytes
=========     at _Z5storePiii+0xc0 (rt_fault.compute_80.ptx:39)
=========     by thread (64,0,0) in block (0,0,0)
=========     Address ADDR is out of bounds
=========     and is 0 bytes after the nearest allocation at ADDR of size 256 bytes
========= Leaked 256 bytes at ADDR
=========     Saved host backtrace up to driver entry point at cudaMalloc time
========= LEAK SUMMARY: 256 bytes leaked in 1 allocation
========= ERROR SUMMARY: 2 errors
R
        ok_($st == 99 && $out =~ /^PASS$/m && $rep eq $want,
            "--check all: $name (its deliberate fault, the buffer alive at cudaDeviceReset)",
            "status $st", $out, $err);
        next;
    }
    if ($name eq 'rt_errors') {
        # its oob kernel and assert are deliberate (memcheck), it resets the device with its
        # 256-byte buffer still allocated (leakcheck), and big_shared's threads 1-31 read s[0]
        # that thread 0 stored in the instruction before, without __syncwarp (racecheck)
        my $want = <<'R';
========= Error: Race reported between Write access at _Z10big_sharedPi+0x70 (rt_errors.compute_80.ptx:70)
=========     and Read access at _Z10big_sharedPi+0x80 (rt_errors.compute_80.ptx:71) [31 hazards]
========= Invalid __global__ write of size 4 bytes
=========     at _Z3oobPi+0x70 (rt_errors.compute_80.ptx:92)
=========     by thread (0,0,0) in block (0,0,0)
=========     Address ADDR is out of bounds
========= Leaked 256 bytes at ADDR
=========     Saved host backtrace up to driver entry point at cudaMalloc time
========= LEAK SUMMARY: 256 bytes leaked in 1 allocation
========= Device assertion failed
=========     at _Z12fails_asserti+0xe0 (rt_errors.compute_80.ptx:128)
=========     by thread (0,0,0) in block (0,0,0)
=========     fixtures/cuda/rt_errors.cu:31: void fails_assert(int): block: [0,0,0], thread: [0,0,0] Assertion `v == 42` failed.
========= ERROR SUMMARY: 4 errors
R
        ok_($st == 99 && $out =~ /^PASS$/m && $rep eq $want,
            "--check all: $name (its deliberate faults, a leak at cudaDeviceReset, an intra-warp race)",
            "status $st", $out, $err);
        next;
    }
    if (my $why = $deliberate{$name}) {
        # programs that test faults, stale handles or resets on purpose: their findings are
        # the point; they must still pass and the sanitizer must find something
        ok_($out =~ /^PASS$/m && $rep ne "========= ERROR SUMMARY: 0 errors\n",
            "--check all: $name reports its deliberate errors ($why)", "status $st", $out, $err);
        next;
    }
    if (my $todo = $known{$name}) {
        my $clean = $st == 0 && $out =~ /^PASS$/m
            && $rep eq "========= ERROR SUMMARY: 0 errors\n";
        $n++;
        print(($clean ? 'ok' : 'not ok'), " $n - --check all: $name runs clean # TODO $todo\n");
        next;
    }
    ok_($st == 0 && $out =~ /^PASS$/m && $rep eq "========= ERROR SUMMARY: 0 errors\n",
        "--check all: $name runs clean", "status $st", $out, $err);
}
