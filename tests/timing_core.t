#!/usr/bin/env perl
# tests/timing_core.t - the SM core's operand collectors and execution units beyond what
# timing.t covers, on the clock64()-timed microbenchmarks of tests/ubench (committed PTX in
# fixtures/ptx/ubench):
#   - specialised operand collectors (-gpgpu_enable_specialized_operand_collector 1): an SP set
#     whose ports pass p instructions per cycle caps 32 warps of independent FFMA at p per
#     cycle (at least dispatched/p active cycles, within 3% of it: the kernel's prologue), while the generic
#     collectors reach the SP units' limit; off, the specialised values change nothing (output
#     and statistics identical to the preset's); sets no instruction can reach are refused;
#   - PTX ops that expand into several machine instructions (timing/expand.c: div/rcp/sqrt .rn,
#     32-bit div/rem): a dependent chain (tests/ubench/ops.cu, and PTX written here for the
#     f64 and unsigned/remainder forms) takes exactly what an in-order issue of the sequence
#     (one instruction per cycle, each waiting for the results it reads and for its unit's
#     initiation interval, latencies from the configuration) gives, for the presets and with
#     overridden latencies; every machine instruction takes an issue slot and its unit
#     (ptxemu_uop_issue, unit dispatch counters), so 32 warps of independent divisions run at
#     the SP units' rate for 6 SP instructions each; -ptxemu_expand_ptx 0 restores one
#     instruction of the DIV/SFU class;
#   - specialised units (-specialized_unit_N): one named BRA takes the control instructions
#     (32 warps spinning on add/setp/bra are bound by its initiation interval), one named
#     TENSOR the mma.sync of fixtures/cuda/mma_sync (busy for its initiation interval each),
#     other names none; malformed units refused.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd ();
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(ok skip ptxemu_run run_bounded tap_done timing_config);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $ub  = 'fixtures/ptx/ubench';
my $tmp = tempdir(CLEANUP => 1);

sub field { my ($list, $i) = @_; return (split /,/, $list)[$i] }

sub kv {
    my ($s) = @_;
    my %h;
    $h{$1} = $2 while $s =~ /"([^"]+)": (\d+)/g;
    return \%h;
}

# SM 0's counters of the first kernel in a --timing-stats file.
sub json_sm0 {
    my ($path) = @_;
    open(my $fh, '<', $path) or return {};
    local $/;
    my $text = <$fh>;
    my ($sms) = $text =~ /"sm": \[(.*?)\]\}/s;
    my @sm = map { kv($_) } ($sms // '') =~ /\{([^}]*)\}/g;
    return $sm[0] // {};
}

sub set { return map { ('--timing-set', $_) } @_ }

# ---------------------------------------------------------------- specialised collectors
# tput_ffma: 32 warps, 64 iterations of 16 FFMA each (32,768) plus 256 FADD on the SP units.
my @tput = ('exec', "$ub/latency.ptx", '--kernel', 'tput_ffma', '--grid', 1, '--block', 1024,
            '--arg', 'buf:f32=1,0.5,1', '--arg', 'buf:zero=16', '--arg', 's32:64',
            '--print', '1:s64:1', '--timing=qv100');
