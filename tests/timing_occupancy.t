#!/usr/bin/env perl
# tests/timing_occupancy.t - the CTAs per SM the timing model allows (max_cta_per_sm in its
# per-kernel statistics) equal what cudaOccupancyMaxActiveBlocksPerMultiprocessor reports, for
# kernels limited by threads, CTA slots, static and dynamic shared memory (with the driver's
# 1 KiB per-CTA reservation on sm_80+), on the h100, a100, rtx3070 and rtx4090 presets.
# tests/ubench/occupancy.cu is built with nvcc (skipped without it).
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Path qw(make_path);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(find_nvcc run_bounded);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $nvcc = find_nvcc();
if (!$nvcc) {
    print "1..0 # SKIP nvcc not found\n";
    exit 0;
}
make_path('build/ubench');
my $exe = 'build/ubench/occupancy';
my $src = 'tests/ubench/occupancy.cu';
if (!-x $exe || -M $exe > -M $src) {
    system($nvcc, '-cudart', 'shared', '-arch=sm_80', '-o', $exe, $src) == 0
        or die "nvcc $src failed\n";
}
my %env;
if ($build =~ /asan/) {
    chomp(my $so = `gcc -print-file-name=libasan.so`);
    $env{LD_PRELOAD} = $so if $so =~ m{/};
}
my @devices = qw(h100 a100 rtx3070 rtx4090);
print "1..", scalar(@devices), "\n";
my $n = 0;
for my $d (@devices) {
    $n++;
    my ($code, $out, $err) = run_bounded(300, \%env, "$build/ptxemu", 'run', '--device', $d,
                                         '--timing', '--', "./$exe");
    my @api = $out =~ /^\S+ block \d+ dyn \d+: (\d+)$/mg;
    my @tm = $err =~ /^max_cta_per_sm = (\d+)$/mg;
    my $ok = $code == 0 && $out =~ /^PASS$/m && @api == 7 && "@api" eq "@tm";
    print(($ok ? 'ok' : 'not ok'), " $n - $d: timing CTAs per SM = the occupancy API (@api)\n");
    print "#   exit $code\n#   API:    @api\n#   timing: @tm\n" unless $ok;
}
