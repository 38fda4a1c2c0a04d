#!/usr/bin/env perl
# tests/bench/load_bench.pl - how loading scales with the number of kernels and with the length
# of one source line (issue 20 item 14). A measurement, never a test: it asserts nothing
# about time.
#
#   tests/bench/load_bench.pl [--build DIR] [--timeout S] [--kernels K,...] [--line N,...]
#                             [--big FILE.ptx]
#
# --big: first, interp_program_load's CPU time (median of 5) for that module as load_time
# prints it (`ninja bench-load` passes the 1,000,000-instruction module of bench-frontend).
#
# Two series of generated modules (written to DIR/bench/load/):
#   - K kernels (default 2,000 / 20,000 / 200,000): each a small .entry storing %tid.x
#     through its pointer parameter into a module-scope .shared array of its own and back
#     to global memory (8 instructions, one .shared variable per kernel);
#   - one line of N instructions (default 4,000 / 40,000): a kernel whose whole body,
#     `add.s32 %r1, %r1, 1;` N times, is one source line.
# For each module it times, as CPU seconds of the child (user + system):
#   check  `ptxemu check FILE` (front end and verifier),
#   exec   `ptxemu exec FILE --kernel k0 --grid 1 --block 1 --arg buf:zero=4` (front end,
#          program load of every kernel, one tiny launch),
#   load   interp_program_load alone (DIR/bench/load_time, median of 3 runs),
# and prints per series the time per item (kernel or instruction) relative to the smallest
# size: 1.00 is linear, 10.00 at a 10x larger size is quadratic. A command that runs longer
# than --timeout seconds (default 300) is stopped and shown as ">S".
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Path qw(make_path);
use Getopt::Long qw(GetOptions);
use POSIX qw(WNOHANG);

my $root = dirname(__FILE__) . '/../..';
my ($build, $timeout, $kernels, $line, $big) = ('build', 300, '2000,20000,200000', '4000,40000');
GetOptions('build=s' => \$build, 'timeout=i' => \$timeout, 'kernels=s' => \$kernels,
           'line=s' => \$line, 'big=s' => \$big)
    or die "usage: $0 [--build DIR] [--timeout S] [--kernels K,...] [--line N,...] "
    . "[--big FILE.ptx]\n";
my $ptxemu = "$build/ptxemu";
my $load_time = "$build/bench/load_time";
-x $ptxemu or die "load_bench: $ptxemu not built\n";
-x $load_time or die "load_bench: $load_time not built\n";
my $dir = "$build/bench/load";
make_path($dir);

my $header = ".version 8.0\n.target sm_80\n.address_size 64\n\n";

sub gen_kernels {
    my ($k, $path) = @_;
    open(my $fh, '>', $path) or die "$path: $!";
    print $fh $header;
    for my $i (0 .. $k - 1) {
        print $fh <<"EOF";
.shared .align 4 .b8 s$i\[16];
.visible .entry k$i(.param .u64 k${i}_p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [k${i}_p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	st.shared.u32 [s$i], %r1;
	bar.sync 0;
	ld.shared.u32 %r2, [s$i];
	st.global.u32 [%rd2], %r2;
	ret;
}
EOF
    }
    close $fh or die "$path: $!";
}

sub gen_line {
    my ($n, $path) = @_;
    open(my $fh, '>', $path) or die "$path: $!";
    print $fh $header;
    print $fh ".visible .entry k0(.param .u64 k0_p)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<3>;\n";
    print $fh "\tmov.u32 %r1, 0; ", 'add.s32 %r1, %r1, 1; ' x $n,
        "ld.param.u64 %rd1, [k0_p]; cvta.to.global.u64 %rd2, %rd1; st.global.u32 [%rd2], %r1;\n";
    print $fh "\tret;\n}\n";
    close $fh or die "$path: $!";
}

# Run a command with output captured; CPU seconds of the command (user + system, to the
# millisecond: bash's `time`), or undef after the timeout (its process group is killed).
sub cpu_of {
    my ($out, @cmd) = @_;
    my $pid = fork // die "fork: $!";
    if (!$pid) {
        setpgrp(0, 0);
        exec 'bash', '-c', 'TIMEFORMAT="%3U %3S"; out=$1; shift; '
            . '{ time "$@" >"$out" 2>&1; } 2>"$out.cpu"', 'bash', $out, @cmd
            or die "exec bash: $!";
    }
    my $deadline = time + $timeout;
    while (waitpid($pid, WNOHANG) == 0) {
        if (time > $deadline) {
            kill 'KILL', -$pid;
            waitpid($pid, 0);
            return undef;
        }
        select(undef, undef, undef, 0.05);
    }
    my $rc = $? >> 8;
    die "load_bench: '@cmd' failed (exit $rc), see $out\n" if $rc != 0;
    open(my $fh, '<', "$out.cpu") or die "$out.cpu: $!";
    my $cpu = <$fh> // '';
    $cpu =~ /^([0-9.]+) ([0-9.]+)/ or die "load_bench: no CPU time in $out.cpu\n";
    return $1 + $2;
}

# interp_program_load's median CPU time as load_time reports it, or undef after the timeout.
sub load_of {
    my ($path) = @_;
    my $out = "$path.load_time";
    return undef unless defined cpu_of($out, $load_time, '-n', 3, $path);
    open(my $fh, '<', $out) or die "$out: $!";
    local $/;
    my $text = <$fh>;
    $text =~ /; load ([0-9.]+) s/ or die "load_bench: no load time in $out\n";
    return $1;
}

sub fmt {
    my ($t) = @_;
    return defined $t ? sprintf("%8.4f", $t) : sprintf('%8s', ">$timeout");
}

# Time per item relative to the first size's (1.00 = linear).
sub ratio {
    my ($t, $n, $t0, $n0) = @_;
    return sprintf('%6s', '-') unless defined $t && defined $t0 && $t0 > 0;
    return sprintf('%6.2f', ($t / $n) / ($t0 / $n0));
}

sub series {
    my ($title, $unit, $gen, @sizes) = @_;
    print "$title\n";
    printf "%10s %8s %8s %8s   %s\n", $unit, 'check s', 'exec s', 'load s',
        "per-$unit time vs the first size (1.00 = linear): check exec load";
    my @first;
    for my $n (@sizes) {
        my $path = "$dir/" . ($unit eq 'kernels' ? "k$n" : "line$n") . '.ptx';
        $gen->($n, $path);
        my $c = cpu_of("$path.check", $ptxemu, 'check', $path);
        my $e = cpu_of("$path.exec", $ptxemu, 'exec', $path, '--kernel', 'k0', '--grid', '1',
                       '--block', '1', '--arg', 'buf:zero=4');
        my $l = load_of($path);
        @first = ($n, $c, $e, $l) unless @first;
        printf "%10d %s %s %s   %s %s %s\n", $n, fmt($c), fmt($e), fmt($l),
            ratio($c, $n, $first[1], $first[0]), ratio($e, $n, $first[2], $first[0]),
            ratio($l, $n, $first[3], $first[0]);
    }
    print "\n";
}

$| = 1;
if (defined $big) {
    my $out = "$dir/big.load_time";
    my $t = cpu_of($out, $load_time, '-n', 5, $big);
    open(my $fh, '<', $out) or die "$out: $!";
    print defined $t ? <$fh> : "$big: load_time took more than $timeout s\n";
    print "\n";
}
series('Modules of K small kernels (one .shared array each)', 'kernels', \&gen_kernels,
       split /,/, $kernels);
series('One source line of N instructions', 'insns', \&gen_line, split /,/, $line);
