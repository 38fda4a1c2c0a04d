#!/usr/bin/env perl
# tests/nvcc_matrix.t - the front end takes everything nvcc 13 writes for sm_75 … sm_121 at
# -O0 … -O3, with -G, -lineinfo and -rdc (issue 3, item 2), and PTX for the newest targets runs.
#
# Part 1, one TAP line per (configuration, fixtures/cuda/NAME.cu): `nvcc -arch=ARCH -ptx FLAGS`
# into a temporary directory, then
#   - `ptxemu check` exits 0 and prints nothing at all (no error and no note: a note means
#     frontend/isa_req.def disagrees with nvcc about a .target / .version);
#   - `ptxemu print` (P1) succeeds and `ptxemu print P1` equals P1 after the header comment;
#   - P1 assembles with `ptxas -arch=<its .target>` (`-c` for -rdc and .extern modules;
#     skipped without ptxas).
# The -rdc configuration also compiles fixtures/cuda/rt_rdc/*.cu.  Targets newer than sm_100
# that `nvcc --list-gpu-arch` does not list are left out (a comment line says so).
#
# Part 2, one TAP line per executable: a few self-checking programs built with `-cudart shared`
# and a fat binary holding only PTX for compute_100 or compute_120 (four also with -G; in
# its_collectives and cg_groups the lanes reach -G's __shfl_sync and barrier calls through a
# .func on two paths); the fat
# binary must list exactly that PTX (`ptxemu fatbin`), and the program run with
# LD_LIBRARY_PATH=$PTXEMU_BUILD/lib on an emulated device of that compute capability
# (the Blackwell presets: PTXEMU_DEVICE=b200 for compute_100, rtx5090 for compute_120) must
# exit 0 and print PASS.
#
# Two nvcc (with their checks) at a time: about 3 minutes on 2 cores (~300 CPU-seconds).
# Needs only the release build and does not depend on it otherwise, so scripts/test.sh runs
# it in the first pass only.  Without nvcc the whole test is skipped.  PTXEMU_TIMEOUT
# (seconds, default 300) bounds each command.  On a failure the TAP comment gives the
# commands to reproduce it.
use strict;
use warnings;
use File::Basename qw(dirname basename);
use File::Temp qw(tempdir);
use Cwd qw(getcwd);
use POSIX ();
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(find_nvcc run_bounded);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $root    = getcwd();
my $build   = $ENV{PTXEMU_BUILD} // 'build';
my $bin     = "$build/ptxemu";
my $timeout = $ENV{PTXEMU_TIMEOUT} // 300;

