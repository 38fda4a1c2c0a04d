#!/usr/bin/env perl
# tests/runtime.t - the `ptxemu` command and libcudart.so.13 beyond what
# tests/cuda_programs.t covers (it runs every fixtures/cuda/*.cu, including our
# rt_*.cu, and checks PASS):
#   - CLI usage errors (exit 2), --help/--version, exec --print/--dump/--stats
#     output formats on fixtures/ptx/sm_80/vecadd.ptx, traps (exit 1);
#   - `ptxemu run`: a program without libcudart.so.13 (static cudart) is refused
#     with the rebuild message; options reach the program as PTXEMU_*;
#   - CUDA builds that need special nvcc flags: -rdc (fixtures/cuda/rt_rdc/),
#     --compress-mode=speed (LZ4 PTX), SASS-only (the -gencode message),
#     -cudart static, and registration as PTXEMU_DEBUG_REG=1 prints it.
#   - scheduling: cooperative grids larger than the host threads (3 and 5 threads),
#     per-thread default streams of two host threads.
#   - CUDA arrays in a --default-stream per-thread build (the _ptds/_ptsz array copies);
#     the exact fault report of a surface store outside its surface (.trap).
# Executables go to $PTXEMU_BUILD/fixtures/rt/ (default build/).  nvcc parts skip
# without nvcc.  PTXEMU_TIMEOUT (seconds, default 300) bounds each program.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Path qw(make_path);
use File::Temp qw(tempfile tempdir);
use Cwd qw(getcwd);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(fail_diag);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $build  = $ENV{PTXEMU_BUILD} // 'build';
my $ptxemu = "$build/ptxemu";
my $lib    = "$build/lib";
# Programs that load an ASan-built libcudart.so.13 need the sanitizer runtime first.
my %asan;
if ($build =~ /asan/) {
    chomp(my $so = `gcc -print-file-name=libasan.so`);
    $asan{LD_PRELOAD} = $so if $so =~ m{/};
}
my $tmp    = tempdir(CLEANUP => 1);
my $n      = 0;

sub ok_ ($@) { # ($@): the condition in scalar context (a failed =~ is then false, not an empty list)
    my ($cond, $desc, @diag) = @_;
    $n++;
    print(($cond ? "ok" : "not ok") . " $n - $desc\n");
    fail_diag($n, $desc, 60, @diag) if !$cond;
    return $cond;
}

sub skip_ {
    my ($count, $why) = @_;
    for (1 .. $count) { $n++; print "ok $n # SKIP $why\n" }
}

