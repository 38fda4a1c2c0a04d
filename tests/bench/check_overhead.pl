#!/usr/bin/perl
# tests/bench/check_overhead.pl — the sanitizer's cost on the benchmark kernels (bench.list):
# per kernel, `ptxemu exec --stats --threads 1` without checks and with `--check all`, for
# build A and build B alternately (A, A+check, B, B+check, …; the host's slow phases fall on
# all alike), N runs each; prints the median kernel seconds and the --check all / functional
# ratio of each build, and their geometric means (issue 27's goal: at most 10x). A
# measurement, never a test.
#   usage: check_overhead.pl --a DIR --b DIR [--runs N] [NAME...]
use strict;
use warnings;
use File::Basename qw(dirname);
use Getopt::Long;
use POSIX qw(floor);

my $dir = dirname(__FILE__);
my ($A, $B, $runs) = (undef, 'build', 5);
GetOptions('a=s' => \$A, 'b=s' => \$B, 'runs=i' => \$runs)
    or die "usage: check_overhead.pl --a DIR --b DIR [--runs N] [NAME...]\n";
die "usage: check_overhead.pl --a DIR --b DIR [--runs N] [NAME...]\n" unless defined $A;
my %only = map { $_ => 1 } @ARGV;

sub median { my @s = sort { $a <=> $b } @_; return $s[floor($#s / 2)]; }

sub once {
    my ($build, $name, $args, $check) = @_;
    my $out = `$build/ptxemu exec $dir/kernels_sm80.ptx --kernel $name $args --stats --threads 1 $check 2>&1 >/dev/null`;
    die "$name ($build $check): ptxemu exec failed:\n$out" if $?;
    $out =~ /: \d+ warp instructions, \d+ thread instructions, ([0-9.e+-]+) s/
        or die "$name: no --stats line in:\n$out";
    return $1;
}

open my $list, '<', "$dir/bench.list" or die "bench.list: $!\n";
printf "%-13s %8s %8s %7s | %8s %8s %7s\n", 'kernel', 'A func', 'A all', 'A x', 'B func',
    'B all', 'B x';
my ($la, $lb, $n) = (0, 0, 0);
while (<$list>) {
    next if /^\s*(#|$)/;
    my ($name, $class, $check, $args) = /^(\S+)\s+(\S+)\s+(\S+)\s+(.*)$/ or next;
    next if %only && !$only{$name};
    my (@af, @ac, @bf, @bc);
    for (1 .. $runs) {
        push @af, once($A, $name, $args, '');
        push @ac, once($A, $name, $args, '--check all');
        push @bf, once($B, $name, $args, '');
        push @bc, once($B, $name, $args, '--check all');
    }
    my ($xa, $xb) = (median(@ac) / median(@af), median(@bc) / median(@bf));
    printf "%-13s %8.4f %8.4f %6.2fx | %8.4f %8.4f %6.2fx\n", $name, median(@af), median(@ac),
        $xa, median(@bf), median(@bc), $xb;
    $la += log($xa);
    $lb += log($xb);
    $n++;
}
printf "geomean %.2fx | %.2fx\n", exp($la / $n), exp($lb / $n) if $n;
