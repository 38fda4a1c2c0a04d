#!/usr/bin/env perl
# tests/cudart_exports.t - our libcudart.so.13 stands in for CUDA 13's: every cuda* function
# the toolkit's libcudart.so.13 exports is exported by ours too, under the same version node
# (libcudart.so.13), so no program dies with a `symbol lookup error`.  (Entry points not
# provided yet come from runtime/cudart_unsupported.def and return cudaErrorNotSupported;
# fixtures/cuda/rt_unsupported.cu checks one end to end.)  Also: ours exports only cuda* and
# __cuda* (the version script keeps the core's rt_*/interp_*/fe_* local).
#
# The toolkit's library is $CUDA_LIB/libcudart.so.13 (default /usr/local/cuda/lib64); without
# it or nm the comparison is skipped.  Ours is $PTXEMU_BUILD/lib/libcudart.so.13.
use strict;
use warnings;
use File::Basename qw(dirname);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $ours  = "$build/lib/libcudart.so.13";
my $theirs = ($ENV{CUDA_LIB} // '/usr/local/cuda/lib64') . '/libcudart.so.13';

if (!-f $ours) {
    print "1..0 # SKIP $ours not built\n";
    exit 0;
}
if (!-f $theirs || system('nm --version >/dev/null 2>&1') != 0) {
    print "1..0 # SKIP no $theirs or no nm\n";
    exit 0;
}

# name => version of each defined dynamic symbol
sub exports {
    my ($lib) = @_;
    my %sym;
    for (`nm -D --defined-only '$lib'`) {
        next unless /^\S+\s+[TtWwiDdBbVvRr]\s+([^@\s]+)(?:@+(\S+))?$/;
        $sym{$1} = $2 // '';
    }
    return \%sym;
}

my $mine = exports($ours);
my $nv   = exports($theirs);
print "1..4\n";

my @api = sort grep { /^cuda[A-Z]/ } keys %$nv;
my @missing = grep { !exists $mine->{$_} } @api;
print((@missing ? 'not ok' : 'ok'),
      " 1 - all " . scalar(@api) . " cuda* functions of the toolkit's libcudart.so.13 are exported\n");
print "# missing: $_\n" for @missing;

my @badver = grep { exists $mine->{$_} && $mine->{$_} ne 'libcudart.so.13' } @api;
print((@badver ? 'not ok' : 'ok'), " 2 - ... under the version node libcudart.so.13\n");
print "# $_\@$mine->{$_}\n" for @badver;

my @foreign = sort grep { !/^_*cuda/ && $_ ne 'libcudart.so.13' } keys %$mine;
print((@foreign ? 'not ok' : 'ok'), " 3 - only cuda* and __cuda* are exported\n");
print "# exported: $_\n" for @foreign;

# the per-thread default stream variants the toolkit has (_ptsz/_ptds) are all there
my @pt = grep { /_pt[sd][zs]$/ } @api;
my @ptmissing = grep { !exists $mine->{$_} } @pt;
print((@pt && !@ptmissing ? 'ok' : 'not ok'),
      " 4 - all " . scalar(@pt) . " _ptsz/_ptds variants are exported\n");
print "# missing: $_\n" for @ptmissing;
