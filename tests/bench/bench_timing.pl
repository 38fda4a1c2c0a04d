#!/usr/bin/perl
# tests/bench/bench_timing.pl — timing-mode simulation speed (issue 24 items 4 and 6): the
# benchmark kernels of bench.list under each timing preset, one `ptxemu exec --timing=PRESET`
# run each with --threads 1 (median of --runs), printing simulated warp instructions per host
# second, simulated cycles per host second and GPGPU-Sim's published rate on this class of
# machine as the reference column (19–38 K warp instructions/s, 300–1,000 cycles/s: issue 24);
# then the same run with --threads 2 (median of --runs): the 1 → 2 thread gain (host seconds
# of 1 thread / of 2 threads), the host's co-run ceiling for it (two --threads 1 runs at once
# as two processes against one alone: 2 x host s / the slower of the pair, median of --runs;
# cores sharing caches or memory bandwidth, or a loaded host, show as a ceiling below 2 that
# bounds the gain, as in bench.pl), and a check that the `--timing-stats` JSON of a 1-thread
# and a 2-thread run are byte for byte identical ("same"; "DIFF" otherwise; these two runs are
# not timed, since a profiled kernel does not skip idle cycles). --no-threads leaves those
# columns out. Then the relaxed mode (issue 24 item 2, `--timing-relaxed`, quantum
# --quantum Q, default the mode's own): its host seconds with 1 and 2 threads (median of
# --runs), the 1 -> 2 thread gain ("rgain"), the 2-thread run against the exact mode's
# 1-thread one ("vs ex"), its cycle error against the exact mode (signed, % of the exact
# cycles; "err") and whether its 1- and 2-thread statistics logs are the same apart from the
# host-time lines ("rsame"). --no-relaxed leaves those columns out. Then the lookahead mode
# (issue 24 item 1, `--timing-lookahead W`, window --window W, default 32): its host
# seconds with 1 and 2 threads (median of --runs), the gain ("lgain"), the 2-thread run
# against the exact mode's 1-thread one ("lvs ex"), its cycle difference against the exact
# mode ("lerr") and whether the 1- and 2-thread `--timing-stats` JSON and statistics logs are
# byte for byte the same ("lsame"; "DIFF" makes the exit status 1, as for the exact mode).
# --no-lookahead leaves those columns out. Grids are scaled down by --scale (default 16: the first 1/16 of each grid's
# blocks in x, at least one) so a run takes seconds; the rates are per simulated instruction
# and cycle, which the grid size hardly moves once every SM is busy. Writes JSON (default
# build/bench-timing.json; per row also host_s_2t, gain_2t, corun_ceiling and
# stats_identical_2t, and relaxed_cycles, relaxed_err_pct, host_s_relaxed_1t,
# host_s_relaxed_2t, gain_relaxed_2t, relaxed_vs_exact_2t, relaxed_same_1t_2t, and
# lookahead_cycles, lookahead_err_pct, host_s_lookahead_1t, host_s_lookahead_2t,
# gain_lookahead_2t, lookahead_vs_exact_2t, lookahead_identical_2t). A
# measurement, never a test: nothing here asserts on time (a difference of the statistics is
# reported, and makes the exit status 1).
#   usage: bench_timing.pl [--build DIR] [--json PATH] [--runs N] [--presets a,b] [--scale N]
#                          [--no-threads] [--no-relaxed] [--quantum Q] [--no-lookahead]
#                          [--window W] [NAME...]
use strict;
use warnings;
use File::Basename qw(dirname);
use Getopt::Long;
use File::Temp qw(tempdir);
use POSIX qw(floor);

my $dir     = dirname(__FILE__);
my $build   = $ENV{PTXEMU_BUILD} // 'build';
my $json;
my $runs    = 1;
my $presets = 'qv100,rtx3070,a100,h100';
my $scale   = 16;
my $threads = 1;
my $relaxed = 1;
my $quantum = 0;
my $lookahead = 1;
my $window = 32;
GetOptions('build=s' => \$build, 'json=s' => \$json, 'runs=i' => \$runs,
           'presets=s' => \$presets, 'scale=i' => \$scale, 'threads!' => \$threads,
           'relaxed!' => \$relaxed, 'quantum=i' => \$quantum, 'lookahead!' => \$lookahead,
           'window|lookahead-window=i' => \$window)
    or die "usage: bench_timing.pl [--build DIR] [--json PATH] [--runs N] [--presets LIST] "
         . "[--scale N] [--no-threads] [--no-relaxed] [--quantum Q] [--no-lookahead] "
         . "[--window W] [NAME...]\n";
