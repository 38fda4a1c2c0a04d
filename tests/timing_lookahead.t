#!/usr/bin/env perl
# tests/timing_lookahead.t - the lookahead parallel timing mode (issue 24 item 1:
# --timing-lookahead W, -ptxemu_timing_lookahead; timing/README.md, "Lookahead parallel
# timing"). The SMs run windows of W core cycles on the host threads between their exchanges
# with the memory system, which runs its next window on the driver meanwhile (timed channels:
# requests seen 2W cycles late, taken off the ROP delay), and every step with effects outside
# its SM (global memory,
# atomics, printf) and every dispatch inside a window runs in (cycle, SM) order. What must
# hold exactly:
#   - the full --timing-stats JSON (every counter per kernel and per SM, the memory system's,
#     the per-PTX-line counters) and the program's output of --threads 2 and --threads 3 are
#     byte for byte those of --threads 1 (bench kernels on qv100 and h100, small grids;
#     fma_loop and triad with more CTAs than fit at once: multi-wave, CTAs dispatched inside
#     windows; histogram with global atomics);
#   - the program's output and the instruction counts are the exact mode's, and the cycle
#     count is within 1% of the exact mode's (a behaviour bound: measured in the names);
#   - xsm (fixtures/timing/xsm.ptx: CTAs on different SMs taking tickets with a global atomic
#     and passing a flag along, within a few cycles), which the relaxed mode runs in the
#     host's order: its printed tickets and poll counts, statistics JSON and log are the same
#     on 1, 2 and 3 threads, profiled and not (unprofiled, SMs are taken by whichever thread
#     is free), windows of 32 and 7 cycles, qv100, h100 and a100; unprofiled triad and
#     histogram too;
#   - fixtures/cuda programs under `ptxemu run`-style environment variables print what the
#     exact mode prints and give the same statistics on 1 and 2 threads - warp_aggregate
#     included, whose stores go where a global atomicAdd's result says (nondeterministic with
#     threads in the relaxed mode); device printf in the serial order;
#   - bad windows are refused, and the mode cannot be combined with --timing-relaxed;
#   - the request delay is compensated up to the ROP delay (qv100: 188 cycles): one warp of
#     reduce (a chain of dependent loads, the SM asleep while each is in the memory system)
#     takes the exact mode's cycles and mean memory latency with W = 32 and W = 94 (2W = 188),
#     and with W = 128 each read waits the rest, 2W - 188 = 68 cycles, more (mean latency
#     within 1 cycle of exact + 68), on 1 and 2 threads alike.
use strict;
use warnings;
use File::Basename qw(dirname);
use Cwd qw(getcwd);
use File::Temp qw(tempdir);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(run_bounded parallel_kernels strip_host stat_of slurp);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $root  = getcwd();
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $tmp   = tempdir(CLEANUP => 1);
my $ptx   = 'tests/bench/kernels_sm80.ptx';
my $bound = 1.0; # % of the exact mode's cycles

my @kernels = parallel_kernels();
my @presets  = qw(qv100 h100);
my @threads  = (2, 3);
my @programs = qw(printf rt_printf_order warp_aggregate reduce_shared);
my @have = grep { -x "build/fixtures/$_" } @programs;



my $xsm = 'fixtures/timing/xsm.ptx';
my $xsm_args = '--grid 160 --block 64 --arg buf:zero=40960 --arg buf:zero=4 --arg buf:zero=1024 '
             . '--print 0:u32 --print 2:u32:162';
# [name, PTX, kernel, arguments, profiled?, preset, window]
my @xcases = (
    (map { [xsm => $xsm, 'xsm', $xsm_args, $_->[0], $_->[1], $_->[2]] }
         [1, 'qv100', 32], [0, 'qv100', 32], [0, 'qv100', 7], [1, 'h100', 32], [0, 'a100', 32]),
    [triad => $ptx, 'triad', $kernels[1][1], 0, 'qv100', 32],
    [histogram => $ptx, 'histogram', $kernels[3][1], 0, 'h100', 32],
);

print '1..', @kernels * @presets + @xcases + 3 + @have, "\n";
my $n = 0;
sub report {
    my ($why, $what) = @_;
    $n++;
    print((@$why ? 'not ok' : 'ok'), " $n - $what\n");
    print map { "#   $_\n" } @$why;
}

