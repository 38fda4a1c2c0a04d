#!/usr/bin/env perl
# tests/fixtures.t - run the hand-written PTX fixtures (fixtures/**/*.ptx)
# against `ptxemu` and check the expectations written in their comments.
#
# One TAP line per fixture file that has `//@` lines; files without any (the
# nvcc-generated fixtures/ptx/sm_*/) are ignored here.  Directives:
#
#   //@ check                       `ptxemu check FILE` exits 0
#   //@ expect-error L:C: MESSAGE   `ptxemu check FILE` exits non-zero and its
#                                   stderr contains "FILE:L:C: error: MESSAGE"
#                                   (several lines: all must appear)
#   //@ expect-note L:C: MESSAGE    `ptxemu check FILE` (exit status not
#                                   checked: notes never change it) has
#                                   "FILE:L:C: note: MESSAGE" on stderr
#                                   (several lines: all must appear)
#   //@ expect-no-note              `ptxemu check FILE` prints no "note:"
#                                   line at all (guards against false
#                                   .version / .target notes)
#   //@ exec ARGS...                run `ptxemu exec FILE ARGS...` (shell-like
#                                   quoting); the expectations below refer to
#                                   the most recent exec (several execs allowed)
#   //@ expect-stdout TEXT          the next line of stdout is exactly TEXT;
#                                   stdout must have no further lines
#   //@ expect-stderr TEXT          stderr contains TEXT
#   //@ expect-exit N               exit status N (default 0)
#   //@ timeout SECONDS             per command (default 60)
#   //@ todo REASON                 a failure is reported as TODO (tolerated)
#   //@ skip REASON                 do not run
#
# One more TAP line checks the nvcc-generated fixtures/ptx/sm_*/*.ptx, which
# cannot carry directives (tests/fixtures_uptodate.t compares them with nvcc's
# output): `ptxemu check` must print no note for any of them, as if each had
# `//@ expect-no-note` (nvcc writes PTX that ptxas accepts for its .target).
#
# FILE is the path relative to the repository root (the cwd of the commands).
# The binary is $PTXEMU_BUILD/ptxemu (PTXEMU_BUILD defaults to "build").
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Find;
use Text::ParseWords qw(shellwords);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(run_bounded);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $bin   = "$build/ptxemu";

my @files;
find({ wanted => sub { push @files, $File::Find::name if /\.ptx\z/ && -f $_ }, no_chdir => 1 },
    'fixtures');
@files = sort @files;

