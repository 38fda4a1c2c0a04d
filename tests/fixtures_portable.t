#!/usr/bin/env perl
# tests/fixtures_portable.t - the fixture suite again with the portable (baseline x86-64) fast
# loop forced (PTXEMU_EXEC_PORTABLE=1), so both instantiations of the fast loop stay tested on
# machines whose CPU selects the AVX2+FMA loop by default (interp/exec.c).
use strict;
use warnings;
use File::Basename qw(dirname);
$ENV{PTXEMU_EXEC_PORTABLE} = 1;
exec($^X, dirname(__FILE__) . '/fixtures.t') or die "exec fixtures.t: $!";
