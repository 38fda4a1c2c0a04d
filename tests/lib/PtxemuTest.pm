# tests/lib/PtxemuTest.pm - helpers the perl tests share: finding nvcc, running a command
# bounded in time with its output captured, TAP output (ok / skip / tap_done), and running
# ptxemu and reading a timing configuration (timing.t, timing_mem.t).
package PtxemuTest;
use strict;
use warnings;
use File::Temp qw(tempfile);
use POSIX qw(WNOHANG);
use Cwd qw(getcwd);
use Exporter qw(import);
our @EXPORT_OK = qw(find_nvcc run_bounded ok skip tap_done ptxemu_run timing_config
                    kernels_stats program_env fixture_sm fail_diag);

# The nvcc to use: $NVCC, else the first on PATH, else /usr/local/cuda/bin/nvcc; undef if none.
# The architecture a fixtures/cuda source needs beyond the emulated default (sm_90): NN of
# its first line `// fixtures: sm_NN[a]` when NN > 90, else 0. Programs built from such a
# source run on an emulated device of that architecture.
sub fixture_sm {
    my ($src) = @_;
    open(my $fh, '<', $src) or return 0;
    my $l = <$fh> // '';
    return $l =~ m{^// fixtures: sm_(\d+)} && $1 > 90 ? $1 : 0;
}

sub find_nvcc {
    return $ENV{NVCC} if $ENV{NVCC};
    for my $d (split(/:/, $ENV{PATH} // ''), '/usr/local/cuda/bin') {
        return "$d/nvcc" if -x "$d/nvcc";
    }
    return undef;
}

# Run argv with stdin from /dev/null, the variables of %$env set, stdout and stderr captured,
# killed after $timeout seconds. Returns (code, stdout, stderr, timed_out), where code is the
# exit status, or 128 + the signal number.
sub run_bounded {
    my ($timeout, $env, @argv) = @_;
    # removed here, not at exit: a long test runs thousands of commands (no descriptor leak)
    my ($ofh, $ofile) = tempfile();
    my ($efh, $efile) = tempfile();
    my $pid = fork();
    die "fork: $!" unless defined $pid;
    if ($pid == 0) {
        $ENV{$_} = $env->{$_} for keys %$env;
        open(STDIN, '<', '/dev/null');
        open(STDOUT, '>&', $ofh) or die;
        open(STDERR, '>&', $efh) or die;
        exec(@argv) or do { print STDERR "exec $argv[0]: $!\n"; POSIX::_exit(127) };
    }
    my $deadline = time + $timeout;
    my $timed_out = 0;
    while (1) {
        last if waitpid($pid, WNOHANG) == $pid;
        if (time > $deadline) {
            kill 'KILL', $pid;
            waitpid($pid, 0);
            $timed_out = 1;
            last;
        }
        select(undef, undef, undef, 0.02);
    }
    my $status = $?;
    local $/;
    open(my $o, '<', $ofile) or die;
    my $out = <$o> // '';
    open(my $e, '<', $efile) or die;
    my $err = <$e> // '';
    close $o;
    close $e;
    close $ofh;
    close $efh;
    unlink $ofile, $efile;
    my $code = $status & 127 ? 128 + ($status & 127) : $status >> 8;
    return ($code, $out, $err, $timed_out);
}

# ---------------------------------------------------------------- TAP
# The test count and failures of this test program (one per process).
my ($tap_n, $tap_failed) = (0, 0);

# ok(COND, NAME, DIAG...): prints "ok N - NAME", or "not ok N - NAME" followed by the lines of
# DIAG (undef items left out; at most 12 lines, then "...") as "#   " comments. Returns COND.
sub ok {
    my ($cond, $name, @diag) = @_;
    $tap_n++;
    print(($cond ? 'ok' : 'not ok'), " $tap_n - $name\n");
    if (!$cond) {
        $tap_failed++;
        fail_diag($tap_n, $name, 12, @diag);
    }
    return $cond;
}

# fail_diag(N, NAME, MAX, DIAG...): the diagnostics of failed test N, on standard error as
# Test::More's diag does: prove shows standard error even when not verbose, so the first
# (parallel) run of scripts/test.sh keeps why a test failed, not only that it did (a test
# that then passes alone is FLAKY, and its first failure is the one to study). One line
# naming the script and the test, then the lines of DIAG (undef items left out; at most MAX
# lines, then "...") as "#   " comments, written in one print.
sub fail_diag {
    my ($n, $name, $max, @diag) = @_;
    my @l = map { split /\n/ } grep { defined } @diag;
    @l = (@l[0 .. $max - 1], '...') if @l > $max;
    local $| = 1;
    print STDERR "# $0: failed test $n - $name\n", map { "#   $_\n" } @l;
}

# skip(WHY): one skipped test, "ok N # SKIP WHY".
sub skip {
    my ($why) = @_;
    $tap_n++;
    print "ok $tap_n # SKIP $why\n";
}

# tap_done(): prints the plan "1..N" (after the tests) and returns the exit status: 1 if a test
# failed, else 0. Use as exit(tap_done()).
sub tap_done {
    print "1..$tap_n\n";
    return $tap_failed ? 1 : 0;
}

# ---------------------------------------------------------------- ptxemu
# ptxemu_run(ARG...): runs $PTXEMU_BUILD/ptxemu (default build/, relative to the repository
# root, which the tests make their working directory) with ARGs, killed after 300 s. Returns
# (code, stdout, stderr).
sub ptxemu_run {
    my $ptxemu = ($ENV{PTXEMU_BUILD} // 'build') . '/ptxemu';
    my ($code, $out, $err) = run_bounded(300, {}, $ptxemu, @_);
    return ($code, $out, $err);
}

# timing_config(ARG...): the options of `ptxemu timing-config ARG...` as a hash reference
# (option name without its '-' => value text); dies when the command fails.
sub timing_config {
    my ($code, $out, $err) = ptxemu_run('timing-config', @_);
    die "timing-config @_: $err" if $code;
    my %o;
    $o{$1} = $2 while $out =~ /^-(\S+)[ \t]+(.*?)[ \t]*$/mg;
    return \%o;
}

# kernels_stats(TEXT): the timing statistics a run printed (its standard error), one hash
# reference per kernel launch in launch order, holding every "name = value" line from that
# launch's "kernel_name = " line on (the timing tests compare counters per kernel).
sub kernels_stats {
    my ($err) = @_;
    my @k;
    for my $line (split /\n/, $err) {
        push @k, {} if $line =~ /^kernel_name = /;
        $k[-1]{$1} = $2 if @k && $line =~ /^(\S+) = (\S+)/;
    }
    return @k;
}

# program_env(NAME => VALUE, ...): the environment for running an nvcc-built program (built
# with -cudart shared) on the build under test: LD_LIBRARY_PATH at $PTXEMU_BUILD/lib (absolute)
# so it loads our libcudart.so.13, and for an ASan build LD_PRELOAD of the sanitizer runtime
# (the program is not instrumented; the library it loads is), plus the pairs given.
sub program_env {
    my (%extra) = @_;
    my $build = $ENV{PTXEMU_BUILD} // 'build';
    my %env = (LD_LIBRARY_PATH => ($build =~ m{^/} ? $build : getcwd() . "/$build") . '/lib');
    if ($build =~ /asan/) {
        chomp(my $so = `gcc -print-file-name=libasan.so`);
        $env{LD_PRELOAD} = $so if $so =~ m{/};
    }
    return (%env, %extra);
}

1;
