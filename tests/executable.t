#!/usr/bin/env perl
# tests/executable.t - every tests/*.t is executable: scripts/test.sh runs them with
# `prove --exec ''`, and prove stops at the first file it cannot execute (a test committed
# without its mode bit once skipped the rest of a CI pass).
use strict;
use warnings;
use File::Basename qw(dirname);
chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my @t = sort glob('tests/*.t');
print '1..', scalar(@t), "\n";
my $n = 0;
for my $f (@t) {
    $n++;
    print((-x $f ? 'ok' : 'not ok'), " $n - $f is executable\n");
}
