#!/usr/bin/env perl
# tests/timing_chiplet.t - Accel-Sim's chiplet model (-gpgpu_n_chiplet_partition 2, issue 22) on
# fixtures/timing/chiplet2.config (8 SMs, 4 channels x 2 slices, SMs 0-3 and slices 0-3 on
# chiplet 0, every clock at 1 GHz) with the microbenchmarks of tests/ubench/memory.cu:
#   - a cold .cg pointer chase from SM 0 (chiplet 0) over lines 512 bytes apart: with
#     -chiplet_mem_stride 256 every line is chiplet 0's (the buffer is page-aligned: offset o
#     is owned by chiplet (o / stride) mod 2), cycle for cycle the one-chiplet run; with 512
#     every other line (64 of 128) is chiplet 1's and each of those misses takes exactly
#     2 x -inter_chiplet_queue_latency + 2 cycles more (the request queue, the reply queue, and
#     the peer's reply leaving its L2->interconnect queue at the next interconnect edge, which
#     runs with the next core cycle's time); the round trip the model reports
#     (chiplet_avg_latency) is that plus the local miss's service behind the ROP delay
#     (avg_latency_partition - -gpgpu_l2_rop_latency of the local run);
#   - interchip_read_requests = the misses whose line the peer owns (64) = the peer's accepted
#     reads = its replies = the fills they make; sectors sent = sectors returned; every line
#     read from DRAM once; a second launch hits every line in the SM's own chiplet (the
#     peer's replies filled it);
#   - -gpgpu_chiplet_interleave 1 with -chiplet_partition_stride = -chiplet_mem_stride sends
#     every request to the owner's slice: no interchip read;
#   - 8 SMs chasing chiplet 0's lines: SMs 4-7 use chiplet 1's slices, which fetch each line
#     once from chiplet 0 (lines replicated per chiplet);
#   - write_only: every write the L2 does not hit is forwarded (interchip_write_requests), and
#     applied at the peer (with a 0-cycle queue, all of them before the kernel ends); a
#     1-entry queue makes writes wait (chiplet_write_fail) and misses wait
#     (chiplet_queue_full), drops no forward, and every read is still answered;
#   - statistics and output bit-identical for --threads 1 and 2 (the inter-chiplet queues
#     couple channels: the L2 edges stay on one thread);
#   - refusals: 3 chiplets, an odd channel count;
#   - every fixtures/cuda program prints PASS under the config (PTXEMU_TIMING=FILE; needs nvcc
#     for the executables, as tests/timing_programs.t).
use strict;
use warnings;
use File::Basename qw(dirname basename);
use File::Temp qw(tempdir);
use Cwd qw(getcwd);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(find_nvcc fixture_sm kernels_stats ok ptxemu_run run_bounded skip tap_done
                  timing_config);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $root  = getcwd();
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $tmp   = tempdir(CLEANUP => 1);
my $ptx   = 'fixtures/ptx/ubench/memory.ptx';
my $cfgf  = 'fixtures/timing/chiplet2.config';
my $cfg   = timing_config("--timing=$cfgf");
my $rop   = $cfg->{gpgpu_l2_rop_latency};

sub sets { return map { ('--timing-set', $_) } @_ }
sub brk {
    my ($s, $at, $ao) = @_;
    return $s->{"L2_cache_stats_breakdown[$at][$ao]"} // 0;
}

# the chase: 128 cold .cg loads, lines 512 bytes (128 words) apart in a 64 KiB buffer
sub chase {
    my ($repeat, @set) = @_;
    my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'chase_cg', '--grid', 1,
        '--block', 1, '--print', '5:s64:1', '--arg', 'buf:zero=65536', '--arg', 'u32:128',
        '--arg', 'u32:16383', '--arg', 's32:0', '--arg', 's32:128', '--arg', 'buf:zero=16',
        "--timing=$cfgf", ($repeat ? ('--repeat', $repeat) : ()), sets(@set));
    my @t = $out =~ /^(\d+)$/mg;
    my @k = kernels_stats($err);
    return {code => $code, t => \@t, k => \@k, err => $err};
}