# Parse every file's directives into a list of steps.
my @cases;
for my $file (@files) {
    open(my $fh, '<', $file) or die "$file: $!";
    my (@steps, $todo, $skip, $timeout, $cur);
    my $lineno = 0;
    my $bad;
    while (my $line = <$fh>) {
        $lineno++;
        next unless $line =~ m{^\s*//@\s*(\S+)\s?(.*?)\s*$};
        my ($dir, $arg) = ($1, $2);
        if ($dir eq 'check') {
            push @steps, { kind => 'check' };
            $cur = undef;
        } elsif ($dir eq 'expect-error') {
            my $err = (grep { $_->{kind} eq 'errors' } @steps)[0];
            push @steps, ($err = { kind => 'errors', want => [] }) unless $err;
            push @{ $err->{want} }, $arg;
            $cur = undef;
        } elsif ($dir eq 'expect-note' || $dir eq 'expect-no-note') {
            my $nt = (grep { $_->{kind} eq 'notes' } @steps)[0];
            push @steps, ($nt = { kind => 'notes', want => [], none => 0 }) unless $nt;
            if ($dir eq 'expect-note') {
                push @{ $nt->{want} }, $arg;
            } else {
                $nt->{none} = 1;
            }
            if ($nt->{none} && @{ $nt->{want} }) {
                $bad = "$file:$lineno: //\@ expect-no-note together with //\@ expect-note";
                last;
            }
            $cur = undef;
        } elsif ($dir eq 'exec') {
            $cur = { kind => 'exec', args => [shellwords($arg)], stdout => undef,
                     stderr => [], exit => 0, line => $lineno };
            push @steps, $cur;
        } elsif ($dir =~ /^expect-(stdout|stderr|exit)$/) {
            if (!$cur) {
                $bad = "$file:$lineno: //\@ $dir without a preceding //\@ exec";
                last;
            }
            if ($1 eq 'stdout') {
                push @{ $cur->{stdout} //= [] }, $arg;
            } elsif ($1 eq 'stderr') {
                push @{ $cur->{stderr} }, $arg;
            } else {
                $cur->{exit} = $arg;
            }
        } elsif ($dir eq 'timeout') {
            $timeout = $arg;
        } elsif ($dir eq 'todo') {
            $todo = $arg eq '' ? 'todo' : $arg;
        } elsif ($dir eq 'skip') {
            $skip = $arg eq '' ? 'skip' : $arg;
        } elsif ($dir =~ /^(launch|expect)$/) {
            $bad = "$file:$lineno: unknown directive //\@ $dir (use exec / expect-stdout)";
            last;
        } else {
            $bad = "$file:$lineno: unknown directive //\@ $dir";
            last;
        }
    }
    close $fh;
    next unless @steps || $bad || $skip || $todo;
    push @cases, { file => $file, steps => \@steps, todo => $todo, skip => $skip,
                   timeout => $timeout // 60, bad => $bad };
}

# The nvcc-generated fixtures: one case, no note in any of them.
my @nvcc = grep { m{^fixtures/ptx/sm_[^/]+/[^/]+\.ptx\z} } @files;
push @cases, { file => 'fixtures/ptx/sm_*/*.ptx (nvcc output, ' . scalar(@nvcc) . ' files)',
               steps => [{ kind => 'nvcc-no-note', files => \@nvcc }], timeout => 60 }
    if @nvcc;

# Runs argv with a timeout; returns (status, stdout, stderr, timed_out).
sub run_cmd {
    my ($timeout, @argv) = @_;
    return run_bounded($timeout, {}, @argv);
}

sub diag_text {
    my ($label, $text) = @_;
    my @l = split /\n/, $text;
    @l = (@l[0 .. 19], "... (" . (@l - 20) . " more lines)") if @l > 20;
    return map { "#   $label| $_\n" } @l;
}

print "1..", scalar(@cases), "\n";
if (!@cases) {
    print "# no fixture with //\@ expectations found\n";
}
my $n = 0;
for my $c (@cases) {
    $n++;
    my $name = $c->{file};
    if ($c->{skip}) {
        print "ok $n - $name # SKIP $c->{skip}\n";
        next;
    }
    my @why;
    if ($c->{bad}) {
        push @why, "# $c->{bad}\n";
    } elsif (!-x $bin) {
        push @why, "# $bin is not built (run ninja)\n";
    } else {
        for my $s (@{ $c->{steps} }) {
            if ($s->{kind} eq 'check') {
                my ($code, $out, $err, $to) = run_cmd($c->{timeout}, $bin, 'check', $name);
                if ($to || $code != 0) {
                    push @why, "# ptxemu check $name: " . ($to ? "timed out" : "exit $code")
                        . ", expected 0\n", diag_text('stderr', $err);
                }
            } elsif ($s->{kind} eq 'nvcc-no-note') {
                for my $f (@{ $s->{files} }) {
                    my ($code, $out, $err, $to) = run_cmd($c->{timeout}, $bin, 'check', $f);
                    my @n = grep { /: note: / } split /\n/, $err;
                    push @why, "# ptxemu check $f: " . ($to ? "timed out" : "exit $code") . "\n"
                        if $to || $code != 0;
                    push @why, map { "#   $_\n" } @n[0 .. ($#n < 2 ? $#n : 2)] if @n;
                }
            } elsif ($s->{kind} eq 'notes') {
                my ($code, $out, $err, $to) = run_cmd($c->{timeout}, $bin, 'check', $name);
                my @w;
                push @w, "# ptxemu check $name: timed out\n" if $to;
                for my $want (@{ $s->{want} }) {
                    my ($loc, $msg) = $want =~ /^(\d+:\d+):\s*(.*)$/
                        or do { push @w, "# bad expect-note '$want' (want L:C: message)\n"; next };
                    my $line = "$name:$loc: note: $msg";
                    push @w, "# stderr lacks: $line\n" if index($err, $line) < 0;
                }
                if ($s->{none}) {
                    my @n = grep { /: note: / } split /\n/, $err;
                    push @w, "# expected no note, got " . scalar(@n) . ":\n",
                        map { "#   $_\n" } @n[0 .. ($#n < 4 ? $#n : 4)] if @n;
                }
                push @why, @w, (@w ? diag_text('stderr', $err) : ());
            } elsif ($s->{kind} eq 'errors') {
                my ($code, $out, $err, $to) = run_cmd($c->{timeout}, $bin, 'check', $name);
                if ($to || $code == 0) {
                    push @why, "# ptxemu check $name: " . ($to ? "timed out" : "exit 0")
                        . ", expected failure\n";
                }
                for my $w (@{ $s->{want} }) {
                    my ($loc, $msg) = $w =~ /^(\d+:\d+):\s*(.*)$/
                        or do { push @why, "# bad expect-error '$w' (want L:C: message)\n"; next };
                    my $want = "$name:$loc: error: $msg";
                    push @why, "# stderr lacks: $want\n" if index($err, $want) < 0;
                }
                push @why, diag_text('stderr', $err) if @why;
            } else {
                my @argv = ($bin, 'exec', $name, @{ $s->{args} });
                my ($code, $out, $err, $to) = run_cmd($c->{timeout}, @argv);
                my @w;
                if ($to) {
                    push @w, "# timed out after $c->{timeout}s\n";
                } elsif ($code != $s->{exit}) {
                    push @w, "# exit $code, expected $s->{exit}\n";
                }
                if (defined $s->{stdout}) {
                    my @got = split /\n/, $out, -1;
                    pop @got if @got && $got[-1] eq '';
                    my @exp = @{ $s->{stdout} };
                    my $max = @got > @exp ? @got : @exp;
                    for my $i (0 .. $max - 1) {
                        my ($g, $e) = ($got[$i], $exp[$i]);
                        next if defined $g && defined $e && $g eq $e;
                        push @w, "# stdout line " . ($i + 1) . ":\n",
                            "#          got: " . (defined $g ? "'$g'" : "(end of output)") . "\n",
                            "#     expected: " . (defined $e ? "'$e'" : "(end of output)") . "\n";
                        last;
                    }
                }
                for my $e (@{ $s->{stderr} }) {
                    push @w, "# stderr lacks: $e\n" if index($err, $e) < 0;
                }
                if (@w) {
                    push @why, "# ptxemu exec $name @{ $s->{args} } (line $s->{line})\n", @w,
                        diag_text('stdout', $out), diag_text('stderr', $err);
                }
            }
        }
    }
    my $todo = $c->{todo} ? " # TODO $c->{todo}" : '';
    print((@why ? "not ok" : "ok"), " $n - $name$todo\n");
    print @why;
}
