#!/usr/bin/env perl
# tests/clc.t - cluster launch control (interp/clc.c): fixtures/cuda/clc_persistent.cu, a
# persistent tile scheduler built on clusterlaunchcontrol.try_cancel / query_cancel as CUTLASS's
# sm100 scheduler does (64 CTAs; 32 clusters of 2 with .multicast::cluster::all; 64 CTAs through
# CCCL's cuda::for_each_canceled_block).
#
# Without nvcc: its committed PTX (fixtures/ptx/sm_100/clc_persistent.ptx) under `ptxemu exec`,
# each kernel with every tile's element checked against this test's own copy of elem(), every
# tile (half tile) computed exactly once (count[] all 1), and the tiles computed by another CTA
# (the cancelled ones: owner[] says who computed each) counted: on one host thread in the
# deterministic mode CTA 0 (cluster 0) runs alone and steals every other tile (63, 31, 63), on
# two each host thread steals its own sequence's (62, 30, 62: worker i runs i, i + 2, ...); on the
# default threads, --threads 2 and under --check all (no finding) at least one; under --timing
# on a b200 of 2 SMs (16 CTAs of 128 threads each at once) the 32 CTAs (16 clusters) that do not
# fit at first are cancelled (32, 16, 32), the same on 1 and 2 host threads.
# With nvcc: the program itself (its host check prints PASS) in the same configurations.
use strict;
use warnings;
use File::Basename qw(dirname);
use Cwd qw(getcwd);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(find_nvcc run_bounded ok skip tap_done);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $root = getcwd();
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $ptxemu = "$build/ptxemu";
my $ptx = 'fixtures/ptx/sm_100/clc_persistent.ptx';
my ($T, $TILES, $ITER) = (128, 64, 24);

# the program's elem(tile, i)
sub elem {
    my ($tile, $i) = @_;
    my $x = ($tile * 2654435761 + $i * 40503 + 7) & 0xffffffff;
    for my $k (0 .. $ITER - 1) {
        $x ^= $x >> 15;
        $x = ($x * 0x2c1b3c6d) & 0xffffffff;
        $x ^= $x >> 12;
        $x = ($x + $k) & 0xffffffff;
    }
    return $x;
}
# the expected out[]: tile t of nhalf parts is elements t * nhalf * T ... of elem(t, e)
my %ref;
for my $nhalf (1, 2) {
    for my $t (0 .. $TILES / $nhalf - 1) {
        push @{$ref{$nhalf}}, elem($t, $_) for 0 .. $nhalf * $T - 1;
    }
}

# One exec of kernel $k (nhalf tiles parts per tile) with options @o: (error, stolen count).
sub run_kernel {
    my ($k, $nhalf, @o) = @_;
    my ($code, $out, $err, $to) = run_bounded(
        300, {}, $ptxemu, 'exec', $ptx, '--kernel', $k, '--grid', $TILES, '--block', $T,
        '--device', 'sm=100', @o, '--arg', 'buf:zero=' . ($TILES * $T * 4), '--arg',
        'buf:zero=256', '--arg', 'buf:zero=256', '--print', "0:u32:" . ($TILES * $T),
        '--print', '1:u32:64', '--print', '2:u32:64');
    return ("timed out") if $to;
    return ("exit $code: $err") if $code;
    my @v = split /\n/, $out;
    return ("got " . scalar(@v) . " values, not " . ($TILES * $T + 128)) if @v != $TILES * $T + 128;
    my @out = @v[0 .. $TILES * $T - 1];
    my @owner = @v[$TILES * $T .. $TILES * $T + 63];
    my @count = @v[$TILES * $T + 64 .. $TILES * $T + 127];
    my $ref = $ref{$nhalf};
    for my $i (0 .. $#$ref) {
        return ("element $i: $out[$i], not $ref->[$i]") if $out[$i] != $ref->[$i];
    }
    for my $s (0 .. 63) {
        return ("tile part $s computed $count[$s] times") if $count[$s] != 1;
    }
    my $stolen = 0;
    for my $t (0 .. 64 / $nhalf - 1) {
        my $o = $owner[$t * $nhalf];
        $stolen++ if $o != $t * $nhalf;
        for my $h (1 .. $nhalf - 1) {
            return ("tile $t: parts computed by clusters " . int($o / $nhalf) . " and " .
                    int($owner[$t * $nhalf + $h] / $nhalf))
                if int($owner[$t * $nhalf + $h] / $nhalf) != int($o / $nhalf);
        }
    }
    return (undef, $stolen, $err);
}

