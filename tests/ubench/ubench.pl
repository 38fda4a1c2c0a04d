#!/usr/bin/perl
# tests/ubench/ubench.pl — the timing presets against published microbenchmark measurements
# (issue 23): for each preset with rows in configs/reference.tsv, runs the clock64()-timed
# microbenchmarks of tests/ubench (committed PTX in fixtures/ptx/ubench) under --timing=PRESET
# and prints measured, reference and error per metric. Metrics: dependent FADD/FFMA/IMAD/DFMA
# (64-operation chains, latency.cu), L1 hit, L2 hit and DRAM miss latency (pointer chases,
# memory.cu; the loop overhead is taken from a -gpgpu_perfect_mem run of known latency). A
# measurement, not a test: exit 0 whatever the errors (tests/timing_mem.t asserts the model).
#   usage: ubench.pl [--build DIR] [PRESET...]
use strict;
use warnings;
use File::Basename qw(dirname);
use Getopt::Long;

chdir(dirname(__FILE__) . '/../..') or die "chdir: $!";
my $build = $ENV{PTXEMU_BUILD} // 'build';
GetOptions('build=s' => \$build) or die "usage: ubench.pl [--build DIR] [PRESET...]\n";
my $ptxemu = "$build/ptxemu";
my (%ref, @order);
open my $fh, '<', 'configs/reference.tsv' or die "configs/reference.tsv: $!";
while (<$fh>) {
    next if /^\s*(#|$)/;
    chomp;
    my ($p, $m, $lo, $hi, $src) = split /\t/;
    push @order, $p unless exists $ref{$p};
    $ref{$p}{$m} = [$lo, $hi, $src];
}
close $fh;
my @presets = @ARGV ? @ARGV : @order;

sub exec_out {
    my $out = `$ptxemu exec @_ 2>/dev/null`;
    die "ptxemu exec @_: failed\n" if $?;
    chomp $out;
    return $out;
}

my %chain = (fadd => ['lat_fadd', 'buf:f32=1,1,0'], ffma => ['lat_ffma', 'buf:f32=1,1,0'],
             imad => ['lat_imad', 'buf:s32=1,1,0'], dfma => ['lat_dfma', 'buf:f64=1,1,0']);
my $steps = 256;
my @chase = ('fixtures/ptx/ubench/memory.ptx', '--grid', 1, '--block', 1, '--print', '5:s64:1');
my ($n, $worst) = (0, 0);
printf "%-8s %-7s %9s %13s %7s  %s\n", 'preset', 'metric', 'measured', 'reference', 'error',
    'source';
for my $p (@presets) {
    my %m;
    for my $k (sort keys %chain) {
        next unless $ref{$p}{$k};
        my ($kern, $arg) = @{$chain{$k}};
        $m{$k} = exec_out('fixtures/ptx/ubench/latency.ptx', '--kernel', $kern, '--grid', 1,
                          '--block', 1, '--arg', $arg, '--arg', 'buf:zero=16', '--print',
                          '1:s64:1', "--timing=$p") / 64;
    }
    my @small = ('--arg', 'buf:zero=65536', '--arg', 'u32:32', '--arg', 'u32:255');
    my $t0 = exec_out(@chase, '--kernel', 'chase_cg', @small, '--arg', 's32:0', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', "--timing=$p", '--timing-set',
        'gpgpu_perfect_mem=1', '--timing-set', 'ptxemu_perfect_mem_latency=20');
    my $over = $t0 - 20 * $steps;
    $m{l1_hit} = (exec_out(@chase, '--kernel', 'chase_ca', @small, '--arg', 's32:64', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', "--timing=$p") - $over) / $steps;
    $m{l2_hit} = (exec_out(@chase, '--kernel', 'chase_cg', @small, '--arg', 's32:0', '--arg',
        "s32:$steps", '--arg', 'buf:zero=16', "--timing=$p", '--repeat', 2) - $over) / $steps;
    $m{dram} = (exec_out(@chase, '--kernel', 'chase_cg', '--arg', 'buf:zero=8388608', '--arg',
        'u32:32', '--arg', 'u32:2097151', '--arg', 's32:0', '--arg', "s32:$steps", '--arg',
        'buf:zero=16', "--timing=$p") - $over) / $steps;
    for my $k (qw(fadd ffma imad dfma l1_hit l2_hit dram)) {
        my $r = $ref{$p}{$k} or next;
        my ($lo, $hi, $src) = @$r;
        my $v = $m{$k};
        my $err = $v < $lo ? ($v - $lo) / $lo : $v > $hi ? ($v - $hi) / $hi : 0;
        $worst = abs($err) if abs($err) > $worst;
        $n++;
        printf "%-8s %-7s %9.1f %13s %+6.1f%%  %s\n", $p, $k, $v,
            $lo == $hi ? $lo : "$lo-$hi", 100 * $err, $src;
    }
}
printf "%d measurements, largest error %.1f%%\n", $n, 100 * $worst;