# ---------------------------------------------------------------- local chase
my $one = chase(0, 'gpgpu_n_chiplet_partition=1');
my $loc = chase(0, 'chiplet_mem_stride=256');
my $lk = $loc->{k}[0] // {};
ok($one->{code} == 0 && $loc->{code} == 0 && @{$loc->{t}} == 1
   && $loc->{t}[0] == $one->{t}[0] && $lk->{gpu_sim_cycle} == $one->{k}[0]{gpu_sim_cycle}
   && $lk->{interchip_read_requests} == 0 && brk($lk, 'GLOBAL_ACC_R', 'MISS') == 128,
   "a chase over chiplet 0's lines from SM 0: the one-chiplet run cycle for cycle "
   . "($loc->{t}[0] cycles), no interchip read",
   "one chiplet: $one->{t}[0], interchip reads " . ($lk->{interchip_read_requests} // '?'),
   $loc->{err});
my $serve = ($lk->{avg_latency_partition} // 0) - $rop;  # a local miss behind the ROP delay

# ---------------------------------------------------------------- half the lines on chiplet 1
for my $lat (0, 50, 100) {
    my $r = chase(0, 'chiplet_mem_stride=512', "inter_chiplet_queue_latency=$lat");
    my $s = $r->{k}[0] // {};
    my $d = $r->{code} == 0 && @{$r->{t}} ? $r->{t}[0] - $loc->{t}[0] : -1;
    my $want = 64 * (2 * $lat + 2);
    ok($d == $want, "latency $lat: the 64 misses on chiplet 1's lines take 64 x (2 x $lat + 2) "
       . "= $want cycles more", "measured $d more", $r->{err});
    ok(($s->{interchip_read_requests} // -1) == 64
       && brk($s, 'GLOBAL_ACC_R', 'MISS') == 128 + 64
       && $s->{chiplet_peer_reads} == 64 && $s->{chiplet_replies} == 64
       && $s->{chiplet_fills} == 64 && $s->{interchip_read_sectors} == 64
       && $s->{chiplet_reply_sectors} == 64 && $s->{L2_partition_dram_read_sectors} == 128
       && $s->{L2_partition_read_replies} == 128 && $s->{interchip_write_requests} <= 1,
       "latency $lat: interchip reads = the 64 misses chiplet 1 owns = its reads = its replies "
       . '= the fills; 64 sectors each way, 128 from DRAM, 128 read replies',
       join(', ', map { "$_ " . ($s->{$_} // '?') } qw(interchip_read_requests
            chiplet_peer_reads chiplet_replies chiplet_fills interchip_read_sectors
            chiplet_reply_sectors L2_partition_dram_read_sectors)));
    my $rt = 2 * $lat + 2 + $serve;
    ok(($s->{chiplet_avg_latency} // -1) == $rt,
       "latency $lat: a round trip to chiplet 1 takes 2 x $lat + 2 + the local service "
       . "($serve) = $rt cycles", "reported " . ($s->{chiplet_avg_latency} // '?'));
}

# ---------------------------------------------------------------- the peer's replies fill
{
    my $r  = chase(2, 'chiplet_mem_stride=512');
    my $l2 = chase(2, 'chiplet_mem_stride=256');
    my $s  = $r->{k}[1] // {};
    my $c  = $s->{gpu_sim_cycle} // -1;
    my $lc = ($l2->{k}[1] // {})->{gpu_sim_cycle} // -2;
    ok($r->{code} == 0 && @{$r->{k}} == 2 && $s->{L2_total_cache_misses} == 0
       && $s->{interchip_read_requests} == 0 && $c == $lc,
       'second launch: every line hits in chiplet 0 (the peer\'s replies filled it), as fast '
       . "as with local lines ($c cycles)",
       'misses ' . ($s->{L2_total_cache_misses} // '?') . ', interchip reads '
       . ($s->{interchip_read_requests} // '?') . ", local: $lc");
}

# ---------------------------------------------------------------- slices by address
{
    my $r = chase(0, 'chiplet_mem_stride=512', 'gpgpu_chiplet_interleave=1',
                  'chiplet_partition_stride=512');
    my $s = $r->{k}[0] // {};
    ok($r->{code} == 0 && $s->{interchip_read_requests} == 0
       && brk($s, 'GLOBAL_ACC_R', 'MISS') == 128 && $r->{t}[0] == $loc->{t}[0],
       '-gpgpu_chiplet_interleave 1, partition stride = memory stride: every request at its '
       . 'owner\'s slice, no interchip read, the local chase\'s cycles',
       'interchip reads ' . ($s->{interchip_read_requests} // '?') . ", cycles $r->{t}[0]");
}

# ---------------------------------------------------------------- every SM chases
# 8 blocks, one per SM, chase the same 128 lines (all chiplet 0's): SMs 4-7 (chiplet 1's half
# of the clusters) use chiplet 1's slices, which fetch each line once from chiplet 0 (the
# other SMs' reads of it merge into that miss or hit its copy): 128 misses per chiplet, 128
# interchip reads, each line read from DRAM once. With -gpgpu_chiplet_interleave 1 and equal
# strides every SM's request goes to the owner's slice: 128 misses, nothing across.
{
    my @c8 = ('--kernel', 'chase_cg', '--grid', 8, '--block', 1, '--arg', 'buf:zero=65536',
              '--arg', 'u32:128', '--arg', 'u32:16383', '--arg', 's32:0', '--arg', 's32:128',
              '--arg', 'buf:zero=16', "--timing=$cfgf", sets('chiplet_mem_stride=256'));
    my ($c, $o, $e) = ptxemu_run('exec', $ptx, @c8);
    my ($s) = kernels_stats($e);
    $s //= {};
    ok($c == 0 && brk($s, 'GLOBAL_ACC_R', 'MISS') == 256 && $s->{interchip_read_requests} == 128
       && $s->{chiplet_peer_reads} == 128 && $s->{chiplet_fills} == 128
       && $s->{L2_partition_dram_read_sectors} == 128,
       '8 SMs chase chiplet 0\'s lines: chiplet 1\'s slices fetch each line once from chiplet 0 '
       . '(128 interchip reads, 128 misses per chiplet, 128 DRAM sectors)',
       join(', ', map { "$_ " . ($s->{$_} // '?') } qw(interchip_read_requests
            chiplet_peer_reads chiplet_fills L2_partition_dram_read_sectors)), $e);
    my ($c1, $o1, $e1) = ptxemu_run('exec', $ptx, @c8, sets('gpgpu_chiplet_interleave=1',
                                    'chiplet_partition_stride=256'));
    my ($t) = kernels_stats($e1);
    $t //= {};
    ok($c1 == 0 && brk($t, 'GLOBAL_ACC_R', 'MISS') == 128 && $t->{interchip_read_requests} == 0
       && $t->{L2_partition_dram_read_sectors} == 128,
       '8 SMs, -gpgpu_chiplet_interleave 1: every request at the owner\'s slice (128 misses, '
       . 'no interchip read)', 'interchip reads ' . ($t->{interchip_read_requests} // '?'), $e1);
}

# ---------------------------------------------------------------- write forwards
sub kern {
    my ($kernel, $args, @set) = @_;
    my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', $kernel, @$args,
                                        "--timing=$cfgf", sets(@set));
    my ($s) = kernels_stats($err);
    return ($code, $s // {}, $err);
}
my @wo = ('--grid', 16, '--block', 256, '--arg', 'buf:zero=262144', '--arg', 's32:65536');
{
    my ($c, $s, $e) = kern('write_only', \@wo, 'inter_chiplet_queue_latency=0');
    my $miss = brk($s, 'GLOBAL_ACC_W', 'MISS') + brk($s, 'GLOBAL_ACC_W', 'HIT_RESERVED');
    ok($c == 0 && $miss > 0 && $s->{interchip_write_requests} == $miss
       && $s->{chiplet_peer_write_forwards} == $miss && $s->{chiplet_write_forward_dropped} == 0
       && $s->{interchip_read_requests} == 0,
       "write_only: each of the $miss writes the L2 did not hit is forwarded to the peer and "
       . 'applied there (0-cycle queue)',
       'forwarded ' . ($s->{interchip_write_requests} // '?') . ', applied '
       . ($s->{chiplet_peer_write_forwards} // '?'), $e);
    my ($c2, $t, $e2) = kern('write_only', \@wo, 'inter_chiplet_queue_size=1',
                             'inter_chiplet_queue_latency=100');
    my $m2 = brk($t, 'GLOBAL_ACC_W', 'MISS') + brk($t, 'GLOBAL_ACC_W', 'HIT_RESERVED');
    ok($c2 == 0 && $t->{chiplet_write_fail} > 0 && $t->{interchip_write_requests} == $m2
       && $t->{chiplet_write_forward_dropped} == 0
       && $t->{chiplet_peer_write_forwards} <= $m2 && $t->{gpu_sim_cycle} > $s->{gpu_sim_cycle},
       '1-entry queue: writes wait for room (chiplet_write_fail ' . ($t->{chiplet_write_fail}
       // '?') . "), none dropped, all $m2 forwarded, slower", $e2);
}
my @triad = ('--grid', 16, '--block', 256, '--arg', 'buf:iota.f32=65536', '--arg',
             'buf:iota.f32=65536', '--arg', 'buf:zero=262144', '--arg', 'f32:3', '--arg',
             's32:65536');
{
    my ($c, $s, $e) = kern('stream_triad', \@triad, 'inter_chiplet_queue_size=1');
    my $reads = 0;
    $reads += brk($s, 'GLOBAL_ACC_R', $_) for qw(HIT HIT_RESERVED MISS);
    ok($c == 0 && $s->{chiplet_queue_full} > 0 && $s->{interchip_read_requests} > 0
       && $s->{chiplet_fills} == $s->{interchip_read_requests}
       && $s->{chiplet_peer_reads} == $s->{interchip_read_requests}
       && $s->{chiplet_reply_sectors} == $s->{interchip_read_sectors},
       'stream_triad, 1-entry queues: misses wait (chiplet_queue_full '
       . ($s->{chiplet_queue_full} // '?') . '), every one of the '
       . ($s->{interchip_read_requests} // '?') . ' interchip reads answered and filled', $e);
}

# ---------------------------------------------------------------- host threads
{
    my (%json, %out);
    my @why;
    for my $t (1, 2) {
        my $j = "$tmp/triad-$t.json";
        my ($code, $out, $err) = ptxemu_run('exec', $ptx, '--kernel', 'stream_triad', @triad,
            '--threads', $t, "--timing=$cfgf", '--timing-stats', $j);
        push @why, "threads=$t: exit $code" if $code;
        open my $f, '<', $j or push @why, "threads=$t: no $j";
        $json{$t} = $f ? do { local $/; <$f> } : '';
        $err =~ s/^gpgpu_simulation_(?:time|rate) = .*\n//mg;
        $out{$t} = $out . $err;
    }
    push @why, 'no chiplet statistics' if $json{1} !~ /"interchip_read_requests": [1-9]/;
    push @why, 'statistics differ' if $json{1} ne $json{2};
    push @why, 'output differs' if $out{1} ne $out{2};
    ok(!@why, 'stream_triad on two chiplets: identical statistics and output on 1 and 2 '
       . 'threads', @why);
}

# ---------------------------------------------------------------- refusals
{
    my ($c3, $o3, $e3) = ptxemu_run('exec', $ptx, '--kernel', 'write_only', @wo,
                                    "--timing=$cfgf", sets('gpgpu_n_chiplet_partition=3'));
    ok($c3 != 0 && $e3 =~ /-gpgpu_n_chiplet_partition 3: 1 or 2 chiplets/,
       '3 chiplets: refused with a message naming the option', $e3);
    my ($c5, $o5, $e5) = ptxemu_run('exec', $ptx, '--kernel', 'write_only', @wo,
                                    "--timing=$cfgf", sets('gpgpu_n_mem=5'));
    ok($c5 != 0 && $e5 =~ /-gpgpu_n_mem 5 channels do not split over 2 chiplets/,
       '5 channels on 2 chiplets: refused', $e5);
}

# ---------------------------------------------------------------- fixtures/cuda programs
my $nvcc = find_nvcc();
my @srcs = sort glob('fixtures/cuda/*.cu');
if (!$nvcc) {
    skip('fixtures/cuda programs on two chiplets: nvcc not found');
} else {
    my @stale = grep { my $e = 'build/fixtures/' . basename($_, '.cu'); !-x $e || -M $e > -M $_ }
                @srcs;
    if (@stale) {
        local $ENV{NVCC} = $nvcc;
        my @names = map { basename($_, '.cu') } @stale;
        `scripts/gen-fixtures.sh --exe --variants '' @names 2>&1`;
    }
    my $libdir = ($build =~ m{^/} ? $build : "$root/$build") . '/lib';
    my %env = (LD_LIBRARY_PATH => $libdir, PTXEMU_TIMING => "$root/$cfgf");
    if ($build =~ /asan/) {
        chomp(my $so = `gcc -print-file-name=libasan.so`);
        $env{LD_PRELOAD} = $so if $so =~ m{/};
    }
    for my $src (@srcs) {
        my $name = basename($src, '.cu');
        my $exe = "build/fixtures/$name";
        if ($name eq 'rt_fence') { # (~4,096 chained CTAs: timing_programs.t runs it on h100)
            skip("$name on two chiplets: millions of simulated cycles (timing_programs.t)");
            next;
        }
        # the programs run on the h100 device (a program for a newer architecture on that
        # preset's device), whose SM count the simulated GPU then takes over (runtime/timing.c:
        # a cooperative grid sized for 132 SMs must be co-resident); channels, slices and the
        # chiplets stay the configuration's
        my %e = (%env, PTXEMU_DEVICE => 'h100');
        if (my $sm = fixture_sm($src)) {
            $e{PTXEMU_DEVICE} = {100 => 'b200', 120 => 'rtx5090'}->{$sm} // "sm=$sm";
        }
        my ($code, $out, $err, $to) = run_bounded(600, \%e, "./$exe");
        my @why;
        push @why, 'timed out' if $to;
        push @why, "exit status $code" if !$to && $code != 0;
        push @why, 'no PASS line' if $out !~ /^PASS$/m;
        my $kernels = () = $err =~ /^gpu_sim_cycle = \d+$/mg;
        my $launches = () = $err =~ /^kernel_name = /mg;
        push @why, 'no chiplet statistics' if $launches && $err !~ /^interchip_read_requests = /m;
        ok(!@why, "$name on two chiplets ($launches kernels)", @why,
           grep { defined } (split(/\n/, $out . $err))[0 .. 9]);
    }
}
exit(tap_done());
