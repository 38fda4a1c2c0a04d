#!/usr/bin/env perl
# tests/timing_programs.t - every fixtures/cuda program still prints PASS (and exits 0) in
# timing mode (PTXEMU_TIMING=1: the h100 preset, every warp instruction issued by the cycle
# model and executed by the engine at that cycle), and prints GPGPU-Sim's per-kernel
# statistics. The executables are cuda_programs.t's (build/fixtures/NAME, built when stale).
#
# rt_fence (4,096 CTAs that each wait for the previous one's flag) runs on a device of 8 SMs
# (PTXEMU_DEVICE=h100,nsm=8) and only in the release build: its chain is ~2.7 M simulated
# cycles, about a minute here.
#
# Programs with thread-block clusters of several CTAs run too: a cluster's CTAs are dispatched
# together, and a barrier.cluster released in one CTA makes the others' SMs re-query their
# parked warps.
use strict;
use warnings;
use File::Basename qw(dirname basename);
use Cwd qw(getcwd);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(find_nvcc run_bounded fixture_sm);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $root  = getcwd();
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $nvcc  = find_nvcc();
if (!$nvcc) {
    print "1..0 # SKIP nvcc not found\n";
    exit 0;
}
my @srcs = sort glob('fixtures/cuda/*.cu');
my @stale = grep { my $e = 'build/fixtures/' . basename($_, '.cu'); !-x $e || -M $e > -M $_ } @srcs;
if (@stale) {
    local $ENV{NVCC} = $nvcc;
    my @names = map { basename($_, '.cu') } @stale;
    `scripts/gen-fixtures.sh --exe --variants '' @names 2>&1`;
}
my $libdir = ($build =~ m{^/} ? $build : "$root/$build") . '/lib';
my %env = (LD_LIBRARY_PATH => $libdir, PTXEMU_TIMING => '1');
my $asan = $build =~ /asan/;
if ($asan) {
    chomp(my $so = `gcc -print-file-name=libasan.so`);
    $env{LD_PRELOAD} = $so if $so =~ m{/};
}
my %todo;
print "1..", scalar(@srcs), "\n";
my $n = 0;
for my $src (@srcs) {
    $n++;
    my $name = basename($src, '.cu');
    my $exe = "build/fixtures/$name";
    my %e = %env;
    if ($name eq 'rt_fence') {
        if ($asan) {
            print "ok $n - $name under --timing # SKIP ~2.7 M simulated cycles: release build only\n";
            next;
        }
        $e{PTXEMU_DEVICE} = 'h100,nsm=8';
    }
    # a program that needs an architecture newer than the default device (h100, sm_90) runs
    # on the preset device of that architecture (`// fixtures: sm_100a` -> b200)
    if (my $sm = fixture_sm($src)) {
        $e{PTXEMU_DEVICE} = {100 => 'b200', 120 => 'rtx5090'}->{$sm} // "sm=$sm";
    }
    my ($code, $out, $err, $to) = run_bounded(600, \%e, "./$exe");
    my @why;
    push @why, "timed out" if $to;
    push @why, "exit status $code" if !$to && $code != 0;
    push @why, "no PASS line" if $out !~ /^PASS$/m;
    # a program that launches kernels reports them (rt_async/rt_unsupported launch none)
    my $kernels = () = $err =~ /^gpu_sim_cycle = \d+$/mg;
    my $launches = () = $err =~ /^kernel_name = /mg;
    push @why, "statistics incomplete ($launches kernel names, $kernels cycle lines)"
        if $kernels != $launches;
    print((@why ? 'not ok' : 'ok'), " $n - $name under --timing ($launches kernels)",
          ($todo{$name} ? " # TODO $todo{$name}" : ''), "\n");
    if (@why) {
        my @l = (split(/\n/, $out), split(/\n/, $err));
        @l = @l[0 .. 19] if @l > 20;
        print map { "#   $_\n" } @why, @l;
    }
}
