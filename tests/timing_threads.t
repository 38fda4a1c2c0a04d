#!/usr/bin/env perl
# tests/timing_threads.t - the SMs of timing mode on several host threads (issue 24 items 1
# and 4: --threads N with --timing): every cycle count and every statistic is the same for
# any thread count. The full --timing-stats JSON (every counter per kernel and per SM, the
# memory system's, the time series and the per-PTX-line counters) and the program's output
# (host-time lines of the statistics log aside) of --threads 2 and --threads 3 (more threads
# than the host's cores) are byte for byte those of --threads 1, which runs today's serial
# loop. Bench kernels on two presets (small grids; fma_loop and triad with twice as many CTAs
# as qv100 has SMs; histogram with global atomics) and fixtures/cuda programs: device printf (its order
# is the serial order), a fault, atomics, shared-memory reductions, textures, a cluster
# kernel (whose cycles run on one thread). xsm (fixtures/timing/xsm.ptx): CTAs on different SMs
# talking through global memory within a few cycles - every thread takes a ticket with a global atomic,
# thread 0 of CTA i polls a flag until CTA i-1 has set it, then sets its own - whose printed
# tickets and poll counts are the (cycle, SM, issue) order of those steps; run with and
# without --timing-stats (unprofiled, idle SMs sleep inside the parallel phases), comparing the
# statistics log too; xsm and histogram also on a100 and rtx3070 (other clock ratios between
# the core, the L2 and DRAM: the memory edges held back into the next phase differ).
use strict;
use warnings;
use File::Basename qw(dirname);
use Cwd qw(getcwd);
use File::Temp qw(tempdir);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(run_bounded strip_host slurp);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $root  = getcwd();
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $tmp   = tempdir(CLEANUP => 1);
my $ptx   = 'tests/bench/kernels_sm80.ptx';

# name => arguments (bench.list's, grids cut down so a run takes about a second)
my @kernels = (
    [fma_loop  => '--grid 160 --block 256 --arg buf:zero=1048576 --arg s32:16'],
    [triad     => '--grid 160 --block 256 --arg buf:zero=16777216 --arg buf:iota.f32=4194304 '
                . '--arg buf:iota.f32=4194304 --arg f32:3 --arg s32:4194304'],
    [reduce    => '--grid 4 --block 256 --arg buf:iota.f32=4194304 --arg buf:zero=1024 '
                . '--arg s32:65536'],
    [histogram => '--grid 8 --block 256 --arg buf:rand=16777216,7 --arg buf:zero=1024 '
                . '--arg s32:65536'],
    [bitonic   => '--grid 4 --block 1024 --arg buf:rand=262144,3'],
    [sgemm     => '--grid 2,2 --block 16,16 --arg buf:iota.f32=65536 --arg buf:iota.f32=65536 '
                . '--arg buf:zero=262144 --arg s32:256'],
);
my @presets  = qw(qv100 h100);
my @threads  = (2, 3);
my @programs = qw(printf rt_printf_order rt_fault warp_aggregate reduce_shared tm_tex
                  cluster_hist);
my @have = grep { -x "build/fixtures/$_" } @programs;


my $xsm = 'fixtures/timing/xsm.ptx';
# [name, PTX, kernel, arguments, profiled (--timing-stats)?, presets]
my $xsm_args = '--grid 160 --block 64 --arg buf:zero=40960 --arg buf:zero=4 --arg buf:zero=1024 '
             . '--print 0:u32 --print 2:u32:162';
my @xcases = map {
    ([xsm => $xsm, 'xsm', $xsm_args, $_, \@presets],
     [triad => $ptx, 'triad', $kernels[1][1], $_, \@presets],
     [histogram => $ptx, 'histogram', $kernels[3][1] . ' --print 1:u32', $_, \@presets])
} 1, 0;
# other clock ratios: DRAM faster than the core (a100: several DRAM edges per cycle), rtx3070
push @xcases, [xsm => $xsm, 'xsm', $xsm_args, 0, [qw(a100 rtx3070)]],
              [histogram => $ptx, 'histogram', $kernels[3][1] . ' --print 1:u32', 0, ['a100']];
my $nx = 0;
$nx += @{$_->[5]} for @xcases;

