#!/usr/bin/env perl
# tests/cfg_golden.t - `ptxemu cfg` output for the CFG fixtures against golden files.
#
# For every fixtures/ptx/cfg/NAME.ptx: `ptxemu cfg FILE` must print exactly NAME.golden
# (blocks, PC ranges, lines, successors, predecessors, idom, ipdom, reconvergence PCs), and
# where NAME.dot.golden exists, `ptxemu cfg FILE --dot` must print exactly that.
# PTXEMU_UPDATE_GOLDEN=1 rewrites the golden files from the current output (review the diff).
# The binary is $PTXEMU_BUILD/ptxemu (PTXEMU_BUILD defaults to "build").
use strict;
use warnings;
use File::Basename qw(dirname);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $build  = $ENV{PTXEMU_BUILD} // 'build';
my $bin    = "$build/ptxemu";
my $update = $ENV{PTXEMU_UPDATE_GOLDEN};

my @files = sort glob('fixtures/ptx/cfg/*.ptx');
if (!-x $bin) {
    print "1..0 # SKIP $bin not built\n";
    exit 0;
}
my @cases;
for my $f (@files) {
    (my $base = $f) =~ s/\.ptx\z//;
    push @cases, [ $f, [], "$base.golden" ];
    push @cases, [ $f, ['--dot'], "$base.dot.golden" ] if -e "$base.dot.golden";
    # NAME.KERNEL.kernel.golden: `ptxemu cfg FILE --kernel KERNEL` (one function only)
    for my $g (sort glob("$base.*.kernel.golden")) {
        my ($k) = $g =~ /\Q$base\E\.(.+)\.kernel\.golden\z/ or next;
        push @cases, [ $f, ['--kernel', $k], $g ];
    }
}
# --kernel naming no function: usage error (exit status 2) and this exact message.
my @bad_kernel = ('fixtures/ptx/cfg/recursion.ptx', 'nosuch',
                  "ptxemu: fixtures/ptx/cfg/recursion.ptx: no function named nosuch\n");
print '1..', scalar(@cases) + 1, "\n";

sub slurp {
    my ($p) = @_;
    open(my $fh, '<', $p) or return undef;
    local $/;
    my $s = <$fh>;
    return $s;
}

my $n = 0;
for my $c (@cases) {
    my ($file, $args, $golden) = @$c;
    $n++;
    my $cmd = join(' ', $bin, 'cfg', $file, @$args);
    my $out = `$cmd 2>&1`;
    my $rc  = $? >> 8;
    my $desc = "cfg " . join(' ', $file, @$args);
    if ($rc != 0) {
        print "not ok $n - $desc\n# exit status $rc\n";
        print map { "# $_\n" } split /\n/, $out;
        next;
    }
    if ($update) {
        open(my $fh, '>', $golden) or die "$golden: $!";
        print $fh $out;
        close $fh;
        print "ok $n - $desc # updated $golden\n";
        next;
    }
    my $want = slurp($golden);
    if (!defined $want) {
        print "not ok $n - $desc\n# missing $golden (run with PTXEMU_UPDATE_GOLDEN=1)\n";
        next;
    }
    if ($out eq $want) {
        print "ok $n - $desc\n";
        next;
    }
    print "not ok $n - $desc\n";
    my @g = split /\n/, $out, -1;
    my @w = split /\n/, $want, -1;
    for my $i (0 .. ($#g > $#w ? $#g : $#w)) {
        my ($a, $b) = ($g[$i] // '<eof>', $w[$i] // '<eof>');
        next if $a eq $b;
        print "# first difference at line ", $i + 1, ":\n#      got: $a\n# expected: $b\n";
        last;
    }
}

$n++;
{
    my ($file, $k, $want) = @bad_kernel;
    my $out = `$bin cfg $file --kernel $k 2>&1`;
    my $rc  = $? >> 8;
    if ($rc == 2 && $out eq $want) {
        print "ok $n - cfg $file --kernel $k: no such function\n";
    } else {
        print "not ok $n - cfg $file --kernel $k: no such function\n# exit $rc, output: $out";
    }
}
