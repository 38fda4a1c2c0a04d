#!/usr/bin/env perl
# tests/timing_core.t - the SM core's operand collectors and execution units beyond what
# timing.t covers, on the clock64()-timed microbenchmarks of tests/ubench (committed PTX in
# fixtures/ptx/ubench):
#   - specialised operand collectors (-gpgpu_enable_specialized_operand_collector 1): an SP set
#     whose ports pass p instructions per cycle caps 32 warps of independent FFMA at p per
#     cycle (at least dispatched/p active cycles, within 3% of it: the kernel's prologue), while the generic
#     collectors reach the SP units' limit; off, the specialised values change nothing (output
#     and statistics identical to the preset's); sets no instruction can reach are refused.
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

tap_done();