print '1..', @kernels * @presets + $nx + @have, "\n";
my $n = 0;
for my $p (@presets) {
    for my $k (@kernels) {
        my ($name, $args) = @$k;
        my (%json, %out);
        my @why;
        for my $t (1, @threads) {
            my $j = "$tmp/$name-$p-$t.json";
            my ($code, $out, $err, $to) = run_bounded(300, {},
                "$build/ptxemu exec $ptx --kernel $name $args --threads $t --timing=$p "
                . "--timing-stats $j");
            push @why, "threads=$t: exit $code" if $code || $to;
            $json{$t} = slurp($j);
            $out{$t} = strip_host($out) . strip_host($err);
        }
        push @why, 'no statistics' if $json{1} !~ /"gpu_sim_cycle": [1-9]/;
        for my $t (@threads) {
            push @why, "threads=$t: statistics differ" if $json{1} ne $json{$t};
            push @why, "threads=$t: output differs" if $out{1} ne $out{$t};
        }
        $n++;
        my ($cyc) = $json{1} =~ /"gpu_sim_cycle": (\d+)/;
        print((@why ? 'not ok' : 'ok'), " $n - $name on $p: identical statistics on 1, "
              . join(' and ', @threads) . ' threads (' . ($cyc // '?') . " cycles)\n");
        print map { "#   $_\n" } @why;
    }
}
for my $x (@xcases) {
    for my $p (@{$x->[5]}) {
        my ($name, $file, $kern, $args, $prof) = @$x;
        my (%json, %out);
        my @why;
        for my $t (1, @threads) {
            my $j = "$tmp/x-$name-$p-$t.json";
            my ($code, $out, $err, $to) = run_bounded(300, {},
                "$build/ptxemu exec $file --kernel $kern $args --threads $t --timing=$p"
                . ($prof ? " --timing-stats $j" : ''));
            push @why, "threads=$t: exit $code" if $code || $to;
            $json{$t} = $prof ? slurp($j) : '';
            $out{$t} = strip_host($out) . strip_host($err);
        }
        push @why, 'no statistics' if $out{1} !~ /^gpu_sim_cycle = [1-9]/m;
        push @why, 'no statistics JSON' if $prof && $json{1} !~ /"gpu_sim_cycle": [1-9]/;
        for my $t (@threads) {
            push @why, "threads=$t: statistics differ" if $json{1} ne $json{$t};
            push @why, "threads=$t: output differs" if $out{1} ne $out{$t};
        }
        $n++;
        my ($cyc) = $out{1} =~ /^gpu_sim_cycle = (\d+)/m;
        print((@why ? 'not ok' : 'ok'), " $n - $name on $p", ($prof ? ', profiled' : ''),
              ': identical output and statistics on 1, ' . join(' and ', @threads)
              . ' threads (' . ($cyc // '?') . " cycles)\n");
        print map { "#   $_\n" } @why;
    }
}
my $libdir = ($build =~ m{^/} ? $build : "$root/$build") . '/lib';
my $preload;  # an ASan libcudart under a program built without ASan
if ($build =~ /asan/) {
    chomp(my $so = `gcc -print-file-name=libasan.so`);
    $preload = $so if $so =~ m{/};
}
for my $prog (@have) {
    my (%json, %out);
    my @why;
    for my $t (1, @threads) {
        my $j = "$tmp/$prog-$t.json";
        my %e = (LD_LIBRARY_PATH => $libdir, PTXEMU_TIMING => 'h100', PTXEMU_THREADS => $t,
                 PTXEMU_TIMING_STATS => $j);
        $e{LD_PRELOAD} = $preload if $preload;
        my ($code, $out, $err, $to) = run_bounded(600, \%e, "build/fixtures/$prog");
        push @why, "threads=$t: exit $code" if $code || $to;
        $json{$t} = slurp($j);
        $out{$t} = "exit $code\n" . strip_host($out) . strip_host($err);
    }
    push @why, 'no statistics' if $json{1} !~ /"gpu_sim_cycle": [1-9]/;
    for my $t (@threads) {
        push @why, "threads=$t: statistics differ" if $json{1} ne $json{$t};
        push @why, "threads=$t: output differs" if $out{1} ne $out{$t};
    }
    $n++;
    my $nk = () = $json{1} =~ /"kernel_name"/g;
    print((@why ? 'not ok' : 'ok'), " $n - $prog: identical statistics and output on 1, "
          . join(' and ', @threads) . " threads ($nk kernels)\n");
    print map { "#   $_\n" } @why;
}