# every kind through its own set: no generic units or ports
my @spec = set('gpgpu_enable_specialized_operand_collector=1',
               'gpgpu_operand_collector_num_units_gen=0',
               'gpgpu_operand_collector_num_in_ports_gen=0',
               'gpgpu_operand_collector_num_out_ports_gen=0',
               'gpgpu_operand_collector_num_units_int=4',
               'gpgpu_operand_collector_num_in_ports_int=4',
               'gpgpu_operand_collector_num_out_ports_int=4',
               'gpgpu_operand_collector_num_units_dp=4',
               'gpgpu_operand_collector_num_in_ports_dp=1',
               'gpgpu_operand_collector_num_out_ports_dp=1');
{
    my $cfg = timing_config('--timing=qv100');
    my $unit_limit = $cfg->{gpgpu_num_sp_units} / field($cfg->{ptx_opcode_initiation_fp}, 3);
    my %runs = (gen => [[], $unit_limit],
                sp1 => [[@spec], 1],                  # the SP set's one in and one out port
                sp1in => [[@spec, set('gpgpu_operand_collector_num_out_ports_sp=4')], 1],
                sp1out => [[@spec, set('gpgpu_operand_collector_num_in_ports_sp=4')], 1],
                sp2 => [[@spec, set('gpgpu_operand_collector_num_in_ports_sp=2',
                                    'gpgpu_operand_collector_num_out_ports_sp=2')], 2]);
    my %cyc;
    for my $name (sort keys %runs) {
        my ($opts, $limit) = @{$runs{$name}};
        my $json = "$tmp/$name.json";
        my ($code, $out, $err) = ptxemu_run(@tput, @$opts, '--timing-stats', $json);
        my $sm = json_sm0($json);
        my ($d, $a) = ($sm->{unit_sp_dispatch} // 0, $sm->{sm_active_cycles} // 0);
        $cyc{$name} = $a;
        my $min = $d / ($limit < $unit_limit ? $limit : $unit_limit);
        ok($code == 0 && $d == 33024 && $a >= $min && $a <= 1.03 * $min,
           sprintf("%s: 33,024 SP instructions at %s per cycle take %d..%d active cycles",
                   $name, $limit, $min, 1.03 * $min),
           "got $d dispatches in $a cycles (exit $code)", $err);
    }
    ok($cyc{sp1} > 1.9 * $cyc{gen},
       "one SP collector port per SM makes the FFMA stream about twice as slow as the generic "
       . "collectors", "cycles: $cyc{sp1} vs $cyc{gen}");
    my $sm = json_sm0("$tmp/sp1.json");
    ok(($sm->{opcoll_alloc_stall} // 0) > 0,
       "an instruction waiting for an SP collector is counted (opcoll_alloc_stall)",
       "got " . ($sm->{opcoll_alloc_stall} // 'none'));
}
{
    # off: the specialised values do nothing
    my ($c0, $o0, $e0) = ptxemu_run(@tput);
    my @off = set('gpgpu_enable_specialized_operand_collector=0',
                  'gpgpu_operand_collector_num_units_sp=1',
                  'gpgpu_operand_collector_num_in_ports_sp=1',
                  'gpgpu_operand_collector_num_out_ports_sp=1',
                  'gpgpu_operand_collector_num_units_sfu=1');
    my ($c1, $o1, $e1) = ptxemu_run(@tput, @off);
    my $strip = sub { my $t = shift; $t =~ s/^gpgpu_simulation_(rate|time).*\n//mg; $t };
    ok($c0 == 0 && $c1 == 0 && $o0 eq $o1 && $strip->($e0) eq $strip->($e1),
       "-gpgpu_enable_specialized_operand_collector 0: set sizes change no cycle or counter",
       "outputs $o0 / $o1", $e1);
    # a kind with units and no way to a collector is a configuration error
    my ($c2, $o2, $e2) = ptxemu_run(@tput, set('gpgpu_enable_specialized_operand_collector=1',
                                               'gpgpu_operand_collector_num_units_gen=0'));
    ok($c2 != 0 && $e2 =~ /dp instructions reach no collector unit/,
       "specialised sets that leave FP64 instructions without a collector are refused", $e2);
    my ($c3, $o3, $e3) = ptxemu_run(@tput, @spec,
                                    set('gpgpu_operand_collector_num_out_ports_sfu=0'));
    ok($c3 != 0 && $e3 =~ /num_out_ports_sfu: sfu collector units need at least one output/,
       "SFU collector units without an output port are refused", $e3);
}

# ---------------------------------------------------------------- expanded PTX ops
# The fast paths of timing/expand.c, written again as the test's specification: per machine
# instruction its class and the earlier instructions whose results it reads; the result
# instruction is marked '*'. Classes: F/D/I + ADD|MUL|MAD (SP, DP, INT), B branch, M the SFU.
my %seq = (
    div_rn_f32 => 'M F.ADD F.MAD:0 F.MAD:2,0 F.MAD:3 F.MAD:4 *F.MAD:5,3 B:1',
    rcp_rn_f32 => 'I.ADD I.ADD:0 I.ADD:1 B:2 M F.MAD:4 F.ADD:5 *F.MAD:6,4',
    sqrt_rn_f32 => 'I.ADD M I.ADD:0 B:2 F.MUL:1 F.MUL:1 F.MAD:4 *F.MAD:6,5',
    div_rn_f64 => 'I.MAD M F.ADD D.MAD:1,0 D.MAD:3 D.MAD:4,1 D.MAD:5 D.MAD:6,5 D.MUL:7 D.MAD:8 '
                  . '*D.MAD:9,7 F.MAD:1 F.ADD:11,2 B:12',
    rcp_rn_f64 => 'M I.ADD F.ADD:1 D.MAD:0 D.MAD:3 D.MAD:4,0 D.MAD:5 *D.MAD:6,5 B:2',
    sqrt_rn_f64 => 'I.MAD I.MAD M I.ADD I.ADD:3 D.MUL:2 D.MAD:5 D.MAD:6,1 D.MUL:6,2 D.MAD:8,7 '
                   . 'D.MUL:9 I.ADD:9 I.MAD:9 D.MAD:10 *D.MAD:13,12 B:4',
    div_u32 => 'M I.MAD I.ADD M:0 I.ADD:3 M:4 I.ADD I.MAD:5,1 I.MAD:7 I.MAD:8 I.MAD:9 I.MAD:10 '
               . 'I.ADD:11 I.ADD:12 I.ADD:12,9 I.ADD:13 I.ADD:15,14 *I.ADD:16,2',
    rem_u32 => 'M I.MAD I.ADD M:0 I.ADD:3 M:4 I.ADD I.MAD:5,1 I.MAD:7 I.MAD:8 I.MAD:9 I.MAD:10 '
               . 'I.ADD:11 I.ADD:12 I.ADD:13 I.ADD:14 *I.ADD:15,2',
    div_s32 => 'I.ADD I.ADD M:0 M:2 I.ADD:3 I.ADD I.ADD M:4 I.ADD I.MAD I.MAD:7 I.MAD:10,0 '
               . 'I.MAD:1 I.MAD:11 I.MAD:13,5 I.MAD:14,12 I.ADD:15 I.MAD:16 I.ADD:16 I.ADD:6 '
               . 'I.ADD:17 I.ADD:20,18 I.MAD:21,19 *I.ADD:22,8',
    rem_s32 => 'I.ADD I.ADD I.ADD M:0 I.ADD M:3 I.ADD:5 I.ADD:1 M:6 I.MAD I.MAD:8 I.MAD:10,0 '
               . 'I.MAD:11 I.MAD:12,2 I.MAD:13,7 I.ADD:14 I.MAD:15 I.ADD I.ADD:16 I.MAD:18 '
               . 'I.ADD:19,4 *I.ADD:20,17');

# Cycles between the last machine instructions of two consecutive operations of a dependent
# chain (each operation reads the previous one's result), after 16 operations of warm-up, with
# a clock read (an INT instruction) after operation 16 and after operation 80, as ops.cu
# times it: the 64 operations' cycles. One warp: one instruction issued per cycle, in order;
# an instruction issues when the results it reads are ready; issued at t it reaches its unit
# (one per class in the warp's sub-core) at t + 2 at the earliest (operand stage, then
# execute), the unit accepts one every init cycles, and its result is ready at t + latency,
# or one cycle after the unit took it if that is later (the model's latency semantics).
sub chain_cycles {
    my ($cfg, $name) = @_;
    my @il = split /,/, $cfg->{ptx_opcode_latency_int};
    my @ii = split /,/, $cfg->{ptx_opcode_initiation_int};
    my @fl = split /,/, $cfg->{ptx_opcode_latency_fp};
    my @fi = split /,/, $cfg->{ptx_opcode_initiation_fp};
    my @dl = split /,/, $cfg->{ptx_opcode_latency_dp};
    my @di = split /,/, $cfg->{ptx_opcode_initiation_dp};
    my ($ml, $mi) = split /,/, $cfg->{trace_opcode_latency_initiation_sfu};
    my %k = (ADD => 0, MUL => 2, MAD => 3);
    my @ops;
    for my $t (split ' ', $seq{$name}) {
        my ($res, $cls, $deps) = $t =~ /^(\*?)([A-Z.]+)(?::([\d,]+))?$/ or die "bad $t";
        my ($u, $l) = split /\./, $cls;
        my ($lat, $ini, $unit) =
            $u eq 'M' ? ($ml, $mi, 'sfu')
          : $u eq 'F' ? ($fl[$k{$l}], $fi[$k{$l}], 'sp')
          : $u eq 'D' ? ($dl[$k{$l}], $di[$k{$l}], 'dp')
          : $u eq 'I' ? ($il[$k{$l}], $ii[$k{$l}], 'int')
          :             ($il[0], $ii[0], 'int');                      # B: a control op
        push @ops, {lat => $lat, ini => $ini, unit => $unit, res => $res,
                    deps => [split /,/, $deps // '']};
    }
    my ($t, $val) = (0, 0); # $val: the chain value's ready cycle
    my (%free, @last);
    my $clk = sub { my $d = $t + 2 > ($free{int} // 0) ? $t + 2 : $free{int};
                    $free{int} = $d + $ii[0]; $t++ };
    for my $n (0 .. 80) {
        my @ready;
        for my $i (0 .. $#ops) {
            my $o = $ops[$i];
            my $at = $t;
            $at = $val if $i == 0 && $val > $at;
            for my $d (@{$o->{deps}}) { $at = $ready[$d] if $ready[$d] > $at }
            my $disp = $at + 2 > ($free{$o->{unit}} // 0) ? $at + 2 : $free{$o->{unit}};
            $free{$o->{unit}} = $disp + $o->{ini};
            $ready[$i] = $at + $o->{lat} > $disp + 1 ? $at + $o->{lat} : $disp + 1;
            $val = $ready[$i] if $o->{res};
            $t = $at + 1;
        }
        $last[$n] = $t - 1;
        $clk->() if $n == 16 || $n == 80;
    }
    return $last[80] - $last[16];
}

my $ops = "$ub/ops.ptx";
my %ub = (div_rn_f32 => ['lat_div_f32', 'buf:f32=1.5,1.0001'],
          sqrt_rn_f32 => ['lat_sqrt_f32', 'buf:f32=2'], rcp_rn_f32 => ['lat_rcp_f32', 'buf:f32=2'],
          div_s32 => ['lat_div_s32', 'buf:s32=1000000,1']);
# the f64, unsigned and remainder forms: chains written here (16 + 64 operations, clocks as
# ops.cu)
my %mine = (div_rn_f64 => ['f64', 'div.rn.f64 %x, %x, %y', '1.5', '1.0001'],
            rcp_rn_f64 => ['f64', 'rcp.rn.f64 %x, %x', '2', '0'],
            sqrt_rn_f64 => ['f64', 'sqrt.rn.f64 %x, %x', '2', '0'],
            div_u32 => ['u32', 'div.u32 %x, %x, %y', '4000000000', '1'],
            rem_u32 => ['u32', 'rem.u32 %x, %x, %y', '1000', '7'],
            rem_s32 => ['s32', 'rem.s32 %x, %x, %y', '-1000', '7']);
my $ptx = "$tmp/chains.ptx";
{
    open(my $fh, '>', $ptx) or die "$ptx: $!";
    print $fh ".version 7.0\n.target sm_70\n.address_size 64\n";
    for my $k (sort keys %mine) {
        my ($ty, $op, $x, $y) = @{$mine{$k}};
        my $rt = $ty eq 'f64' ? '.f64' : '.b32';
        my $lit = sub { my $v = shift; $ty eq 'f64' ? sprintf('0d%016X', unpack('Q<', pack('d<', $v))) : $v };
        print $fh ".visible .entry $k(.param .u64 out)\n{\n  .reg $rt %x, %y;\n"
            . "  .reg .b64 %t<3>, %p;\n  mov$rt %x, " . $lit->($x) . ";\n  mov$rt %y, "
            . $lit->($y) . ";\n";
        print $fh "  $op;\n" for 1 .. 16;
        print $fh "  mov.u64 %t1, %clock64;\n";
        print $fh "  $op;\n" for 1 .. 64;
        print $fh "  mov.u64 %t2, %clock64;\n  sub.s64 %t0, %t2, %t1;\n"
            . "  ld.param.u64 %p, [out];\n  st.global.u64 [%p], %t0;\n"
            . "  st.global$rt [%p+8], %x;\n  ret;\n}\n";
    }
}
my @lat_variants = (['--timing=qv100'], ['--timing=rtx2060'],
                    ['--timing=qv100', set('trace_opcode_latency_initiation_sfu=17,4',
                                           'ptx_opcode_latency_fp=4,13,5,6,39',
                                           'ptx_opcode_latency_int=3,13,4,7,145,21',
                                           'ptx_opcode_latency_dp=8,19,9,10,330')]);
for my $v (@lat_variants) {
    my $cfg = timing_config(@$v);
    for my $name (sort keys %seq) {
        my @run = $ub{$name}
            ? ('exec', $ops, '--kernel', $ub{$name}[0], '--arg', $ub{$name}[1])
            : ('exec', $ptx, '--kernel', $name);
        my ($code, $out, $err) = ptxemu_run(@run, '--grid', 1, '--block', 1, '--arg',
                                            'buf:zero=16', '--print',
                                            ($ub{$name} ? 1 : 0) . ':s64:1', @$v);
        chomp $out;
        my $want = chain_cycles($cfg, $name);
        my $n = scalar(split ' ', $seq{$name});
        ok($code == 0 && $out eq $want,
           "$name @$v: 64 dependent operations of $n machine instructions take $want cycles",
           "got '$out' (exit $code)", $err);
    }
}
{
    # issue slots and units: ops.cu's 80 divisions of lat_div_f32 are 80 x 8 machine
    # instructions (7 before the last of each: ptxemu_uop_issue), 80 MUFU on the SFU, 80 x 6
    # (FCHK, 5 FFMA) on the SP units besides the kernel's own; div.s32: 80 x 3 on the SFU
    my %want = (lat_div_f32 => [80 * 7, 80, 'buf:f32=1.5,1.0001'],
                lat_div_s32 => [80 * 23, 80 * 3, 'buf:s32=1000000,1']);
    for my $k (sort keys %want) {
        my ($uops, $sfu, $arg) = @{$want{$k}};
        my %st;
        for my $x (1, 0) {
            my ($code, $out, $err) = ptxemu_run('exec', $ops, '--kernel', $k, '--arg', $arg,
                                                '--grid', 1, '--block', 1, '--arg', 'buf:zero=16',
                                                '--timing=qv100',
                                                set("ptxemu_expand_ptx=$x"));
            $st{$x}{$1} = $2 while $err =~ /^(\w+) = (\d+)$/mg;
        }
        ok(($st{1}{ptxemu_uop_issue} // -1) == $uops && ($st{1}{unit_sfu_dispatch} // -1) == $sfu
           && $st{1}{sched_issue} == $st{1}{gpgpu_n_tot_w_icount} + $uops
           && ($st{0}{ptxemu_uop_issue} // -1) == 0
           && $st{1}{gpgpu_n_tot_w_icount} == $st{0}{gpgpu_n_tot_w_icount},
           "$k: $uops extra machine instructions issued, $sfu on the SFU; the PTX instruction "
           . "count unchanged",
           "uops $st{1}{ptxemu_uop_issue}, sfu $st{1}{unit_sfu_dispatch}, sched_issue "
           . "$st{1}{sched_issue}, warp insns $st{1}{gpgpu_n_tot_w_icount}");
    }
    my $cfg = timing_config('--timing=qv100');
    for my $c (['lat_div_f32', 'buf:f32=1.5,1.0001', field($cfg->{ptx_opcode_latency_fp}, 4)],
               ['lat_div_s32', 'buf:s32=1000000,1', field($cfg->{ptx_opcode_latency_int}, 4)],
               ['lat_sqrt_f32', 'buf:f32=2', $cfg->{ptx_opcode_latency_sfu}]) {
        my ($k, $arg, $lat) = @$c;
        my ($code, $out, $err) = ptxemu_run('exec', $ops, '--kernel', $k, '--arg', $arg,
                                            '--grid', 1, '--block', 1, '--arg', 'buf:zero=16',
                                            '--print', '1:s64:1', '--timing=qv100',
                                            set('ptxemu_expand_ptx=0'));
        chomp $out;
        ok($code == 0 && $out == 64 * $lat,
           "$k -ptxemu_expand_ptx 0: one instruction of latency $lat (" . 64 * $lat . " cycles)",
           "got '$out'", $err);
    }
}

{
    # throughput: 32 warps of 8 independent div.rn.f32 chains (16 iterations, 4,096 warp
    # divisions) are bound by the SP units: 6 of the 8 machine instructions (FCHK, 5 FFMA) go
    # there, one every initiation interval per unit; unexpanded, one SP instruction of the fp
    # DIV class each
    my $tp = "$tmp/tput_div.ptx";
    open(my $fh, '>', $tp) or die "$tp: $!";
    print $fh ".version 7.0\n.target sm_70\n.address_size 64\n"
        . ".visible .entry tput_div(.param .u32 n)\n{\n  .reg .f32 %x<8>, %b;\n"
        . "  .reg .u32 %i, %n;\n  .reg .pred %p;\n  mov.f32 %b, 0f3F800347;\n";
    print $fh "  mov.f32 %x$_, 0f3FC00000;\n" for 0 .. 7;
    print $fh "  ld.param.u32 %n, [n];\n  mov.u32 %i, 0;\nL:\n";
    print $fh "  div.rn.f32 %x$_, %x$_, %b;\n" for 0 .. 7;
    print $fh "  add.u32 %i, %i, 1;\n  setp.lt.u32 %p, %i, %n;\n  \@%p bra L;\n  ret;\n}\n";
    close $fh;
    my $cfg = timing_config('--timing=qv100');
    my ($units, $mad, $div) = ($cfg->{gpgpu_num_sp_units}, field($cfg->{ptx_opcode_initiation_fp}, 3),
                               field($cfg->{ptx_opcode_initiation_fp}, 4));
    my %act;
    for my $x (1, 0) {
        my $json = "$tmp/tput_div$x.json";
        my ($code, $out, $err) = ptxemu_run('exec', $tp, '--kernel', 'tput_div', '--grid', 1,
                                            '--block', 1024, '--arg', 'u32:16', '--timing=qv100',
                                            set("ptxemu_expand_ptx=$x"), '--timing-stats', $json);
        my $sm = json_sm0($json);
        my ($d, $a) = ($sm->{unit_sp_dispatch} // 0, $sm->{sm_active_cycles} // 0);
        $act{$x} = $a;
        # the 9 x 32 moves and the 4,096 divisions' SP instructions
        my $want_d = 288 + 4096 * ($x ? 6 : 1);
        my $min = $x ? $d * $mad / $units : (4096 * $div + ($d - 4096) * $mad) / $units;
        ok($code == 0 && $d == $want_d && $a >= $min && $a <= 1.03 * $min,
           sprintf("4,096 division%s: $want_d SP instructions take %d..%d active cycles",
                   $x ? 's of 8 machine instructions' : 's, one instruction each', $min,
                   1.03 * $min), "got $d SP dispatches in $a cycles", $err);
    }
}

# ---------------------------------------------------------------- specialised units
{
    # a unit named BRA takes the control instructions: 32 warps spinning on add, setp, bra
    # (64 iterations; 2,048 bra and 32 ret) are bound by its initiation interval per sub-core
    my $lp = "$tmp/spin.ptx";
    open(my $fh, '>', $lp) or die "$lp: $!";
    print $fh ".version 7.0\n.target sm_70\n.address_size 64\n"
        . ".visible .entry spin(.param .u32 n)\n{\n  .reg .u32 %i, %n;\n  .reg .pred %p;\n"
        . "  ld.param.u32 %n, [n];\n  mov.u32 %i, 0;\nL:\n  add.u32 %i, %i, 1;\n"
        . "  setp.lt.u32 %p, %i, %n;\n  \@%p bra L;\n  ret;\n}\n";
    close $fh;
    my @spin = ('exec', $lp, '--kernel', 'spin', '--grid', 1, '--block', 1024, '--arg', 'u32:64',
                '--timing=qv100');
    my $cfg = timing_config('--timing=qv100');
    my $parts = $cfg->{gpgpu_num_sched_per_core};
    for my $ini (16, 1) {
        my $json = "$tmp/spin$ini.json";
        my ($code, $out, $err) = ptxemu_run(@spin, set('specialized_unit_1=1,4,4,4,4,BRA',
                                                       "trace_opcode_latency_initiation_spec_op_1=4,$ini"),
                                            '--timing-stats', $json);
        my $sm = json_sm0($json);
        my ($d, $i, $a) = map { $sm->{$_} // 0 } qw(unit_spec_dispatch unit_int_dispatch
                                                       sm_active_cycles);
        # bound: the BRA unit of each sub-core, or the INT unit for the add and setp
        my $per = $d / $parts;
        my $min = $ini * $per > $i / $parts * field($cfg->{ptx_opcode_initiation_int}, 0)
                      ? $ini * $per : $i / $parts * field($cfg->{ptx_opcode_initiation_int}, 0);
        ok($code == 0 && $d == 2080 && $i == 4160 && $a >= $min && $a <= 1.03 * $min,
           "BRA unit, initiation $ini: 2,080 control instructions on it, 4,160 on the INT units, "
           . sprintf("%d..%d active cycles", $min, 1.03 * $min),
           "got $d / $i dispatches in $a cycles", $err);
    }
    my ($code, $out, $err) = ptxemu_run(@spin, '--timing-stats', "$tmp/spin.json");
    my $sm = json_sm0("$tmp/spin.json");
    ok($code == 0 && ($sm->{unit_spec_dispatch} // -1) == 0 && $sm->{unit_int_dispatch} == 6240,
       "without specialised units the control instructions use the INT units (6,240)",
       "got $sm->{unit_int_dispatch}", $err);
    ($code, $out, $err) = ptxemu_run(@spin, set('specialized_unit_2=1,4,4,4,4,UDP'),
                                     '--timing-stats', "$tmp/spin2.json");
    $sm = json_sm0("$tmp/spin2.json");
    ok($code == 0 && ($sm->{unit_spec_dispatch} // -1) == 0 && $sm->{unit_int_dispatch} == 6240,
       "a unit of another name takes no PTX instruction", $err);
    for my $bad (['specialized_unit_1=1,4,4,4,BRA', qr/specialized_unit_1: expected <enabled>/],
                 ['specialized_unit_1=1,2,4,4,4,BRA', qr/2 units do not split over the 4 sub-cores/],
                 ['specialized_unit_1=1,4,4,0,4,BRA', qr/register widths and max latency/]) {
        my ($c, $o, $e) = ptxemu_run(@spin, set($bad->[0]));
        ok($c != 0 && $e =~ $bad->[1], "-$bad->[0] refused", $e);
    }
}
{
    # a unit named TENSOR takes the tensor-core instructions (fixtures/cuda/mma_sync: 24
    # mma.sync), each holding it for its initiation interval
    my $exe = 'build/fixtures/mma_sync';
    if (!-x $exe) {
        skip("$exe not built (tests/cuda_programs.t builds it)");
    } else {
        my $conf = "$tmp/tensor.config";
        open(my $fh, '>', $conf) or die "$conf: $!";
        print $fh "-config " . Cwd::getcwd() . "/configs/h100.config\n"
            . "-specialized_unit_3 1,4,32,4,4,TENSOR\n"
            . "-trace_opcode_latency_initiation_spec_op_3 40,40\n";
        close $fh;
        my %t;
        my $build = $ENV{PTXEMU_BUILD} // 'build';
        my %env;
        if ($build =~ /asan/) { # the program loads the ASan libcudart: the runtime first
            chomp(my $so = `gcc -print-file-name=libasan.so`);
            $env{LD_PRELOAD} = $so if $so =~ m{/};
        }
        for my $c ('h100', $conf) {
            unlink "$tmp/mma.json";
            my ($code, $out, $err) = run_bounded(300, \%env, "$build/ptxemu", 'run',
                                                 "--timing=$c", '--timing-stats',
                                                 "$tmp/mma.json", '--', $exe);
            my $text = '';
            if (open(my $jf, '<', "$tmp/mma.json")) {
                local $/;
                $text = <$jf>;
            }
            my %sum;
            while ($text =~ /"totals": \{([^}]*)\}/g) {
                my $kv = kv($1);
                $sum{$_} += $kv->{$_} for keys %$kv;
            }
            $t{$c} = \%sum;
            ok($code == 0 && $out =~ /PASS/, "mma_sync under --timing=" . ($c eq 'h100' ? 'h100' : 'h100 + TENSOR unit') . " passes", $err);
        }
        my ($b, $s) = ($t{h100}, $t{$conf});
        ok($b->{unit_tensor_dispatch} > 0 && $s->{unit_spec_dispatch} == $b->{unit_tensor_dispatch}
           && $s->{unit_tensor_dispatch} == 0
           && $s->{unit_spec_busy} == 39 * $s->{unit_spec_dispatch},
           "the $b->{unit_tensor_dispatch} mma.sync run on the TENSOR unit, each busy 40 cycles",
           "spec $s->{unit_spec_dispatch} busy $s->{unit_spec_busy}, tensor "
           . "$s->{unit_tensor_dispatch}");
    }
}

exit(tap_done());