for my $p (@presets) {
    for my $k (@kernels) {
        my ($name, $args) = @$k;
        my @why;
        my $cmd = "$build/ptxemu exec $ptx --kernel $name $args --timing=$p";
        my ($code, $out0, $log0, $to) = run_bounded(300, {}, "$cmd --threads 1");
        push @why, "exact: exit $code" if $code || $to;
        my $c0 = stat_of($log0, 'gpu_sim_cycle');
        push @why, 'exact: no statistics' unless $c0;
        my (%out, %log, %json);
        for my $t (1, @threads) {
            my $j = "$tmp/$name-$p-$t.json";
            my ($rc, $o, $e, $tt) = run_bounded(300, {},
                "$cmd --threads $t --timing-lookahead 32 --timing-stats $j");
            push @why, "lookahead, threads=$t: exit $rc" if $rc || $tt;
            ($out{$t}, $log{$t}, $json{$t}) = ($o, strip_host($e), slurp($j));
        }
        my $c = stat_of($log{1}, 'gpu_sim_cycle');
        push @why, 'lookahead: no statistics' unless $c && $json{1} =~ /"gpu_sim_cycle": [1-9]/;
        push @why, 'lookahead: output differs from the exact mode\'s' if $out{1} ne $out0;
        for my $s (qw(gpu_sim_insn gpgpu_n_tot_w_icount)) {
            my ($a, $b) = (stat_of($log0, $s), stat_of($log{1}, $s));
            push @why, "lookahead: $s " . ($b // '?') . ', exact ' . ($a // '?')
                if !defined $a || !defined $b || $a != $b;
        }
        for my $t (@threads) {
            push @why, "threads=$t: statistics JSON differs from 1 thread's"
                if $json{$t} ne $json{1};
            push @why, "threads=$t: output or statistics log differs from 1 thread's"
                if $out{$t} ne $out{1} || $log{$t} ne $log{1};
        }
        my $err = $c && $c0 ? 100 * ($c - $c0) / $c0 : 1e9;
        push @why, sprintf('cycles %+.2f%% (%s vs %s), bound %.1f%%', $err, $c // '?',
                           $c0 // '?', $bound) if abs($err) > $bound;
        report(\@why, sprintf('%s on %s, lookahead 32: identical statistics JSON on 1, 2, 3 '
                              . 'threads, output and instructions as exact, %s vs %s cycles '
                              . '(%+.2f%%)', $name, $p, $c // '?', $c0 // '?', $err));
    }
}

for my $x (@xcases) {
    my ($name, $file, $kern, $args, $prof, $p, $w) = @$x;
    my (%json, %out);
    my @why;
    my $cmd = "$build/ptxemu exec $file --kernel $kern $args --timing=$p";
    for my $t (1, @threads) {
        my $j = "$tmp/x-$name-$p-$w-$t.json";
        my ($code, $out, $err, $to) = run_bounded(300, {},
            "$cmd --threads $t --timing-lookahead $w" . ($prof ? " --timing-stats $j" : ''));
        push @why, "threads=$t: exit $code" if $code || $to;
        $json{$t} = $prof ? slurp($j) : '';
        $out{$t} = strip_host($out) . strip_host($err);
    }
    push @why, 'no statistics' if $out{1} !~ /^gpu_sim_cycle = [1-9]/m;
    push @why, 'no statistics JSON' if $prof && $json{1} !~ /"gpu_sim_cycle": [1-9]/;
    for my $t (@threads) {
        push @why, "threads=$t: statistics JSON differs" if $json{1} ne $json{$t};
        push @why, "threads=$t: output or statistics log differs" if $out{1} ne $out{$t};
    }
    my $c = stat_of($out{1}, 'gpu_sim_cycle');
    my ($code, undef, $e0) = run_bounded(300, {}, "$cmd --threads 1");
    my $c0 = stat_of($e0, 'gpu_sim_cycle');
    push @why, "exact: exit $code" if $code || !$c0;
    if ($name eq 'xsm') { # every ticket taken once, every CTA polled until it had the flag
        my @v = split /\n/, $out{1};
        my @tick = sort { $a <=> $b } @v[0 .. 10239];
        my $bad = grep { $tick[$_] != $_ } 0 .. $#tick;
        push @why, "$bad tickets not taken exactly once" if $bad || @tick != 10240;
        push @why, 'counter ' . ($v[10240] // '?') . ' (expected 10240)'
            if ($v[10240] // '') ne '10240';
        my $polls = 0;
        $polls += $_ // 0 for @v[10242 .. 10401];
        push @why, 'polls ' . ($v[10241] // '?') . ", per CTA $polls"
            unless ($v[10241] // 0) >= 160 && $polls == $v[10241];
    }
    report(\@why, sprintf('%s on %s%s, lookahead %d: identical output and statistics on 1, 2, '
                          . '3 threads (%s cycles, exact %s: %+.2f%%)', $name, $p,
                          $prof ? ', profiled' : '', $w, $c // '?', $c0 // '?',
                          $c && $c0 ? 100 * ($c - $c0) / $c0 : 0));
}

# bad windows, and the relaxed mode together with it
{
    my @why;
    my ($code, $out, $err) = run_bounded(60, {}, "$build/ptxemu exec $ptx --kernel reduce "
                                         . "--timing --timing-lookahead 0");
    push @why, "--timing-lookahead 0: exit $code, stderr: $err"
        unless $code == 2 && $err =~ /^ptxemu: --timing-lookahead: expected a number of cycles \(1 to 4096\), not '0'$/m;
    ($code, $out, $err) = run_bounded(60, {}, "$build/ptxemu exec $ptx --kernel "
        . "$kernels[2][0] $kernels[2][1] --timing=qv100 --timing-set ptxemu_timing_lookahead=5000");
    push @why, "-ptxemu_timing_lookahead 5000: exit $code, stderr: $err"
        unless $code && $err =~ /option -ptxemu_timing_lookahead: 5000 is not in 0 … 4096 cycles/;
    report(\@why, 'windows of 0 (--timing-lookahead) and 5000 (-ptxemu_timing_lookahead) are '
                  . 'refused');
}
{
    my ($code, $out, $err) = run_bounded(60, {}, "$build/ptxemu exec $ptx --kernel "
        . "$kernels[2][0] $kernels[2][1] --timing=qv100 --timing-lookahead 16 --timing-relaxed");
    my @why;
    push @why, "exit $code, stderr: $err"
        unless $code && $err =~ /options -ptxemu_timing_lookahead and -ptxemu_timing_relaxed 1 exclude each other/;
    report(\@why, '--timing-lookahead with --timing-relaxed is refused');
}

# one warp: the window's request delay against the ROP delay
{
    my @why;
    my $cmd = "$build/ptxemu exec $ptx --kernel reduce --grid 1 --block 32 "
            . '--arg buf:iota.f32=4194304 --arg buf:zero=1024 --arg s32:4096 --timing=qv100';
    my %r;
    for my $m (['exact', ''], map { ["w$_", "--timing-lookahead $_"] } 32, 94, 128) {
        for my $t (1, 2) {
            my ($code, $out, $err, $to) = run_bounded(300, {}, "$cmd $m->[1] --threads $t");
            push @why, "$m->[0], threads=$t: exit $code" if $code || $to;
            $r{"$m->[0]$t"} = [$out . strip_host($err), stat_of($err, 'gpu_sim_cycle'),
                               $err =~ /^averagemflatency = ([\d.]+)$/m ? $1 : undef];
        }
        push @why, "$m->[0]: 2 threads differ from 1" if $r{"$m->[0]1"}[0] ne $r{"$m->[0]2"}[0];
    }
    my ($c0, $l0) = @{$r{exact1}}[1, 2];
    push @why, 'exact: no cycles or latency' unless $c0 && $l0;
    for my $w (32, 94) {
        my ($c, $l) = @{$r{"w${w}1"}}[1, 2];
        push @why, "W = $w: " . ($c // '?') . ' cycles, latency ' . ($l // '?')
                 . " (exact $c0, $l0)" unless $c0 && $l0 && $c && $l && $c == $c0 && $l == $l0;
    }
    my $l = $r{w1281}[2];
    my $want = ($l0 // 0) + 2 * 128 - 188;
    push @why, 'W = 128: latency ' . ($l // '?') . ", expected $want +- 1"
        unless $l0 && defined $l && abs($l - $want) <= 1;
    report(\@why, sprintf('reduce, one warp, qv100: W = 32 and 94 as exact (%s cycles, latency '
                          . '%s), W = 128 latency %s (exact + 2W - 188 = %s)', $c0 // '?',
                          $l0 // '?', $l // '?', $want));
}

my $libdir = ($build =~ m{^/} ? $build : "$root/$build") . '/lib';
my $preload;  # an ASan libcudart under a program built without ASan
if ($build =~ /asan/) {
    chomp(my $so = `gcc -print-file-name=libasan.so`);
    $preload = $so if $so =~ m{/};
}
for my $prog (@have) {
    my @why;
    my %res;
    for my $m (['exact', '', 1], ['lookahead', 'ptxemu_timing_lookahead=32', 1],
               ['lookahead', 'ptxemu_timing_lookahead=32', 2]) {
        my $t = $m->[2];
        my $j = "$tmp/$prog-$m->[0]-$t.json";
        my %e = (LD_LIBRARY_PATH => $libdir, PTXEMU_TIMING => 'h100', PTXEMU_THREADS => $t,
                 PTXEMU_TIMING_SET => $m->[1], PTXEMU_TIMING_STATS => $j);
        $e{LD_PRELOAD} = $preload if $preload;
        my ($code, $out, $err, $to) = run_bounded(600, \%e, "build/fixtures/$prog");
        push @why, "$m->[0], threads=$t: exit $code" if $code || $to;
        $res{"$m->[0]$t"} = [$out, strip_host($err), slurp($j)];
    }
    push @why, 'lookahead output differs from the exact mode\'s'
        if $res{lookahead1}[0] ne $res{exact1}[0];
    push @why, 'lookahead: 2 threads print what 1 does not'
        if $res{lookahead1}[0] ne $res{lookahead2}[0];
    push @why, 'lookahead: the statistics of 1 and 2 threads differ'
        if $res{lookahead1}[1] ne $res{lookahead2}[1] || $res{lookahead1}[2] ne $res{lookahead2}[2];
    my @c0 = $res{exact1}[1] =~ /^gpu_sim_cycle = (\d+)/mg;
    my @c1 = $res{lookahead1}[1] =~ /^gpu_sim_cycle = (\d+)/mg;
    push @why, scalar(@c1) . ' kernels, exact ' . scalar(@c0) if @c0 != @c1 || !@c0;
    report(\@why, "$prog: lookahead prints what the exact mode prints, the same statistics "
                  . 'on 1 and 2 threads (cycles ' . join(',', @c1) . ' vs ' . join(',', @c0) . ')');
}