my @k = (['_Z9clc_tilesPjS_S_', 1, 'clc_tiles', 64],
         ['_Z17clc_tiles_clusterPjS_S_', 2, 'clc_tiles_cluster', 32],
         ['_Z8clc_ccclPjS_S_', 1, 'clc_cccl', 64]);
my @modes = (
    ['default threads', [], undef],
    ['--threads 1 --deterministic', ['--threads', 1, '--deterministic'], [63, 31, 63]],
    ['--threads 2 --deterministic', ['--threads', 2, '--deterministic'], [62, 30, 62]],
    ['--threads 2', ['--threads', 2], undef],
    ['--check all', ['--check', 'all'], undef],
    ['--timing (b200, 2 SMs) --threads 1', ['--device', 'b200,nsm=2', '--timing', '--threads', 1],
     [32, 16, 32]],
    ['--timing (b200, 2 SMs) --threads 2', ['--device', 'b200,nsm=2', '--timing', '--threads', 2],
     [32, 16, 32]],
);
for my $m (@modes) {
    my ($name, $o, $want) = @$m;
    for my $i (0 .. $#k) {
        my ($kname, $nhalf, $short, $tiles) = @{$k[$i]};
        my ($e, $stolen, $err) = run_kernel($kname, $nhalf, @$o);
        if ($e) {
            ok(0, "$short, $name: every tile once, exact", $e);
            next;
        }
        if ($name =~ /check/ && $err !~ /ERROR SUMMARY: 0 errors/) {
            ok(0, "$short, $name: clean", $err);
            next;
        }
        if (defined $want) {
            ok($stolen == $want->[$i], "$short, $name: every tile once, exact; $stolen of $tiles "
                   . "tiles cancelled and stolen", "expected $want->[$i]");
        } else {
            ok($stolen > 0, "$short, $name: every tile once, exact; some tiles cancelled and "
                   . "stolen", "stolen: $stolen");
        }
    }
}

# The CUDA program (needs nvcc to build it).
my $nvcc = find_nvcc();
my $exe = 'build/fixtures/clc_persistent';
my $src = 'fixtures/cuda/clc_persistent.cu';
if ($nvcc && (!-x $exe || -M $exe > -M $src)) {
    local $ENV{NVCC} = $nvcc;
    `scripts/gen-fixtures.sh --exe --variants '' clc_persistent 2>&1`;
}
# the ASan build's library in a program that is not: its runtime first
my %asan;
if ($build =~ /asan/) {
    chomp(my $so = `gcc -print-file-name=libasan.so`);
    $asan{LD_PRELOAD} = $so if $so =~ m{/};
}
my @pmodes = (
    ['default threads', ['--device', 'sm=100'], undef],
    ['--threads 1 --deterministic', ['--device', 'sm=100', '--threads', 1, '--deterministic'],
     [63, 31, 63]],
    ['--threads 2 --deterministic', ['--device', 'sm=100', '--threads', 2, '--deterministic'],
     [62, 30, 62]],
    ['--threads 1', ['--device', 'sm=100', '--threads', 1], undef],
    ['--threads 2', ['--device', 'sm=100', '--threads', 2], undef],
    ['--check all', ['--device', 'sm=100', '--check', 'all'], undef],
    ['--timing (b200, 2 SMs)', ['--device', 'b200,nsm=2', '--timing'], [32, 16, 32]],
    ['--timing (b200, 2 SMs) --threads 2', ['--device', 'b200,nsm=2', '--timing', '--threads', 2],
     [32, 16, 32]],
);
for my $m (@pmodes) {
    my ($name, $o, $want) = @$m;
    if (!$nvcc || !-x $exe) {
        skip("nvcc not found: clc_persistent not built");
        next;
    }
    my ($code, $out, $err, $to) = run_bounded(300, {%asan}, $ptxemu, 'run', @$o, '--', $exe);
    my @got = $out =~ /^clc_\w+: (\d+) of \d+ tiles computed by a CTA that cancelled/mg;
    my $good = !$to && $code == 0 && $out =~ /^PASS$/m && @got == 3;
    $good &&= $err =~ /ERROR SUMMARY: 0 errors/ if $name =~ /check/;
    $good &&= defined $want ? "@got" eq "@$want" : !grep { $_ == 0 } @got if $good;
    ok($good, "clc_persistent, $name: PASS, " .
           (defined $want ? "cancelled @$want" : 'some cancelled') . " (got @got)",
       $to ? 'timed out' : "exit $code", $out, $err);
}
exit(tap_done());