my $nvcc = find_nvcc();
if (!$nvcc) {
    print "1..0 # SKIP nvcc not found\n";
    exit 0;
}
my $ptxas = dirname($nvcc) . '/ptxas';
if (!-x $ptxas) {
    chomp($ptxas = `command -v ptxas 2>/dev/null` // '');
}

# --------------------------------------------------------------------------- configurations

my %listed = map { $_ => 1 } split /\s+/, `$nvcc --list-gpu-arch 2>/dev/null`;
# [arch, flags]
my @want = (
    ['sm_75',   '-Xcicc -O0'],
    ['sm_86',   '-Xcicc -O1 -lineinfo'],
    ['sm_89',   '-Xcicc -O2'],
    ['sm_90a',  '-O3 -lineinfo'],
    ['sm_100',  '-O3'],
    ['sm_100a', '-G'],
    ['sm_103',  '-O3 -rdc=true'],
    ['sm_110',  '-O3'],
    ['sm_120',  '-lineinfo'],
    ['sm_121',  '-O3'],
);
my (@configs, @left_out);
for my $c (@want) {
    (my $base = $c->[0]) =~ s/[af]\z//;
    (my $num = $base) =~ s/\D//g;
    if ($num > 100 && !$listed{"compute_$num"} && !$listed{$base}) {
        push @left_out, $c->[0];
        next;
    }
    push @configs, $c;
}

my @srcs = sort glob('fixtures/cuda/*.cu');
my @rdc_srcs = sort glob('fixtures/cuda/rt_rdc/*.cu');

# Part 1 jobs: [label, arch, flags, source]
my @jobs;
# The architecture a source needs: its `// fixtures: sm_NN` first line, 0 for any.
sub min_sm {
    my ($src) = @_;
    open(my $fh, '<', $src) or return 0;
    my $l = <$fh> // '';
    return $l =~ m{^// fixtures: sm_(\d+)} ? $1 : 0;
}
for my $c (@configs) {
    my ($arch, $flags) = @$c;
    my ($sm) = $arch =~ /^sm_(\d+)/;
    my @s = grep { $sm >= min_sm($_) } @srcs;
    push @s, @rdc_srcs if $flags =~ /-rdc=true/;
    push @jobs, map { { kind => 'ptx', arch => $arch, flags => $flags, src => $_ } } @s;
}

# Part 2 jobs: [program, compute, flags]
my @exe = (
    [qw(matmul_tiled 100 -O3)], [qw(atomics 100 -O3)], [qw(reduce_warp 100 -O3)],
    [qw(matmul_tiled 120 -O3)], [qw(atomics 120 -O3)], [qw(reduce_warp 120 -O3)],
    [qw(scan 120 -O3)], [qw(vote_ballot 120 -O3)], [qw(math_funcs 120 -O3)],
    [qw(matmul_tiled 120 -G)], [qw(atomics 120 -G)], [qw(its_collectives 100 -G)],
    [qw(cg_groups 100 -G)],
);
push @jobs, map { { kind => 'exe', name => $_->[0], cc => $_->[1], flags => $_->[2] } } @exe;

# ------------------------------------------------------------------------------- helpers

my $tmp = tempdir(CLEANUP => 1);

# Runs argv bounded by $timeout; returns (code, out, err), code 'timeout' or 'signal N' when so.
sub run_cmd {
    my ($env, @argv) = @_;
    my ($code, $out, $err, $to) = run_bounded($timeout, $env, @argv);
    $code = $to ? 'timeout' : $code > 128 ? 'signal ' . ($code - 128) : $code;
    return ($code, $out, $err);
}

sub slurp {
    my ($path) = @_;
    open(my $fh, '<', $path) or return '';
    local $/;
    my $t = <$fh>;
    return $t // '';
}

sub spew {
    my ($path, $text) = @_;
    open(my $fh, '>', $path) or die "$path: $!";
    print $fh $text;
    close $fh;
}

sub lines {
    my ($label, $text) = @_;
    my @l = split /\n/, $text;
    @l = (@l[0 .. 19], '... (' . (@l - 20) . ' more lines)') if @l > 20;
    return join '', map { "#   $label| $_\n" } @l;
}

sub strip_header { my $t = shift; $t =~ s{\A//\n//[^\n]*\n//\n}{}; $t }

# nvcc's flags as a list, and as one shell line
sub cmdline { join ' ', map { /[\s']/ ? "'$_'" : $_ } @_ }

my $libdir = ($build =~ m{^/} ? $build : "$root/$build") . '/lib';
my %run_env = (LD_LIBRARY_PATH => $libdir . ($ENV{LD_LIBRARY_PATH} ? ":$ENV{LD_LIBRARY_PATH}" : ''));
if ($build =~ /asan/) {
    chomp(my $asan = `gcc -print-file-name=libasan.so`);
    $run_env{LD_PRELOAD} = $asan if $asan =~ m{/};
}

# One (config, file): the TAP description and '' or the failure text.
sub ptx_job {
    my ($j, $dir) = @_;
    my $name = basename($j->{src}, '.cu');
    $name = "rt_rdc_$name" if $j->{src} =~ m{/rt_rdc/};
    my $ptx = "$dir/$name.ptx";
    my @nv = ($nvcc, "-arch=$j->{arch}", '-ptx', split(/ /, $j->{flags}), $j->{src}, '-o', $ptx);
    my $repro = "#   " . cmdline(@nv[0 .. $#nv - 2], '-o', "$name.ptx") . "\n";
    my ($code, $out, $err) = run_cmd({}, @nv);
    return $repro . "#   nvcc: exit $code\n" . lines('nvcc', $out . $err) if $code ne '0';

    ($code, $out, $err) = run_cmd({}, $bin, 'check', $ptx);
    if ($code ne '0' || $out ne '' || $err ne '') {
        return $repro . "#   $bin check $name.ptx: exit $code\n" . lines('check', $out . $err);
    }
    ($code, my $p1, $err) = run_cmd({}, $bin, 'print', $ptx);
    if ($code ne '0' || $err ne '') {
        return $repro . "#   $bin print $name.ptx: exit $code\n" . lines('print', $err);
    }
    spew("$dir/$name.p1.ptx", $p1);
    ($code, my $p2, $err) = run_cmd({}, $bin, 'print', "$dir/$name.p1.ptx");
    if ($code ne '0' || $err ne '') {
        return $repro . "#   $bin print $name.ptx > p1.ptx; $bin print p1.ptx: exit $code\n"
            . lines('print', $err);
    }
    if (strip_header($p1) ne strip_header($p2)) {
        my @a = split /\n/, strip_header($p1);
        my @b = split /\n/, strip_header($p2);
        my $i = 0;
        $i++ while $i < @a && $i < @b && $a[$i] eq $b[$i];
        return $repro . "#   $bin print $name.ptx > p1.ptx; $bin print p1.ptx > p2.ptx:"
            . " differ at line " . ($i + 4) . "\n"
            . "#     p1: " . ($a[$i] // '(end of file)') . "\n"
            . "#     p2: " . ($b[$i] // '(end of file)') . "\n";
    }
    return '' unless $ptxas;
    my ($target) = $p1 =~ /^\.target\s+(sm_\w+?)\s*(?:,|$)/m;
    return $repro . "#   p1.ptx has no .target sm_XX line\n" unless $target;
    my @c = ($j->{flags} =~ /-rdc=true/ || $p1 =~ /^\s*\.extern\b|\.attribute\(\.unified/m)
        ? ('-c') : ();
    my @pa = ($ptxas, @c, "-arch=$target", "$dir/$name.p1.ptx", '-o', "$dir/$name.cubin");
    ($code, $out, $err) = run_cmd({}, @pa);
    if ($code ne '0') {
        return $repro . "#   $bin print $name.ptx > p1.ptx; "
            . cmdline($ptxas, @c, "-arch=$target", 'p1.ptx', '-o', '/dev/null')
            . ": exit $code\n" . lines('ptxas', $out . $err);
    }
    unlink "$dir/$name.cubin", "$dir/$name.p1.ptx";
    return '';
}

# One executable: build, look at its fat binary, run.
sub exe_job {
    my ($j, $dir) = @_;
    my ($name, $cc, $flags) = @$j{qw(name cc flags)};
    my $exe = "$dir/$name";
    my @nv = ($nvcc, '-cudart', 'shared', split(/ /, $flags),
        "-gencode=arch=compute_$cc,code=compute_$cc", "fixtures/cuda/$name.cu", '-o', $exe);
    my $repro = "#   " . cmdline(@nv[0 .. $#nv - 1], $name) . "\n";
    my ($code, $out, $err) = run_cmd({}, @nv);
    return $repro . "#   nvcc: exit $code\n" . lines('nvcc', $out . $err) if $code ne '0';
    ($code, $out, $err) = run_cmd({}, $bin, 'fatbin', $exe);
    my @entries = $out =~ /^\s+(PTX|ELF)\s+(\S+)/mg;
    if ($code ne '0' || "@entries" ne "PTX compute_$cc") {
        return $repro . "#   $bin fatbin $name: exit $code, want exactly one entry"
            . " 'PTX compute_$cc'\n" . lines('fatbin', $out . $err);
    }
    # never the real libcudart (it may be in the ld.so cache)
    ($code, $out) = run_cmd({ %run_env, LD_TRACE_LOADED_OBJECTS => 1, LD_PRELOAD => '' }, $exe);
    my $where = $out =~ /^\s*libcudart\.so\.13 => (\S+)/m ? $1 : '(not found)';
    if ($where !~ m{^\Q$libdir\E/}) {
        return $repro . "#   $name would load libcudart.so.13 from '$where', not $libdir\n";
    }
    my $dev = preset($cc);
    ($code, $out, $err) = run_cmd({ %run_env, PTXEMU_DEVICE => $dev }, $exe);
    if ($code ne '0' || $out !~ /^PASS$/m) {
        return $repro . "#   PTXEMU_DEVICE=$dev LD_LIBRARY_PATH=$build/lib ./$name: exit $code"
            . ($out =~ /^PASS$/m ? '' : ', no PASS line') . "\n"
            . lines('stdout', $out) . lines('stderr', $err);
    }
    return '';
}

# The device preset of a compute capability (runtime/device.c).
sub preset { my ($cc) = @_; return { 100 => 'b200', 120 => 'rtx5090' }->{$cc} // "sm_$cc" }

sub describe {
    my ($j) = @_;
    if ($j->{kind} eq 'ptx') {
        my $f = $j->{src} =~ s{^fixtures/cuda/}{}r;
        return "nvcc -arch=$j->{arch} -ptx $j->{flags}: $f";
    }
    return "run $j->{name} built with $j->{flags} -gencode arch=compute_$j->{cc},"
        . "code=compute_$j->{cc} on PTXEMU_DEVICE=" . preset($j->{cc});
}

# ------------------------------------------------------------------------------- run

print "1..", scalar(@jobs), "\n";
print "# nvcc --list-gpu-arch does not list @left_out: left out\n" if @left_out;
print "# ptxas not found: printed PTX is not assembled\n" unless $ptxas;

# Two jobs at a time; each child writes its verdict to $tmp/N.result.
my (%running, $next);
$next = 0;
my $printed = 0;
sub report_ready {
    while ($printed < @jobs && -e "$tmp/$printed.done") {
        my $why = slurp("$tmp/$printed.result");
        my $k = $printed + 1;
        print(($why eq '' ? 'ok' : 'not ok'), " $k - ", describe($jobs[$printed]), "\n", $why);
        $printed++;
    }
}
while ($next < @jobs || %running) {
    while ($next < @jobs && keys(%running) < 2) {
        my $i = $next++;
        my $pid = fork();
        die "fork: $!" unless defined $pid;
        if ($pid == 0) {
            my $dir = "$tmp/job$i";
            mkdir $dir or die "$dir: $!";
            my $j = $jobs[$i];
            my $why = eval { $j->{kind} eq 'ptx' ? ptx_job($j, $dir) : exe_job($j, $dir) };
            $why = "#   test died: $@" unless defined $why;
            $why =~ s{\Q$dir\E/}{}g;
            spew("$tmp/$i.result", $why);
            spew("$tmp/$i.done", '');
            system('rm', '-rf', $dir);
            POSIX::_exit(0);
        }
        $running{$pid} = $i;
    }
    my $pid = waitpid(-1, 0);
    if ($pid > 0 && exists $running{$pid}) {
        my $i = delete $running{$pid};
        if (!-e "$tmp/$i.done") {
            spew("$tmp/$i.result", "#   the test's worker process died (status $?)\n");
            spew("$tmp/$i.done", '');
        }
    }
    report_ready();
}
report_ready();
