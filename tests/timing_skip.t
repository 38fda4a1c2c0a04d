#!/usr/bin/env perl
# tests/timing_skip.t - quiet SMs and an empty memory system skip cycles (issue 24 item 1:
# -ptxemu_idle_skip 1, the default) with every cycle count and every statistic unchanged: the
# full --timing-stats JSON (every counter per kernel and per SM, the memory system's, the
# DRAM channels' NOP/command counts) is byte for byte the one of -ptxemu_idle_skip 0 (every
# busy SM and the memory system stepped every cycle), for bench kernels on three presets
# (small grids) and for fixtures/cuda programs (clusters, barriers, independent thread
# scheduling, atomics, events; h100 preset). rt_concurrent is not among them: its kernels
# come from host threads, so its statistics differ run to run with or without skipping.
use strict;
use warnings;
use File::Basename qw(dirname);
use Cwd qw(getcwd);
use File::Temp qw(tempdir);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(run_bounded);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $root  = getcwd();
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $tmp   = tempdir(CLEANUP => 1);
my $ptx   = 'tests/bench/kernels_sm80.ptx';

# name => arguments (bench.list's, grids cut down so a run takes well under a second)
my @kernels = (
    [fma_loop  => '--grid 40 --block 256 --arg buf:zero=1048576 --arg s32:64'],
    [triad     => '--grid 96 --block 256 --arg buf:zero=16777216 --arg buf:iota.f32=4194304 '
                . '--arg buf:iota.f32=4194304 --arg f32:3 --arg s32:4194304'],
    [reduce    => '--grid 4 --block 256 --arg buf:iota.f32=4194304 --arg buf:zero=1024 '
                . '--arg s32:65536'],
    [histogram => '--grid 4 --block 256 --arg buf:rand=16777216,7 --arg buf:zero=1024 '
                . '--arg s32:65536'],
    [bitonic   => '--grid 4 --block 1024 --arg buf:rand=262144,3'],
    [sgemm     => '--grid 2,2 --block 16,16 --arg buf:iota.f32=65536 --arg buf:iota.f32=65536 '
                . '--arg buf:zero=262144 --arg s32:256'],
);
my @presets  = qw(qv100 rtx3070 h100);
my @programs = qw(divergent_loop its_sched cluster_reduce reduce_shared atomics matmul_tiled rt_events tm_tex);
my @have = grep { -x "build/fixtures/$_" } @programs;

sub slurp { open my $f, '<', $_[0] or return ''; local $/; my $s = <$f>; return $s; }

print '1..', @kernels * @presets + @have, "\n";
my $n = 0;
for my $p (@presets) {
    for my $k (@kernels) {
        my ($name, $args) = @$k;
        my %json;
        my @why;
        for my $skip (0, 1) {
            my $j = "$tmp/$name-$p-$skip.json";
            my ($code, $out, $err, $to) = run_bounded(300, {},
                "$build/ptxemu exec $ptx --kernel $name $args --threads 1 --timing=$p "
                . "--timing-set ptxemu_idle_skip=$skip --timing-stats $j");
            push @why, "skip=$skip: exit $code" if $code || $to;
            $json{$skip} = slurp($j);
        }
        push @why, 'no statistics' if $json{0} !~ /"gpu_sim_cycle": [1-9]/;
        push @why, 'statistics differ' if $json{0} ne $json{1};
        $n++;
        my ($cyc) = $json{1} =~ /"gpu_sim_cycle": (\d+)/;
        print((@why ? 'not ok' : 'ok'), " $n - $name on $p: identical statistics with and "
              . "without idle skipping (" . ($cyc // '?') . " cycles)\n");
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
    my %json;
    my @why;
    for my $skip (0, 1) {
        my $j = "$tmp/$prog-$skip.json";
        my %e = (LD_LIBRARY_PATH => $libdir, PTXEMU_TIMING => 'h100',
                 PTXEMU_TIMING_SET => "ptxemu_idle_skip=$skip", PTXEMU_TIMING_STATS => $j);
        $e{LD_PRELOAD} = $preload if $preload;
        my ($code, $out, $err, $to) = run_bounded(600, \%e, "build/fixtures/$prog");
        push @why, "skip=$skip: exit $code" if $code || $to;
        $json{$skip} = slurp($j);
    }
    push @why, 'no statistics' if $json{0} !~ /"gpu_sim_cycle": [1-9]/;
    push @why, 'statistics differ' if $json{0} ne $json{1};
    $n++;
    my $nk = () = $json{1} =~ /"kernel_name"/g;
    print((@why ? 'not ok' : 'ok'), " $n - $prog: identical statistics with and without idle "
          . "skipping ($nk kernels)\n");
    print map { "#   $_\n" } @why;
}
