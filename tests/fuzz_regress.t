#!/usr/bin/env perl
# tests/fuzz_regress.t - front-end crash regressions found by the fuzzer.
#
# Every file in fixtures/ptx/fuzz/ (one input each, minimized by `scripts/fuzz.sh save`) goes
# through `$PTXEMU_BUILD/ptxemu check FILE`, which must end normally: exit 0 (the input is
# valid PTX) or 1 (diagnostics), never a signal, a sanitizer report, another status or a hang.
# On the ASan build the sanitizers are told to abort, so their reports are signals too.
# Skips when the directory holds no input. PTXEMU_FUZZ_DIR overrides the directory.
use strict;
use warnings;
use File::Basename qw(dirname);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(run_bounded);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $build   = $ENV{PTXEMU_BUILD} // 'build';
my $bin     = "$build/ptxemu";
my $timeout = 60;

my $dir     = $ENV{PTXEMU_FUZZ_DIR} // 'fixtures/ptx/fuzz';

my @files = sort grep { -f $_ && !m{/README[^/]*\z} } glob("$dir/*");
if (!@files) {
    print "1..0 # SKIP no inputs in $dir/\n";
    exit 0;
}

$ENV{ASAN_OPTIONS}  = join ':', grep { length } $ENV{ASAN_OPTIONS}  // '', 'abort_on_error=1';
$ENV{UBSAN_OPTIONS} = join ':', grep { length } $ENV{UBSAN_OPTIONS} // '',
    'halt_on_error=1:abort_on_error=1:print_stacktrace=1';

print "1..", scalar(@files), "\n";
my $n = 0;
for my $f (@files) {
    $n++;
    if (!-x $bin) {
        print "not ok $n - $f\n# $bin is not built (run ninja)\n";
        next;
    }
    my ($code, undef, $err, $to) = run_bounded($timeout, {}, $bin, 'check', $f);
    my $why;
    if ($to) {
        $why = "timed out after ${timeout}s";
    } elsif ($code > 128) {
        $why = "killed by signal " . ($code - 128) . " (or exit $code)";
    } elsif ($code > 1) {
        $why = "exit $code, expected 0 or 1";
    } elsif ($err =~ /(AddressSanitizer|LeakSanitizer|runtime error:)/) {
        $why = "sanitizer report ($1)";
    }
    if (defined $why) {
        print "not ok $n - $f\n# ptxemu check $f: $why\n";
        my @l = split /\n/, $err;
        @l = @l[0 .. 29] if @l > 30;
        print map { "#   stderr| $_\n" } @l;
    } else {
        print "ok $n - $f (exit $code)\n";
    }
}