# Run a command; returns (exit status, stdout, stderr).
sub run {
    my ($env, @argv) = @_;
    my (undef, $of) = tempfile(DIR => $tmp);
    my (undef, $ef) = tempfile(DIR => $tmp);
    my $pid = fork() // die "fork: $!";
    if ($pid == 0) {
        $ENV{$_} = $env->{$_} for keys %$env;
        open(STDIN, '<', '/dev/null');
        open(STDOUT, '>', $of) or die;
        open(STDERR, '>', $ef) or die;
        alarm($ENV{PTXEMU_TIMEOUT} // 300); # survives exec: a hung program ends with SIGALRM
        exec(@argv) or POSIX::_exit(127);
    }
    waitpid($pid, 0);
    my $st = $? & 127 ? 128 + ($? & 127) : $? >> 8;
    local $/;
    open(my $o, '<', $of) or die; my $out = <$o>;
    open(my $e, '<', $ef) or die; my $err = <$e>;
    return ($st, $out, $err);
}

if (!-x $ptxemu) {
    print "1..0 # SKIP $ptxemu not built\n";
    exit 0;
}

# ------------------------------------------------------------------ CLI basics
{
    my ($st, $out, $err) = run({}, $ptxemu);
    ok_($st == 2 && $err =~ /^ptxemu: missing command/ && $err =~ /usage: ptxemu COMMAND/,
        'no command: usage, exit 2', "status $st", $err);
    ($st, $out, $err) = run({}, $ptxemu, 'frobnicate');
    ok_($st == 2 && $err =~ /unknown command 'frobnicate'/, 'unknown command: exit 2', $err);
    ($st, $out) = run({}, $ptxemu, '--help');
    ok_($st == 0 && $out =~ /^usage: ptxemu COMMAND/ && $out =~ /buf:rand=SIZE,SEED/,
        '--help on stdout, exit 0');
    ($st, $out) = run({}, $ptxemu, '--version');
    ok_($st == 0 && $out =~ /^ptxemu \d+\.\d+\.\d+ /, '--version');
    my $v = 'fixtures/ptx/sm_80/vecadd.ptx';
    my @bad = (
        [[qw(exec), $v, qw(--grid 1 --block 1)], qr/takes 4 parameters \(8 bytes, 8 bytes, 8 bytes, 4 bytes\), 0 --arg given/, 'wrong argument count'],
        [[qw(exec), $v, qw(--grid 0 --block 1)], qr/--grid: expected X\[,Y,Z\]/, 'zero grid'],
        [['exec', $v, '--grid', '1,2,3,4', '--block', '1'], qr/--grid: expected/, 'four grid dims'],
        [[qw(exec), $v, qw(--block 1)], qr/exec needs --grid and --block/, 'missing --grid'],
        [[qw(exec), $v, qw(--grid 1 --block 1 --arg u33:1)], qr/--arg u33:1: expected TYPE:VALUE/, 'bad scalar type'],
        [[qw(exec), $v, qw(--grid 1 --block 1 --arg u8:256)], qr/bad u8 value '256'/, 'scalar out of range'],
        [[qw(exec), $v, qw(--grid 1 --block 1 --arg buf:zero=x)], qr/malformed buffer spec/, 'bad buffer spec'],
        [[qw(exec), $v, qw(--grid 1 --block 1 --print 0)], qr/--print: expected INDEX:TYPE/, 'bad --print'],
        [[qw(exec), $v, qw(--grid 1 --block 1 --dump 0)], qr/--dump: expected INDEX=PATH/, 'bad --dump'],
        [[qw(exec), $v, qw(--grid 1 --block 1 --trace everything)], qr/--trace: expected insn, regs or mem/, 'bad --trace'],
        [[qw(exec), $v, qw(--grid 1 --block 1 --device sm=9000)], qr/--device: unknown device setting/, 'bad --device'],
        [[qw(run)], qr/run needs a program/, 'run without a program'],
        [[qw(run --bogus -- /bin/true)], qr/run: unknown option '--bogus'/, 'run with a bad option'],
    );
    for my $b (@bad) {
        my ($args, $re, $desc) = @$b;
        my ($s, undef, $e) = run({}, $ptxemu, @$args);
        ok_($s == 2 && $e =~ $re, "usage error, exit 2: $desc", "status $s", $e);
    }
}

# ------------------------------------------------------ exec end to end (PTX)
{
    my $v = 'fixtures/ptx/sm_80/vecadd.ptx';
    my ($st, $out, $err) = run({}, $ptxemu, 'exec', $v, '--kernel', '_Z6vecaddPKfS0_Pfi',
        '--grid', '3', '--block', '4', '--arg', 'buf:f32=1,2,3,4,5,6,7,8,0.5',
        '--arg', 'buf:iota.f32=9', '--arg', 'buf:zero=36', '--arg', 's32:9',
        '--print', '2:f32', '--stats', '--dump', "2=$tmp/c.bin");
    ok_($st == 0 && $out eq join('', map { "$_\n" } 1, 3, 5, 7, 9, 11, 13, 15, 8.5),
        'exec vecadd: --print 2:f32 gives a+b one per line', "status $st", $out, $err);
    ok_(scalar($err =~ /^kernel _Z6vecaddPKfS0_Pfi grid \(3,1,1\) block \(4,1,1\): (\d+) warp instructions, (\d+) thread instructions, [0-9.]+ s$/m)
        && $1 > 0 && $2 >= $1, 'exec --stats line', $err);
    ok_(scalar($err =~ /^kernel _Z6vecaddPKfS0_Pfi: host threads (\d+), CPU [0-9.]+ s \(busiest [0-9.]+ s\), CTAs per thread (\d+)-(\d+), started within [0-9.]+ s, finished within [0-9.]+ s$/m)
        && $1 >= 1 && $1 <= 3 && $2 <= $3 && $3 <= 3 && $3 * $1 >= 3, 'exec --stats load-balance line', $err);
    # deterministic assignment over two host threads: thread 0 runs CTAs 0 and 2, thread 1 CTA 1
    my ($st2, $out2, $err2) = run({}, $ptxemu, 'exec', $v, '--kernel', '_Z6vecaddPKfS0_Pfi',
        '--grid', '3', '--block', '4', '--arg', 'buf:f32=1,2,3,4,5,6,7,8,0.5',
        '--arg', 'buf:iota.f32=9', '--arg', 'buf:zero=36', '--arg', 's32:9',
        '--print', '2:f32', '--stats', '--threads', '2', '--deterministic');
    ok_($st2 == 0 && $out2 eq $out
        && $err2 =~ /^kernel _Z6vecaddPKfS0_Pfi: host threads 2, CPU [0-9.]+ s \(busiest [0-9.]+ s\), CTAs per thread 1-2, started within [0-9.]+ s, finished within [0-9.]+ s$/m,
        'exec --threads 2 --deterministic: two host threads, CTAs 1-2 per thread', "status $st2", $err2);
    # --repeat: three launches on the same buffers, a --stats pair per launch, same result
    my ($st3, $out3, $err3) = run({}, $ptxemu, 'exec', $v, '--kernel', '_Z6vecaddPKfS0_Pfi',
        '--grid', '3', '--block', '4', '--arg', 'buf:f32=1,2,3,4,5,6,7,8,0.5',
        '--arg', 'buf:iota.f32=9', '--arg', 'buf:zero=36', '--arg', 's32:9',
        '--print', '2:f32', '--stats', '--repeat', '3', '--threads', '2');
    my @launches = $err3 =~ /^kernel _Z6vecaddPKfS0_Pfi grid \(3,1,1\) block \(4,1,1\): (\d+) warp instructions/mg;
    my @balance = $err3 =~ /^kernel _Z6vecaddPKfS0_Pfi: host threads 2, /mg;
    ok_($st3 == 0 && $out3 eq $out && @launches == 3 && @balance == 3
        && $launches[0] == $launches[2],
        'exec --repeat 3: three launches, each with its --stats lines, same output', "status $st3", $err3);
    ($st3, $out3, $err3) = run({}, $ptxemu, 'exec', $v, '--grid', '1', '--block', '1', '--repeat', '0');
    ok_($st3 == 2 && $err3 =~ /--repeat: expected a launch count from 1 to 1000000, not '0'/,
        'exec --repeat 0: usage error', "status $st3", $err3);
    my $bytes = '';
    if (open(my $fh, '<:raw', "$tmp/c.bin")) { local $/; $bytes = <$fh> }
    ok_(length($bytes) == 36 && $bytes eq pack('f<*', 1, 3, 5, 7, 9, 11, 13, 15, 8.5),
        'exec --dump writes the raw buffer');
    ($st, $out, $err) = run({}, $ptxemu, 'exec', $v, '--grid', '1', '--block', '3',
        '--arg', 'buf:rand=12,42', '--arg', 'buf:zero=12', '--arg', 'buf:zero=12',
        '--arg', 's32:3', '--print', '0:u32');
    ok_($st == 0 && $out eq "803958421\n3184996902\n2993090819\n",
        'buf:rand is splitmix64, one kernel inferred', "status $st", $out, $err);
    ($st, $out, $err) = run({}, $ptxemu, 'exec', $v, '--grid', '1', '--block', '32',
        '--arg', 'buf:zero=16', '--arg', 'buf:zero=16', '--arg', 'buf:zero=16',
        '--arg', 's32:32');
    ok_($st == 1 && $err =~ /_Z6vecaddPKfS0_Pfi/, 'out-of-bounds kernel: report, exit 1',
        "status $st", $err);
}

# ----------------------------------------------------------------- ptxemu run
{
    my ($st, $out, $err) = run({%asan}, $ptxemu, 'run', '--', '/bin/true');
    ok_($st == 1 && $err =~ /does not load libcudart\.so\.13: it was linked with the static CUDA runtime .*rebuild it with `nvcc -cudart shared`/,
        'run: program without libcudart.so.13 refused', "status $st", $err);
    ($st, $out, $err) = run({%asan}, $ptxemu, 'run', '--', 'no-such-program-xyz');
    ok_($st == 1 && $err =~ /no-such-program-xyz: no such executable/, 'run: missing program');
}

# ------------------------------------- cudaDeviceProp layout, every cudaDeviceAttr (gcc)
# A C program compiled against CUDA 13's headers (no nvcc needed) and linked with our
# library: the header's offsets are CUDA 13's; cudaGetDeviceProperties writes exactly 1,008
# bytes with the emulated H100's values at CUDA 13's byte offsets; every cudaDevAttr
# enumerator of driver_types.h succeeds and agrees with the properties.
{
    my $inc = $ENV{CUDA_INCLUDE} // '/usr/local/cuda/include';
    my $cc = $ENV{CC} // 'gcc';
    if (!-f "$inc/driver_types.h" || system("$cc --version >/dev/null 2>&1") != 0) {
        skip_(3, "no C compiler or CUDA headers at $inc");
    } else {
        open(my $dt, '<', "$inc/driver_types.h") or die;
        my (%attr, $in_enum);
        while (<$dt>) {
            $in_enum = 1 if /^\s*enum\s+__device_builtin__\s+cudaDeviceAttr\b/;
            next unless $in_enum;
            $attr{$1} = $2 if /^\s*(cudaDevAttr\w+)\s*=\s*(\d+)/;
            last if /^\s*};/;
        }
        close $dt;
        my @names = sort { $attr{$a} <=> $attr{$b} || $a cmp $b } keys %attr;
        my $list = join('', map { "    {\"$_\", $_},\n" } @names);
        my $src = <<"C";
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
static const struct { const char *name; enum cudaDeviceAttr a; } attrs[] = {
$list};
#define OFF(f) printf("offset %s %zu\\n", #f, offsetof(struct cudaDeviceProp, f))
static int i32(const unsigned char *b, size_t o) { int v; memcpy(&v, b + o, 4); return v; }
static size_t u64(const unsigned char *b, size_t o) { size_t v; memcpy(&v, b + o, 8); return v; }
int main(void)
{
    printf("sizeof %zu\\n", sizeof(struct cudaDeviceProp));
    OFF(uuid); OFF(totalGlobalMem); OFF(sharedMemPerBlock); OFF(warpSize); OFF(maxThreadsDim);
    OFF(major); OFF(multiProcessorCount); OFF(l2CacheSize); OFF(maxThreadsPerMultiProcessor);
    OFF(sharedMemPerBlockOptin); OFF(maxBlocksPerMultiProcessor); OFF(clusterLaunch);
    OFF(reserved);
    unsigned char buf[1100];
    memset(buf, 0xa5, sizeof buf);
    if (cudaGetDeviceProperties((struct cudaDeviceProp *)buf, 0) != cudaSuccess) return 1;
    size_t tail = 0;
    for (size_t i = 1008; i < sizeof buf; i++) tail += buf[i] != 0xa5;
    printf("bytes written past 1008: %zu\\n", tail);
    printf("name %s\\n", (const char *)buf);
    printf("cc %d.%d sms %d warp %d threads/block %d threads/sm %d blocks/sm %d\\n",
           i32(buf, 360), i32(buf, 364), i32(buf, 384), i32(buf, 308), i32(buf, 320),
           i32(buf, 604), i32(buf, 688));
    printf("shared/block %zu optin %zu shared/sm %zu regs/sm %d l2 %d gmem %zu\\n",
           u64(buf, 296), u64(buf, 672), u64(buf, 624), i32(buf, 632), i32(buf, 596),
           u64(buf, 288));
    void *big = NULL;
    size_t fr = 0, tot = 0;
    cudaMemGetInfo(&fr, &tot);
    printf("memgetinfo total %zu\\n", tot);
    printf("pinned 1 TiB: %s\\n", cudaGetErrorName(cudaMallocHost(&big, (size_t)1 << 40)));
    printf("device total + 1: %s\\n", cudaGetErrorName(cudaMalloc(&big, u64(buf, 288) + 1)));
    const struct cudaDeviceProp *p = (const struct cudaDeviceProp *)buf;
    int bad = 0, v;
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
        cudaError_t e = cudaDeviceGetAttribute(&v, attrs[i].a, 0);
        if (e != cudaSuccess) { printf("attribute %s: %s\\n", attrs[i].name, cudaGetErrorName(e)); bad++; }
    }
    printf("attributes %zu, failing %d\\n", sizeof attrs / sizeof attrs[0], bad);
#define SAME(a, f) do { cudaDeviceGetAttribute(&v, a, 0); if (v != (int)p->f) printf("%s %d != %s %d\\n", #a, v, #f, (int)p->f); } while (0)
    SAME(cudaDevAttrMultiProcessorCount, multiProcessorCount);
    SAME(cudaDevAttrMaxSharedMemoryPerBlockOptin, sharedMemPerBlockOptin);
    SAME(cudaDevAttrWarpSize, warpSize);
    SAME(cudaDevAttrComputeCapabilityMajor, major);
    SAME(cudaDevAttrMaxThreadsPerMultiProcessor, maxThreadsPerMultiProcessor);
    SAME(cudaDevAttrL2CacheSize, l2CacheSize);
    SAME(cudaDevAttrMaxBlocksPerMultiprocessor, maxBlocksPerMultiProcessor);
    SAME(cudaDevAttrMaxGridDimY, maxGridSize[1]);
    printf("bad attribute: %s\\n", cudaGetErrorName(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)100000, 0)));
    printf("bad device: %s\\n", cudaGetErrorName(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 1)));
    printf("null value: %s\\n", cudaGetErrorName(cudaDeviceGetAttribute(NULL, cudaDevAttrWarpSize, 0)));
    return 0;
}
C
        open(my $fh, '>', "$tmp/props.c") or die;
        print $fh $src;
        close $fh;
        my $libabs = $lib =~ m{^/} ? $lib : getcwd() . "/$lib";
        my ($st, $out, $err) = run({}, $cc, '-std=c11', '-I', $inc, '-o', "$tmp/props", "$tmp/props.c",
            "$libabs/libcudart.so.13");
        ($st, $out, $err) = run({ %asan, LD_LIBRARY_PATH => $libabs }, "$tmp/props") if $st == 0;
        my $offsets = join('', map { "offset $_\n" } 'uuid 256', 'totalGlobalMem 288',
            'sharedMemPerBlock 296', 'warpSize 308', 'maxThreadsDim 324', 'major 360',
            'multiProcessorCount 384', 'l2CacheSize 596', 'maxThreadsPerMultiProcessor 604',
            'sharedMemPerBlockOptin 672', 'maxBlocksPerMultiProcessor 688', 'clusterLaunch 748',
            'reserved 784');
        ok_($st == 0 && $out =~ /\Asizeof 1008\n\Q$offsets\E/,
            'cudaDeviceProp: CUDA 13 header layout (1,008 bytes, field offsets)', "status $st", $out, $err);
        # a preset's global memory, capped to what the host can back (rt_device_fit_host)
        chomp(my $pages = `getconf _PHYS_PAGES`);
        chomp(my $psz = `getconf PAGESIZE`);
        my $host = $pages * $psz;
        my $cap = sub { my ($g, $lim) = @_; $lim = $host if !defined $lim || $host < $lim;
                        return $g < $lim ? $g : $lim - $lim % (1 << 20) };
        my $gh = $cap->(85899345920);
        ok_(!!($st == 0 && $out =~ /^bytes written past 1008: 0\n/m
            && $out =~ /^cc 9\.0 sms 132 warp 32 threads\/block 1024 threads\/sm 2048 blocks\/sm 32$/m
            && $out =~ /^shared\/block 49152 optin 232448 shared\/sm 233472 regs\/sm 65536 l2 52428800 gmem $gh$/m),
            'cudaGetDeviceProperties: H100 values at CUDA 13 byte offsets, nothing past 1,008 bytes',
            $out, $err);
        # the Blackwell presets: per-SM limits of compute capability 10.0 and 12.0
        my ($sb, $ob) = run({ %asan, LD_LIBRARY_PATH => $libabs, PTXEMU_DEVICE => 'b200' }, "$tmp/props");
        ok_(!!($sb == 0 && $ob =~ /^name ptxemu B200 \(sm_100\)\ncc 10\.0 sms 148 warp 32 threads\/block 1024 threads\/sm 2048 blocks\/sm 32$/m
            && $ob =~ /^shared\/block 49152 optin 232448 shared\/sm 233472 regs\/sm 65536 l2 132120576 gmem ${\ $cap->(193273528320)}$/m),
            'PTXEMU_DEVICE=b200: sm_100 device properties', $ob);
        my ($sr, $or) = run({ %asan, LD_LIBRARY_PATH => $libabs, PTXEMU_DEVICE => 'rtx5090' }, "$tmp/props");
        ok_(!!($sr == 0 && $or =~ /^name ptxemu RTX 5090 \(sm_120\)\ncc 12\.0 sms 170 warp 32 threads\/block 1024 threads\/sm 1536 blocks\/sm 24$/m
            && $or =~ /^shared\/block 49152 optin 101376 shared\/sm 102400 regs\/sm 65536 l2 100663296 gmem ${\ $cap->(34359738368)}$/m),
            'PTXEMU_DEVICE=rtx5090: sm_120 device properties', $or);
        # memory limits: global memory what the host can back (also under ulimit -v, where the
        # device is still created), an explicit mem= as given; pinned memory beyond the host
        # and device memory beyond the total refused
        ok_(!!($st == 0 && $out =~ /^memgetinfo total $gh\npinned 1 TiB: cudaErrorMemoryAllocation\ndevice total \+ 1: cudaErrorMemoryAllocation$/m),
            "global memory capped to the host's $host bytes; 1 TiB pinned and total + 1 refused", $out, $err);
        my ($sm, $om) = run({ %asan, LD_LIBRARY_PATH => $libabs, PTXEMU_DEVICE => 'h100,mem=2G' }, "$tmp/props");
        ok_(!!($sm == 0 && $om =~ /gmem 2147483648$/m && $om =~ /^memgetinfo total 2147483648$/m),
            'PTXEMU_DEVICE=h100,mem=2G: 2 GiB of global memory', $om);
        if (%asan) {
            skip_(1, 'ulimit -v: the ASan runtime reserves more address space than any limit');
        } else {
            my ($su, $ou, $eu) = run({ LD_LIBRARY_PATH => $libabs }, 'sh', '-c',
                                     "ulimit -v 6000000 && exec $tmp/props");
            my $gu = $cap->(85899345920, 6000000 * 1024);
            ok_(!!($su == 0 && $ou =~ /gmem $gu$/m && $ou =~ /^memgetinfo total $gu$/m),
                "ulimit -v 6000000: the device is created, global memory $gu bytes", "status $su", $ou, $eu);
        }
        my $nattr = scalar @names;
        ok_($st == 0 && $nattr > 100 && $out =~ /^attributes $nattr, failing 0\nbad attribute: cudaErrorInvalidValue\nbad device: cudaErrorInvalidDevice\nnull value: cudaErrorInvalidValue\n\z/m,
            "cudaDeviceGetAttribute: all $nattr cudaDevAttr values succeed and agree with the properties",
            $out, $err);
    }
}

