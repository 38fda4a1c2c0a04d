#!/usr/bin/env perl
# tests/ptxas_diff.t - `ptxemu check` and ptxas give the same accept/reject verdict on every
# committed fixture ptxas can assemble (its own .target) and on the first 300 seeded mutations
# of them (tests/lib/PtxasDiff.pm; scripts/ptxas-diff.pl runs 2,000 and more), two at a time.
# A disagreement fails unless tests/ptxas_diff.allow lists it with the reason. One TAP line
# per mutation class, one per allowlisted disagreement seen. Skips without ptxas.
use strict;
use warnings;
use File::Basename qw(dirname);
use lib dirname(__FILE__) . '/lib';
use PtxasDiff qw(allow_reason find_ptxas diff_fixtures fixture_jobs make_variants run_all
                 read_allowlist);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $bin = ($ENV{PTXEMU_BUILD} // 'build') . '/ptxemu';
my $ptxas = find_ptxas();
if (!$ptxas) { print "1..0 # SKIP no ptxas\n"; exit 0 }
my $allow = read_allowlist('tests/ptxas_diff.allow');
my @fx = diff_fixtures();
my @fres = run_all($bin, $ptxas, 2, fixture_jobs(\@fx));
my %base = map { $_->{file} => 1 } grep { $_->{ptxas} } @fres;
my @res = (@fres, run_all($bin, $ptxas, 2, make_variants([grep { $base{ $_->[0] } } @fx], 1, 300)));
my (%by, @allowed);
push @{ $by{ $_->{class} } }, $_ for @res;
my @classes = sort keys %by;
my $n = 0;
for my $c (@classes) {
    my @bad;
    for my $j (@{ $by{$c} }) {
        next if $j->{emu} == $j->{ptxas};
        if (my $why = allow_reason($allow, $j)) { push @allowed, [$j, $why]; next }
        push @bad, $j;
    }
    $n++;
    my $agree = grep { $_->{emu} == $_->{ptxas} } @{ $by{$c} };
    print((@bad ? 'not ok' : 'ok') . " $n - $c: $agree of " . scalar(@{ $by{$c} })
          . " agree\n");
    for my $j (@bad) {
        print "# $j->{id}: $j->{desc}\n#   ptxemu "
            . ($j->{emu} > 0 ? 'accepts' : $j->{emu} ? 'crashes' : "rejects: $j->{emu_msg}")
            . "\n#   ptxas " . ($j->{ptxas} ? 'accepts' : "rejects: $j->{ptxas_msg}") . "\n";
    }
}
for my $a (@allowed) {
    $n++;
    print "ok $n - known disagreement $a->[0]{id} # $a->[1]\n";
}
print "1..$n\n";
