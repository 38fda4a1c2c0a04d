#!/usr/bin/perl
# tests/bench/bench.pl — run the benchmark suite (issue 7) and report ratios.
#
# For each kernel in bench.list: `ptxemu exec --stats` five times with --threads 1 and five times
# with --threads 2 (medians), and the native C twin (tests/bench/native.c, median of 5).
# Prints a table and writes JSON (default build/bench.json; --json PATH). Wall time is the
# kernel's time as reported by --stats (parse/load excluded). Never asserts on time.
#   usage: bench.pl [--build DIR] [--json PATH] [--runs N] [NAME...]
use strict;
use warnings;
use File::Basename qw(dirname);
use Getopt::Long;
use POSIX qw(floor);

my $dir = dirname(__FILE__);
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $json = undef;
my $runs = 5;
GetOptions('build=s' => \$build, 'json=s' => \$json, 'runs=i' => \$runs) or die "usage\n";
$json //= "$build/bench.json";
my %only = map { $_ => 1 } @ARGV;

sub median { my @s = sort { $a <=> $b } @_; return $s[floor($#s / 2)]; }

sub emulate {
    my ($name, $args, $threads) = @_;
    my (@t, $warp, $thread);
    for (1 .. $runs) {
        my $out = `$build/ptxemu exec $dir/kernels_sm80.ptx --kernel $name $args --stats --threads $threads 2>&1 >/dev/null`;
        die "bench $name: ptxemu exec failed:\n$out" if $?;
        $out =~ /: (\d+) warp instructions, (\d+) thread instructions, ([0-9.e+-]+) s/
            or die "bench $name: no --stats line in:\n$out";
        ($warp, $thread) = ($1, $2);
        push @t, $3;
    }
    return ($warp, $thread, median(@t));
}

my @rows;
open my $fh, '<', "$dir/bench.list" or die "bench.list: $!";
while (<$fh>) {
    next if /^\s*(#|$)/;
    my ($name, $class, $args) = /^(\S+)\s+(\S+)\s+(.*)$/ or next;
    next if %only && !$only{$name};
    my ($w, $t, $t1) = emulate($name, $args, 1);
    my (undef, undef, $t2) = emulate($name, $args, 2);
    my $native = `$build/bench/native $name`;
    die "native $name failed\n" if $?;
    chomp $native;
    push @rows, { name => $name, class => $class, warp_insns => $w + 0, thread_insns => $t + 0,
                  seconds_1t => $t1 + 0, seconds_2t => $t2 + 0, native_seconds => $native + 0,
                  mtips_1t => $t / $t1 / 1e6, slowdown_vs_native => $t1 / $native,
                  speedup_2t => $t1 / $t2 };
}

my $cpu = 'unknown';
if (open my $ci, '<', '/proc/cpuinfo') { while (<$ci>) { if (/^model name\s*:\s*(.*)$/) { $cpu = $1; last } } }
printf "CPU: %s\n", $cpu;
printf "%-13s %-4s %14s %14s %9s %9s %10s %9s %8s\n", 'kernel', 'cls', 'warp insns', 'thread insns',
    't(1T) s', 't(2T) s', 'M thr-i/s', 'x native', '2T gain';
my $geo = 0;
for my $r (@rows) {
    printf "%-13s %-4s %14d %14d %9.4f %9.4f %10.1f %9.1f %8.2f\n", @$r{qw(name class warp_insns
        thread_insns seconds_1t seconds_2t mtips_1t slowdown_vs_native speedup_2t)};
    $geo += log($r->{slowdown_vs_native});
}
printf "geomean slowdown vs native C: %.1fx\n", exp($geo / @rows) if @rows;

open my $jo, '>', $json or die "$json: $!";
print $jo "{\n  \"cpu\": \"$cpu\",\n  \"runs\": $runs,\n  \"kernels\": [\n";
print $jo join(",\n", map { my $r = $_; '    {' . join(', ', map {
    my $v = $r->{$_}; "\"$_\": " . ($v =~ /^[0-9.e+-]+$/ ? $v : "\"$v\"") } sort keys %$r) . '}' } @rows);
print $jo "\n  ]\n}\n";
close $jo;
print "wrote $json\n";
