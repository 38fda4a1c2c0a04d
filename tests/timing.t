#!/usr/bin/env perl
# tests/timing.t - timing mode (ptxemu exec --timing) on the clock64()-timed microbenchmarks of
# tests/ubench (their committed PTX in fixtures/ptx/ubench):
#   - dependent chains of FADD/FFMA/IMAD/MUFU/DFMA measure exactly the configured latency
#     (read from `ptxemu timing-config`) for the presets and for overridden values;
#   - independent FFMA streams reach the configured SP issue throughput and never exceed it;
#   - an n-way shared-memory bank conflict costs exactly n times the conflict-free access;
#   - lrr, gto, old and two_level_active order a known warp mix as their definitions say;
#   - __nanosleep(t) keeps the warp from issuing for t ns at the core clock;
#   - the counters' invariants: one issue-or-stall count per scheduler per active cycle, the
#     per-SM counters sum to the totals, warp instructions equal the functional engine's.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(ok ptxemu_run tap_done timing_config);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $ub  = 'fixtures/ptx/ubench';
my $tmp = tempdir(CLEANUP => 1);

sub field { my ($list, $i) = @_; return (split /,/, $list)[$i] }

# ---------------------------------------------------------------- latency chains
my %lat = (    # kernel => [argument buffer, option, index in the option's list]
    lat_fadd => ['buf:f32=1,1,0', 'ptx_opcode_latency_fp', 0],
    lat_ffma => ['buf:f32=1,1,0', 'ptx_opcode_latency_fp', 3],
    lat_imad => ['buf:s32=1,1,0', 'ptx_opcode_latency_int', 3],
    lat_mufu => ['buf:f32=1,1,0', 'ptx_opcode_latency_sfu', 0],
    lat_dfma => ['buf:f64=1,1,0', 'ptx_opcode_latency_dp', 3],
);
my @variants = (['--timing=qv100'], ['--timing=a100'], ['--timing=h100'], ['--timing=rtx3070'],
                ['--timing=qv100', '--timing-set', 'ptx_opcode_latency_fp=7,13,4,9,39',
                 '--timing-set', 'ptx_opcode_latency_int=3,13,4,6,145,21',
                 '--timing-set', 'ptx_opcode_latency_sfu=23', '--timing-set',
                 'ptx_opcode_latency_dp=8,19,8,11,330']);
for my $v (@variants) {
    my $cfg = timing_config(@$v);
    for my $k (sort keys %lat) {
        my ($arg, $opt, $i) = @{$lat{$k}};
        my $want = 64 * field($cfg->{$opt}, $i);
        my ($code, $out, $err) = ptxemu_run('exec', "$ub/latency.ptx", '--kernel', $k, '--grid', 1,
                                     '--block', 1, '--arg', $arg, '--arg', 'buf:zero=16',
                                     '--print', '1:s64:1', @$v);
        chomp $out;
        ok($code == 0 && $out eq $want, "$k @$v: 64 dependent operations take $want cycles",
           "got '$out' (exit $code)", $err);
    }
}

# ---------------------------------------------------------------- throughput
{
    my $json = "$tmp/tput.json";
    my ($code, $out, $err) = ptxemu_run('exec', "$ub/latency.ptx", '--kernel', 'tput_ffma',
                                        '--grid', 1, '--block', 1024, '--arg', 'buf:f32=1,0.5,1',
                                        '--arg', 'buf:zero=16', '--arg', 's32:64', '--timing=qv100',
                                        '--timing-stats', $json);
    my $cfg = timing_config('--timing=qv100');
    my $limit = $cfg->{gpgpu_num_sp_units} / field($cfg->{ptx_opcode_initiation_fp}, 3);
    my $sm = json_sm($json, 0);
    my $rate = $sm->{sm_active_cycles} ? $sm->{unit_sp_dispatch} / $sm->{sm_active_cycles} : 0;
    ok($code == 0 && $rate <= $limit && $rate >= 0.95 * $limit,
       sprintf("32 warps of independent FFMA reach the SP limit (%.3f of %.1f per cycle)", $rate,
               $limit), $err);
    ok($sm->{unit_sp_dispatch} == 33024,
       "FP32 units started 33,024 warp instructions (32,768 FFMA + 256 FADD)",
       "got $sm->{unit_sp_dispatch}");
}