my $rlx = '--timing-relaxed' . ($quantum ? " --timing-quantum $quantum" : '');
my $lka = "--timing-lookahead $window";
my $tmp = tempdir(CLEANUP => 1);
$json //= "$build/bench-timing.json";
my %only = map { $_ => 1 } @ARGV;
sub median { my @s = sort { $a <=> $b } @_; return $s[floor($#s / 2)]; }
sub slurp { open my $f, '<', $_[0] or return ''; local $/; my $s = <$f>; return $s; }

# one run: (cycles, warp instructions, host seconds, the statistics log without its host-time
# lines) from the statistics log; $mode: extra options (the relaxed mode's)
sub run_one {
    my ($name, $args, $p, $t, $stats, $mode) = @_;
    my $extra = defined $stats ? " --timing-stats $stats" : '';
    $extra .= " $mode" if $mode;
    my $out = `$build/ptxemu exec $dir/kernels_sm80.ptx --kernel $name $args --threads $t --timing=$p$extra 2>&1 >/dev/null`;
    die "bench_timing $name $p --threads $t: ptxemu exec failed:\n$out" if $?;
    my ($c) = $out =~ /^gpu_sim_cycle = (\d+)/m or die "no gpu_sim_cycle in:\n$out";
    my ($w) = $out =~ /^gpgpu_n_tot_w_icount = (\d+)/m or die "no warp count";
    my ($s) = $out =~ /^gpgpu_simulation_time = ([0-9.]+) sec/m or die "no time";
    $s = 1e-6 if $s < 1e-6;
    (my $log = $out) =~ s/^gpgpu_simulation_(?:time|rate) = .*\n//mg;
    return ($c, $w, $s, $log);
}

# two --threads 1 runs at once: host seconds of the slower
sub corun {
    my ($name, $args, $p) = @_;
    my $cmd = "$build/ptxemu exec $dir/kernels_sm80.ptx --kernel $name $args --threads 1 --timing=$p 2>&1 >/dev/null";
    my @h = map { open(my $h, '-|', $cmd) or die "bench_timing $name: $!\n"; $h } 0, 1;
    my $max = 0;
    for my $h (@h) {
        my $out = do { local $/; <$h> };
        close $h;
        my ($s) = $out =~ /^gpgpu_simulation_time = ([0-9.]+) sec/m
            or die "bench_timing $name $p: no time in a co-run:\n$out";
        $max = $s if $s > $max;
    }
    return $max < 1e-6 ? 1e-6 : $max;
}

my @kernels;
open my $fh, '<', "$dir/bench.list" or die "bench.list: $!";
while (<$fh>) {
    next if /^\s*(#|$)/;
    my ($name, $class, $check, $args) = /^(\S+)\s+(\S+)\s+(\S+)\s+(.*?)\s*$/ or next;
    next if %only && !$only{$name};
    # scale the grid's x extent down
    $args =~ s{--grid (\d+)(,\d+)?}{
        my ($x, $rest) = ($1, $2 // '');
        my $nx = int($x / $scale); $nx = 1 if $nx < 1;
        "--grid $nx$rest"
    }e;
    push @kernels, [$name, $args];
}
close $fh;

my @rows;
my $differ = 0;
printf "%-13s %-8s %12s %12s %12s %10s %9s", 'kernel', 'preset', 'warp insns', 'cycles',
    'winsn/s', 'cycles/s', 'host s';
printf " %9s %6s %6s %5s", '2t host s', 'gain', 'ceil', 'stats' if $threads;
printf " %9s %9s %6s %6s %7s %5s", 'rlx 1t s', 'rlx 2t s', 'rgain', 'vs ex', 'err', 'rsame'
    if $relaxed;
printf " %9s %9s %6s %6s %7s %5s", 'la 1t s', 'la 2t s', 'lgain', 'lvs ex', 'lerr', 'lsame'
    if $lookahead;
print "\n";
for my $p (split /,/, $presets) {
    for my $k (@kernels) {
        my ($name, $args) = @$k;
        my (@wr, @cr, @hs);
        my ($w, $c) = (0, 0);
        for (1 .. $runs) {
            my $s;
            ($c, $w, $s) = run_one($name, $args, $p, 1);
            push @wr, $w / $s;
            push @cr, $c / $s;
            push @hs, $s;
        }
        my $row = {kernel => $name, preset => $p, warp_insns => $w + 0, cycles => $c + 0,
                   warp_insns_per_s => median(@wr), cycles_per_s => median(@cr),
                   host_s => median(@hs)};
        printf "%-13s %-8s %12d %12d %12.0f %10.0f %9.2f", $name, $p, $w, $c,
            $row->{warp_insns_per_s}, $row->{cycles_per_s}, $row->{host_s};
        if ($threads) {
            my (@h2, @co);
            for (1 .. $runs) {
                push @co, corun($name, $args, $p);
                my ($c2, $w2, $s2) = run_one($name, $args, $p, 2);
                die "bench_timing $name $p: 2 threads simulated $c2 cycles, 1 thread $c\n"
                    if $c2 != $c || $w2 != $w;
                push @h2, $s2;
            }
            # the statistics, byte for byte (profiled runs: not timed)
            run_one($name, $args, $p, $_, "$tmp/s$_.json") for 1, 2;
            my $j1 = slurp("$tmp/s1.json");
            my $same = $j1 ne '' && $j1 eq slurp("$tmp/s2.json");
            $differ++ unless $same;
            $row->{host_s_2t} = median(@h2);
            $row->{gain_2t} = $row->{host_s} / $row->{host_s_2t};
            $row->{corun_ceiling} = 2 * $row->{host_s} / median(@co);
            $row->{stats_identical_2t} = $same ? 'true' : 'false';
            printf " %9.2f %5.2fx %5.2fx %5s", $row->{host_s_2t}, $row->{gain_2t},
                $row->{corun_ceiling}, $same ? 'same' : 'DIFF';
        }
        if ($relaxed) {
            my (@r1, @r2);
            my ($rc, $l1, $l2);
            for (1 .. $runs) {
                my ($c1, $w1, $s1, $g1) = run_one($name, $args, $p, 1, undef, $rlx);
                my ($c2, $w2, $s2, $g2) = run_one($name, $args, $p, 2, undef, $rlx);
                die "bench_timing $name $p: relaxed runs issued $w1 / $w2 warp instructions, "
                    . "the exact mode $w\n" if $w1 != $w || $w2 != $w;
                ($rc, $l1, $l2) = ($c2, $g1, $g2);
                push @r1, $s1;
                push @r2, $s2;
            }
            $row->{relaxed_cycles} = $rc + 0;
            $row->{relaxed_err_pct} = $c ? 100 * ($rc - $c) / $c : 0;
            $row->{host_s_relaxed_1t} = median(@r1);
            $row->{host_s_relaxed_2t} = median(@r2);
            $row->{gain_relaxed_2t} = $row->{host_s_relaxed_1t} / $row->{host_s_relaxed_2t};
            $row->{relaxed_vs_exact_2t} = $row->{host_s} / $row->{host_s_relaxed_2t};
            $row->{relaxed_same_1t_2t} = $l1 eq $l2 ? 'true' : 'false';
            printf " %9.2f %9.2f %5.2fx %5.2fx %+6.2f%% %5s", $row->{host_s_relaxed_1t},
                $row->{host_s_relaxed_2t}, $row->{gain_relaxed_2t}, $row->{relaxed_vs_exact_2t},
                $row->{relaxed_err_pct}, $l1 eq $l2 ? 'same' : 'diff';
        }
        if ($lookahead) {
            my (@r1, @r2);
            my ($lc, $same) = (0, 1);
            for (1 .. $runs) {
                my ($c1, $w1, $s1, $g1) = run_one($name, $args, $p, 1, undef, $lka);
                my ($c2, $w2, $s2, $g2) = run_one($name, $args, $p, 2, undef, $lka);
                die "bench_timing $name $p: lookahead runs issued $w1 / $w2 warp instructions, "
                    . "the exact mode $w\n" if $w1 != $w || $w2 != $w;
                $same &&= $g1 eq $g2;
                $lc = $c1;
                push @r1, $s1;
                push @r2, $s2;
            }
            # the statistics, byte for byte (profiled runs: not timed)
            run_one($name, $args, $p, $_, "$tmp/l$_.json", $lka) for 1, 2;
            my $j1 = slurp("$tmp/l1.json");
            $same &&= $j1 ne '' && $j1 eq slurp("$tmp/l2.json");
            $differ++ unless $same;
            $row->{lookahead_cycles} = $lc + 0;
            $row->{lookahead_err_pct} = $c ? 100 * ($lc - $c) / $c : 0;
            $row->{host_s_lookahead_1t} = median(@r1);
            $row->{host_s_lookahead_2t} = median(@r2);
            $row->{gain_lookahead_2t} = $row->{host_s_lookahead_1t} / $row->{host_s_lookahead_2t};
            $row->{lookahead_vs_exact_2t} = $row->{host_s} / $row->{host_s_lookahead_2t};
            $row->{lookahead_identical_2t} = $same ? 'true' : 'false';
            printf " %9.2f %9.2f %5.2fx %5.2fx %+6.2f%% %5s", $row->{host_s_lookahead_1t},
                $row->{host_s_lookahead_2t}, $row->{gain_lookahead_2t},
                $row->{lookahead_vs_exact_2t}, $row->{lookahead_err_pct},
                $same ? 'same' : 'DIFF';
        }
        print "\n";
        push @rows, $row;
    }
}
print "reference: GPGPU-Sim 19,000-38,000 warp insns/s, 300-1,000 cycles/s (issue 24)\n";
open my $o, '>', $json or die "$json: $!";
print $o "[\n", join(",\n", map {
    my $r = $_;
    '{' . join(', ', map {
        my $v = $r->{$_};
        $v =~ /^([0-9.e+-]+|true|false)$/ ? "\"$_\": $v" : "\"$_\": \"$v\""
    } sort keys %$r) . '}'
} @rows), "\n]\n";
close $o;
print "wrote $json\n";
if ($differ) {
    print "$differ run(s): the 1- and 2-thread statistics DIFFER\n";
    exit 1;
}
