# tests/lib/PtxemuTest.pm - helpers the perl tests share: finding nvcc, running a command
# bounded in time with its output captured, TAP output (ok / skip / tap_done), and running
# ptxemu and reading a timing configuration (timing.t, timing_mem.t), the parallel timing
# tests' bench kernels and log helpers.
package PtxemuTest;
use strict;
use warnings;
use File::Temp qw(tempfile);
use POSIX qw(WNOHANG);
use Cwd qw(getcwd);
use Exporter qw(import);
our @EXPORT_OK = qw(find_nvcc run_bounded ok skip tap_done ptxemu_run timing_config
                    kernels_stats program_env fixture_sm fail_diag parallel_kernels
                    strip_host stat_of slurp);

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

# parallel_kernels(): the bench kernels of tests/bench/kernels_sm80.ptx the parallel timing
# tests run (timing_threads.t, timing_relaxed.t, timing_lookahead.t), as [name, arguments]
# pairs: bench.list's arguments with grids cut down so a run takes about a second, fma_loop
# and triad with more CTAs than fit at once (several waves), and the --print of each kernel's
# result buffer (the tests compare what a run prints).
sub parallel_kernels {
    return (
        [fma_loop  => '--grid 1024 --block 256 --arg buf:zero=1048576 --arg s32:16 '
                    . '--print 0:f32:64'],
        [triad     => '--grid 1400 --block 256 --arg buf:zero=16777216 '
                    . '--arg buf:iota.f32=4194304 --arg buf:iota.f32=4194304 --arg f32:3 '
                    . '--arg s32:4194304 --print 0:f32:64'],
        [reduce    => '--grid 4 --block 256 --arg buf:iota.f32=4194304 --arg buf:zero=1024 '
                    . '--arg s32:65536 --print 1:f32:4'],
        [histogram => '--grid 8 --block 256 --arg buf:rand=16777216,7 --arg buf:zero=1024 '
                    . '--arg s32:65536 --print 1:u32'],
        [bitonic   => '--grid 4 --block 1024 --arg buf:rand=262144,3 --print 0:u32:64'],
        [sgemm     => '--grid 2,2 --block 16,16 --arg buf:iota.f32=65536 '
                    . '--arg buf:iota.f32=65536 --arg buf:zero=262144 --arg s32:256 '
                    . '--print 2:f32:64'],
    );
}

# strip_host(LOG): a timing statistics log without what differs run to run on the host: the
# wall-clock lines (gpgpu_simulation_time / _rate) and host addresses (a fault report's).
sub strip_host {
    my $s = shift // '';
    $s =~ s/^gpgpu_simulation_(?:time|rate) = .*\n//mg;
    $s =~ s/0x[0-9a-f]{8,}/0x…/g;
    return $s;
}

# stat_of(LOG, NAME): the integer value of the first "NAME = value" line of LOG, or undef.
sub stat_of { my ($log, $name) = @_; return $log =~ /^\Q$name\E = (\d+)$/m ? $1 : undef; }

# slurp(FILE): the whole file, or '' when it cannot be read.
sub slurp { open my $f, '<', $_[0] or return ''; local $/; my $s = <$f>; return $s; }

1;
