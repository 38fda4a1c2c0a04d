# tests/lib/PtxemuTest.pm - helpers the perl tests share: finding nvcc and running a command
# bounded in time with its output captured.
package PtxemuTest;
use strict;
use warnings;
use File::Temp qw(tempfile);
use POSIX qw(WNOHANG);
use Exporter qw(import);
our @EXPORT_OK = qw(find_nvcc run_bounded);

# The nvcc to use: $NVCC, else the first on PATH, else /usr/local/cuda/bin/nvcc; undef if none.
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

1;
