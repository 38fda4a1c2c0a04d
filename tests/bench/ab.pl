#!/usr/bin/perl
# tests/bench/ab.pl — two builds of ptxemu side by side on the benchmark kernels (bench.list):
# for each kernel, `ptxemu exec --stats --threads T` of build A and of build B alternately
# (A, B, A, B, …; so the host's slow phases fall on both alike), N runs each; prints the median
# kernel seconds of each, the ratio B/A per kernel and their geometric mean. Both builds must
# execute the same number of warp instructions (the script dies otherwise). A measurement for
# "did this change make the fast loop slower" (issue 19), never a test.
#   usage: ab.pl --a DIR --b DIR [--runs N] [--threads T] [NAME...]
use strict;
use warnings;
use File::Basename qw(dirname);
use Getopt::Long;
use POSIX qw(floor);

my $dir = dirname(__FILE__);
my ($A, $B, $runs, $threads) = (undef, 'build', 7, 1);
GetOptions('a=s' => \$A, 'b=s' => \$B, 'runs=i' => \$runs, 'threads=i' => \$threads)
    or die "usage: ab.pl --a DIR --b DIR [--runs N] [--threads T] [NAME...]\n";
die "usage: ab.pl --a DIR --b DIR [--runs N] [--threads T] [NAME...]\n" unless defined $A;
my %only = map { $_ => 1 } @ARGV;

sub median { my @s = sort { $a <=> $b } @_; return $s[floor($#s / 2)]; }

sub exec_once {
    my ($build, $name, $args) = @_;
    my $out = `$build/ptxemu exec $dir/kernels_sm80.ptx --kernel $name $args --stats --threads $threads 2>&1 >/dev/null`;
    die "ab $name ($build): ptxemu exec failed:\n$out" if $?;
    $out =~ /: (\d+) warp instructions, \d+ thread instructions, ([0-9.e+-]+) s/
        or die "ab $name: no --stats line in:\n$out";
    return ($1, $2);
}

open my $list, '<', "$dir/bench.list" or die "bench.list: $!\n";
printf "%-14s %12s %12s %8s\n", 'kernel', 'A s', 'B s', 'B/A';
my ($logsum, $n) = (0, 0);
while (<$list>) {
    next if /^\s*(#|$)/;
    my ($name, $class, $check, $args) = /^(\S+)\s+(\S+)\s+(\S+)\s+(.*)$/ or next;
    next if %only && !$only{$name};
    my (@a, @b, $wa, $wb);
    for (1 .. $runs) {
        my ($w, $s) = exec_once($A, $name, $args);
        push @a, $s;
        $wa = $w;
        ($w, $s) = exec_once($B, $name, $args);
        push @b, $s;
        $wb = $w;
    }
    die "ab $name: A ran $wa warp instructions, B $wb\n" if $wa != $wb;
    my ($ma, $mb) = (median(@a), median(@b));
    printf "%-14s %12.4f %12.4f %8.3f\n", $name, $ma, $mb, $mb / $ma;
    $logsum += log($mb / $ma);
    $n++;
}
printf "%-14s %12s %12s %8.3f\n", 'geomean', '', '', exp($logsum / $n) if $n;
