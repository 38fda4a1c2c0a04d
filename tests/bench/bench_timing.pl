#!/usr/bin/perl
# tests/bench/bench_timing.pl — timing-mode simulation speed (issue 24 item 6): the benchmark
# kernels of bench.list under each timing preset, one `ptxemu exec --timing=PRESET` run each
# (median of --runs), printing simulated warp instructions per host second, simulated cycles per
# host second and GPGPU-Sim's published rate on this class of machine as the reference column
# (19–38 K warp instructions/s, 300–1,000 cycles/s: issue 24). Grids are scaled down by
# --scale (default 16: the first 1/16 of each grid's blocks in x, at least one) so a run takes
# seconds; the rates are per simulated instruction and cycle, which the grid size hardly moves
# once every SM is busy. Writes JSON (default build/bench-timing.json). A measurement, never a
# test: nothing here asserts on time.
#   usage: bench_timing.pl [--build DIR] [--json PATH] [--runs N] [--presets a,b] [--scale N]
#                          [NAME...]
use strict;
use warnings;
use File::Basename qw(dirname);
use Getopt::Long;
use POSIX qw(floor);

my $dir     = dirname(__FILE__);
my $build   = $ENV{PTXEMU_BUILD} // 'build';
my $json;
my $runs    = 1;
my $presets = 'qv100,rtx3070,a100,h100';
my $scale   = 16;
GetOptions('build=s' => \$build, 'json=s' => \$json, 'runs=i' => \$runs,
           'presets=s' => \$presets, 'scale=i' => \$scale)
    or die "usage: bench_timing.pl [--build DIR] [--json PATH] [--runs N] [--presets LIST] "
         . "[--scale N] [NAME...]\n";
$json //= "$build/bench-timing.json";
my %only = map { $_ => 1 } @ARGV;
sub median { my @s = sort { $a <=> $b } @_; return $s[floor($#s / 2)]; }

my @kernels;
open my $fh, '<', "$dir/bench.list" or die "bench.list: $!";
while (<$fh>) {
    next if /^\s*(#|$)/;
    my ($name, $class, $check, $args) = /^(\S+)\s+(\S+)\s+(\S+)\s+(.*?)\s*$/ or next;
    next if %only && !$only{$name};
    # scale the grid's x extent down
    $args =~ s{--grid (\d+)(,\d+)?}{
        my ($x, $rest) = ($1, $2 // '');
        my $nx = int($x / $scale); $nx = 1 if $nx < 1;
        "--grid $nx$rest"
    }e;
    push @kernels, [$name, $args];
}
close $fh;

my @rows;
printf "%-13s %-8s %12s %12s %12s %10s %9s\n", 'kernel', 'preset', 'warp insns', 'cycles',
    'winsn/s', 'cycles/s', 'host s';
for my $p (split /,/, $presets) {
    for my $k (@kernels) {
        my ($name, $args) = @$k;
        my (@wr, @cr, @hs);
        my ($w, $c) = (0, 0);
        for (1 .. $runs) {
            my $out = `$build/ptxemu exec $dir/kernels_sm80.ptx --kernel $name $args --threads 1 --timing=$p 2>&1 >/dev/null`;
            die "bench_timing $name $p: ptxemu exec failed:\n$out" if $?;
            ($c) = $out =~ /^gpu_sim_cycle = (\d+)/m or die "no gpu_sim_cycle in:\n$out";
            ($w) = $out =~ /^gpgpu_n_tot_w_icount = (\d+)/m or die "no warp count";
            my ($s) = $out =~ /^gpgpu_simulation_time = ([0-9.]+) sec/m or die "no time";
            $s = 1e-6 if $s < 1e-6;
            push @wr, $w / $s;
            push @cr, $c / $s;
            push @hs, $s;
        }
        my $row = {kernel => $name, preset => $p, warp_insns => $w + 0, cycles => $c + 0,
                   warp_insns_per_s => median(@wr), cycles_per_s => median(@cr),
                   host_s => median(@hs)};
        push @rows, $row;
        printf "%-13s %-8s %12d %12d %12.0f %10.0f %9.2f\n", $name, $p, $w, $c,
            $row->{warp_insns_per_s}, $row->{cycles_per_s}, $row->{host_s};
    }
}
print "reference: GPGPU-Sim 19,000-38,000 warp insns/s, 300-1,000 cycles/s (issue 24)\n";
open my $o, '>', $json or die "$json: $!";
print $o "[\n", join(",\n", map {
    my $r = $_;
    '{' . join(', ', map {
        my $v = $r->{$_};
        $v =~ /^[0-9.e+-]+$/ ? "\"$_\": $v" : "\"$_\": \"$v\""
    } sort keys %$r) . '}'
} @rows), "\n]\n";
close $o;
print "wrote $json\n";