# ---------------------------------------------------------------- bank conflicts
{
    my %t;
    for my $way (1, 2, 3, 4, 8, 16, 32) {
        my ($code, $out, $err) = ptxemu_run('exec', "$ub/bank_conflict.ptx", '--grid', 1, '--block',
                                            1024, '--arg', 'buf:u64=18446744073709551615,0,0',
                                            '--arg', "s32:$way", '--arg', 's32:16', '--print',
                                            '0:u64:2', '--timing=qv100');
        my ($t1, $t2) = split /\n/, $out;
        my ($bk) = $err =~ /^gpgpu_n_shmem_bkconflict = (\d+)$/m;
        $t{$way} = $t2 - $t1;
        ok($code == 0 && defined $bk && $bk == ($way - 1) * 4096,
           "$way-way conflict: " . (($way - 1) * 4096) . " extra bank cycles for 4,096 loads",
           "got " . ($bk // 'none'), $err);
        next if $way == 1;
        my $per = ($t{$way} - $t{1}) / (($way - 1) * 4096);
        ok($per > 0.99 && $per < 1.01,
           sprintf("$way-way conflict: each load costs $way cycles of the LD/ST unit "
                   . "(marginal %.4f)", $per), "cycles: $t{$way} vs $t{1} conflict-free");
    }
}

# ---------------------------------------------------------------- scheduler order
{
    my %res;
    for my $pol ('lrr', 'gto', 'old', 'two_level_active:2') {
        my ($code, $out, $err) = ptxemu_run('exec', "$ub/sched_order.ptx", '--grid', 1, '--block',
                                            128, '--arg', 'buf:zero=1024', '--arg', 's32:32',
                                            '--print', '0:s64:8', '--timing=qv100', '--timing-set',
                                            'gpgpu_num_sched_per_core=1', '--timing-set',
                                            "gpgpu_scheduler=$pol");
        my @v = split /\n/, $out;
        $res{$pol} = [map { [$v[2 * $_], $v[2 * $_ + 1]] } 0 .. 3];
        ok($code == 0 && @v == 8, "sched_order runs under $pol", $err);
    }
    my @l = @{$res{lrr}};
    my @ends = sort { $a <=> $b } map { $_->[1] } @l;
    ok($ends[3] - $ends[0] <= 4, "lrr: four warps finish within 4 cycles of each other",
       "ends: @ends");
    for my $pol ('gto', 'old') {
        my @e = map { $_->[1] } @{$res{$pol}};
        ok($e[0] < $e[1] && $e[1] < $e[2] && $e[2] < $e[3] && $e[3] - $e[0] > 100,
           "$pol: the oldest warp finishes first, then the next (spread > 100 cycles)",
           "ends: @e");
    }
    my @t = @{$res{'two_level_active:2'}};
    my $first_end = $t[0][1] < $t[1][1] ? $t[0][1] : $t[1][1];
    ok($t[2][0] > $first_end && $t[3][0] > $first_end,
       "two_level_active:2: warps 2 and 3 start only after one of warps 0 and 1 finished",
       "starts/ends: " . join(' ', map { "$_->[0]/$_->[1]" } @t));
}

# ---------------------------------------------------------------- counter invariants
{
    my $json = "$tmp/inv.json";
    my ($code, $out, $err) = ptxemu_run('exec', "$ub/bank_conflict.ptx", '--grid', 6, '--block',
                                        256, '--arg', 'buf:u64=18446744073709551615,0,0', '--arg',
                                        's32:3', '--arg', 's32:4', '--timing=qv100',
                                        '--timing-stats', $json, '--stats');
    my ($winsn) = $err =~ /: (\d+) warp instructions/;
    my $k = json_kernel($json);
    my $tot = $k->{totals};
    my $cfg = timing_config('--timing=qv100');
    my $nsched = $cfg->{gpgpu_num_sched_per_core};
    my @stall = qw(sched_issue stall_idle stall_ibuffer_empty stall_scoreboard
                   stall_pipeline_busy stall_barrier stall_membar);
    my $bad = 0;
    my %sum;
    for my $sm (@{$k->{sm}}) {
        my $s = 0;
        $s += $sm->{$_} for @stall;
        $bad++ if $s != $nsched * $sm->{sm_active_cycles};
        $sum{$_} += $sm->{$_} for keys %$sm;
    }
    ok($code == 0 && !$bad, "every SM: issues + stalls = $nsched schedulers x active cycles",
       "$bad SMs differ", $err);
    my @diff = grep { $sum{$_} != $tot->{$_} } sort keys %$tot;
    ok(!@diff, "per-SM counters sum to the kernel totals", "differ: @diff");
    # (sched_issue also counts the machine instructions of expanded PTX ops before their last:
    # the kernel's divisions, ptxemu_uop_issue)
    ok(defined $winsn && $tot->{gpgpu_n_tot_w_icount} == $winsn
       && $tot->{sched_issue} == $winsn + $tot->{ptxemu_uop_issue},
       "warp instructions issued = the functional engine's count ($winsn)",
       "issued $tot->{gpgpu_n_tot_w_icount}, sched_issue $tot->{sched_issue}, "
       . "expanded $tot->{ptxemu_uop_issue}");
    ok($tot->{sm_ctas_launched} == 6 && $tot->{sm_warps_launched} == 48,
       "6 CTAs and 48 warps launched", "ctas $tot->{sm_ctas_launched}");
}

# ---------------------------------------------------------------- nanosleep
# __nanosleep(t): the warp issues nothing for t ns at the core clock. The cycles around a
# 1000 ns sleep minus round(1000 ns x clock) is the same small overhead on every preset, and
# sleeping 6000 instead of 3000 ns (a register operand) costs exactly round(3000 ns x clock) more.
{
    my %over;
    for my $p ('qv100', 'a100', 'h100') {
        my $mhz = (split /:/, timing_config("--timing=$p")->{gpgpu_clock_domains})[0];
        my @got;
        for my $ns (3000, 6000) {
            my ($code, $out, $err) = ptxemu_run('exec', "$ub/latency.ptx", '--kernel',
                                                'lat_nanosleep', '--grid', 1, '--block', 1, '--arg',
                                                "buf:u32=$ns", '--arg', 'buf:zero=16', '--print',
                                                '1:s64:2', "--timing=$p");
            push @got, [split ' ', $out];
        }
        my ($c1000, $c3000) = (int(1000 * $mhz / 1e3 + 0.5), int(3000 * $mhz / 1e3 + 0.5));
        $over{$p} = ($got[0][0] // 0) - $c1000;
        ok(@{$got[0]} == 2 && @{$got[1]} == 2 && $got[1][1] - $got[0][1] == $c3000,
           "nanosleep $p: 3000 ns more sleep costs $c3000 cycles at $mhz MHz",
           "got @{$got[0]} / @{$got[1]}");
    }
    ok($over{qv100} == $over{a100} && $over{a100} == $over{h100} && $over{qv100} >= 0
       && $over{qv100} <= 16, "nanosleep: a 1000 ns sleep is round(1000 ns x clock) plus the "
       . "same issue overhead on every preset ($over{qv100} cycles)",
       join(' ', map { "$_=$over{$_}" } sort keys %over));
}

exit(tap_done());

# ---------------------------------------------------------------- tiny JSON reader
sub json_kernel {
    my ($path) = @_;
    open(my $fh, '<', $path) or return {};
    local $/;
    my $text = <$fh>;
    my ($tot) = $text =~ /"totals": \{([^}]*)\}/;
    my ($sms) = $text =~ /"sm": \[(.*?)\]\}/s;
    my %k = (totals => kv($tot // ''), sm => [map { kv($_) } ($sms // '') =~ /\{([^}]*)\}/g]);
    return \%k;
}

sub json_sm { my ($path, $i) = @_; return json_kernel($path)->{sm}[$i] // {} }

sub kv {
    my ($s) = @_;
    my %h;
    $h{$1} = $2 while $s =~ /"([^"]+)": (\d+)/g;
    return \%h;
}