# ------------------------------------------------------------- nvcc programs
my $nvcc = $ENV{NVCC};
if (!$nvcc) {
    for my $d (split(/:/, $ENV{PATH} // ''), '/usr/local/cuda/bin') {
        if (-x "$d/nvcc") { $nvcc = "$d/nvcc"; last }
    }
}
my $nvcc_tests = 15;
if (!$nvcc) {
    skip_($nvcc_tests, 'nvcc not found');
    print "1..$n\n";
    exit 0;
}
my $fx = "$build/fixtures/rt";
make_path($fx);

# Build unless up to date; returns an error string or ''.
sub nvcc_build {
    my ($exe, $srcs, @flags) = @_;
    my $stale = !-x $exe;
    for my $s (@$srcs) { $stale ||= -M $exe > -M $s }
    return '' unless $stale;
    my ($st, $out, $err) = run({}, $nvcc, @flags, '-o', $exe, @$srcs);
    return $st ? "nvcc failed: $err" : '';
}

my %env = (%asan, LD_LIBRARY_PATH => $lib);
my @c80 = ('-gencode', 'arch=compute_80,code=compute_80');
{
    my $exe = "$fx/rdc";
    my $e = nvcc_build($exe, ['fixtures/cuda/rt_rdc/main.cu', 'fixtures/cuda/rt_rdc/lib.cu'],
        '-rdc=true', '-cudart', 'shared', @c80);
    my ($st, $out, $err) = $e ? (-1, '', $e) : run(\%env, $exe);
    ok_($st == 0 && $out =~ /^PASS$/m, '-rdc program (version-2 wrapper, linked modules)', "status $st", $out, $err);

    $exe = "$fx/vecadd_lz4";
    $e = nvcc_build($exe, ['fixtures/cuda/vecadd.cu'], '--compress-mode=speed', '-cudart', 'shared', @c80);
    ($st, $out, $err) = $e ? (-1, '', $e) : run(\%env, $exe);
    ok_($st == 0 && $out =~ /^PASS$/m, 'LZ4-compressed PTX (--compress-mode=speed)', "status $st", $out, $err);

    ($st, $out, $err) = $e ? (-1, '', $e) : run({}, $ptxemu, 'fatbin', $exe);
    ok_($st == 0 && $out =~ /PTX compute_80 flags 0x2011 .* lz4 \d+->\d+/, 'ptxemu fatbin lists the LZ4 PTX entry', $out, $err);

    $exe = "$fx/vecadd_sass";
    $e = nvcc_build($exe, ['fixtures/cuda/vecadd.cu'], '-cudart', 'shared', '-gencode', 'arch=compute_80,code=sm_80');
    ($st, $out, $err) = $e ? (-1, '', $e) : run(\%env, $exe);
    ok_(scalar($err =~ /holds only SASS \(sm_80\) and no PTX; ptxemu runs PTX: rebuild with -gencode arch=compute_80,code=compute_80/),
        'SASS-only binary: message names the -gencode flag', $err);

    $exe = "$fx/vecadd_static";
    $e = nvcc_build($exe, ['fixtures/cuda/vecadd.cu'], @c80);
    ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--', $exe);
    ok_($st == 1 && $err =~ /linked with the static CUDA runtime.*nvcc -cudart shared/,
        'statically linked binary: rebuild message', "status $st", $err);

    $exe = "$fx/vecadd_shared";
    $e = nvcc_build($exe, ['fixtures/cuda/vecadd.cu'], '-cudart', 'shared', @c80);
    ($st, $out, $err) = $e ? (-1, '', $e) : run({ PTXEMU_DEBUG_REG => 1, %env }, $exe);
    ok_(scalar($err =~ /register fatbin wrapper 0x[0-9a-f]+ version 1/) && $err =~ /PTX compute_80 flags 0x8011 size \d+ isa [0-9.]+ zstd/
        && $err =~ /register function _Z6vecaddPKfS0_Pfi stub 0x/,
        'PTXEMU_DEBUG_REG=1 shows the fat binary and the kernel', $err);

    ($st, $out, $err) = $e ? (-1, '', $e) : run({%asan}, $ptxemu, 'run', '--stats', '--threads', '1', '--', $exe);
    ok_($st == 0 && $out =~ /^PASS$/m, 'ptxemu run: PASS', "status $st", $out, $err);
    ok_(scalar($err =~ /^kernel _Z6vecaddPKfS0_Pfi grid \(\d+,1,1\) block \(\d+,1,1\): \d+ warp instructions, \d+ thread instructions, [0-9.]+ s$/m),
        'ptxemu run --stats: per-kernel line', $err);

    ($st, $out, $err) = $e ? (-1, '', $e) : run({ %env, PTXEMU_DEVICE => 't4' }, $exe);
    ok_(scalar($err =~ /PTX targets compute_80, newer than the emulated device \(sm_75\)/),
        'device older than the PTX: explained', $err);

    # nvcc --default-stream per-thread: the program calls the _ptsz/_ptds entry points
    $exe = "$fx/events_ptsz";
    $e = nvcc_build($exe, ['fixtures/cuda/rt_events.cu'], '--default-stream', 'per-thread',
        '-cudart', 'shared', @c80);
    my $imports = $e ? '' : `nm -D --undefined-only $exe 2>/dev/null`;
    ok_(!$e && $imports =~ /\b__cudaLaunchKernel_ptsz\b/ && $imports =~ /\bcudaMemcpyAsync_ptsz\b/
        && $imports =~ /\bcudaStreamSynchronize_ptsz\b/,
        '--default-stream per-thread build imports the _ptsz entry points', $e, $imports);
    ($st, $out, $err) = $e ? (-1, '', $e) : run(\%env, $exe);
    ok_($st == 0 && $out =~ /^PASS$/m, 'per-thread default stream program (_ptsz/_ptds): PASS',
        "status $st", $out, $err);

    # a cooperative grid larger than the host threads: each thread holds many resident CTAs,
    # all of which must run before any passes grid.sync() (3 and 5 threads: uneven shares; 1
    # thread: 264 CTAs and the device's whole co-resident capacity on one host thread, which
    # hung when a host thread held at most 64), and one CTA more is refused
    $exe = "$fx/coop";
    $e = nvcc_build($exe, ['fixtures/cuda/rt_coop.cu'], '-cudart', 'shared', @c80);
    my $coop_ok = !$e;
    for my $t (1, 3, 5) {
        ($st, $out, $err) = $e ? (-1, '', $e) : run({ %env, PTXEMU_THREADS => $t }, $exe);
        $coop_ok &&= $st == 0 && $out =~ /^PASS$/m;
    }
    ok_($coop_ok, 'cooperative grids of 8, 96, 264 CTAs and the device\'s capacity on 1, 3 and 5 host threads: PASS; capacity + 1 refused',
        "status $st", $out, $err);

    # CTAs that wait on each other through global memory (last-block reduction, a chained scan
    # spinning on volatile flags) on more host threads than cores: a spinning CTA's thread
    # yields, so the CTA it waits for gets a core (the time is a benchmark: README of tests/bench)
    $exe = "$fx/fence";
    $e = nvcc_build($exe, ['fixtures/cuda/rt_fence.cu'], '-Ifixtures/cuda', '-cudart', 'shared', @c80);
    my $fence_ok = !$e;
    for my $t (1, 3, 5) {
        ($st, $out, $err) = $e ? (-1, '', $e) : run({ %env, PTXEMU_THREADS => $t }, $exe);
        $fence_ok &&= $st == 0 && $out =~ /^PASS$/m;
    }
    ok_($fence_ok, 'CTAs spinning on other CTAs\' flags on 1, 3 and 5 host threads: PASS',
        "status $st", $out, $err);

    # the same build mode with two host threads: stream 0 is each thread's own stream, so their
    # kernels run concurrently (rt_ptds handshakes between them)
    $exe = "$fx/ptds_ptsz";
    $e = nvcc_build($exe, ['fixtures/cuda/rt_ptds.cu'], '--default-stream', 'per-thread',
        '-cudart', 'shared', @c80);
    $imports = $e ? '' : `nm -D --undefined-only $exe 2>/dev/null`;
    ok_(!$e && $imports =~ /\b__cudaLaunchKernel_ptsz\b/ && $imports =~ /\bcudaStreamQuery_ptsz\b/,
        'rt_ptds per-thread build imports the _ptsz entry points', $e, $imports);
    ($st, $out, $err) = $e ? (-1, '', $e) : run(\%env, $exe);
    ok_($st == 0 && $out =~ /^PASS$/m,
        'per-thread default streams of two host threads run concurrently (stream 0, _ptsz): PASS',
        "status $st", $out, $err);

    # CUDA arrays through the _ptds / _ptsz entry points (cudaMemcpy2DToArray_ptds, …)
    $exe = "$fx/arrays_ptsz";
    $e = nvcc_build($exe, ['fixtures/cuda/rt_arrays.cu'], '-Ifixtures/cuda', '--default-stream',
        'per-thread', '-cudart', 'shared', @c80);
    $imports = $e ? '' : `nm -D --undefined-only $exe 2>/dev/null`;
    ($st, $out, $err) = $e ? (-1, '', $e) : run(\%env, $exe);
    ok_($st == 0 && $out =~ /^PASS$/m && $imports =~ /\bcudaMemcpy2DToArray_ptds\b/ &&
        $imports =~ /\bcudaMemcpy2DFromArrayAsync_ptsz\b/,
        'CUDA arrays in a per-thread default stream build (_ptds/_ptsz array copies): PASS',
        "status $st", $out, $err, $imports);

    # a surface store outside the surface (.trap) is a fault report like any other
    $exe = "$fx/rt_surf_fault";  # the report names its PTX after the program
    $e = nvcc_build($exe, ['fixtures/cuda/rt_surf_fault.cu'], '-Ifixtures/cuda', '-cudart',
        'shared', @c80);
    ($st, $out, $err) = $e ? (-1, '', $e) : run(\%env, $exe);
    my $want = join('', map { "=========$_\n" }
        ' Invalid __global__ write of size 4 bytes',
        '     at _Z10edge_storeyi+0xb0 (rt_surf_fault.compute_80.ptx:36)',
        '     by thread (3,0,0) in block (1,0,0)',
        '     Address ADDR is out of bounds',
        '     surface coordinate (x=28 bytes, y=2, z=0) is outside the 7x3x1 surface of '
            . '4-byte elements (.trap)');
    (my $got = $err) =~ s/Address 0x[0-9a-f]+ is/Address ADDR is/;
    ok_($st == 0 && $out =~ /^PASS$/m && $got eq $want,
        'surface store outside the surface (.trap): the exact fault report, sticky error',
        "status $st", $out, "stderr:", $err, "want:", $want);

    # a multisample fetch (tex.2dms) loads, and faults when run: CUDA makes no multisample
    # texture, so the handle is never one
    $exe = "$fx/rt_tex_ms";
    $e = nvcc_build($exe, ['fixtures/cuda/rt_tex_ms.cu'], '-Ifixtures/cuda', '-cudart', 'shared',
        @c80);
    ($st, $out, $err) = $e ? (-1, '', $e) : run(\%env, $exe);
    $want = join('', map { "=========$_\n" }
        ' Illegal instruction',
        '     at _Z6sampleyPf+0x50 (rt_tex_ms.compute_80.ptx:56)',
        '     by thread (0,0,0) in block (0,0,0)',
        '     tex.2dms reads a sample of a multisample texture, and texture object HANDLE is not '
            . 'one (no CUDA API creates a multisample array or texture; the ISA defines no result '
            . 'for other textures)');
    ($got = $err) =~ s/texture object 0x[0-9a-f]+ is/texture object HANDLE is/;
    ok_($st == 0 && $out =~ /^PASS$/m && $got eq $want,
        'tex.2dms: the module loads (its other kernel runs), the fetch faults with the reason, sticky error',
        "status $st", $out, "stderr:", $err, "want:", $want);
}

print "1..$n\n";
