#!/usr/bin/env perl
# tests/timing_lrc.t - the L2 slices' load request coalescer (-gpgpu_lrc_*, Accel-Sim's
# L2RequestCoalescer) on chase_cg of tests/ubench/memory.cu: one thread per SM on every SM of
# qv100 chases the same 64 lines with ld.global.cg (one read per SM and step), in lockstep, so
# each line's N = SMs reads reach its slice before the first one's reply leaves. With at most
# M reads per entry (-gpgpu_lrc_max_merged, the one sent on included), each step's N reads are
# ceil(N / M) L2 reads and N - ceil(N / M) merged ones: L2_partition_lrc_merged is
# 64 x (N - ceil(N / M)), the L2 read accesses fall by as many, every read is still answered
# (read replies 64 x N); M = 1 (nothing merges) is the run without the coalescer, cycle for
# cycle; a one-entry coalescer makes reads wait in the network (stall_lrc_full) and still
# answers all of them.
use strict;
use warnings;
use File::Basename qw(dirname);
use POSIX qw(ceil);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(ok ptxemu_run tap_done timing_config);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";

sub kernel_stats {
    my ($err) = @_;
    my %s;
    $s{$1} = $2 while $err =~ /^(\S+) = (\S+)/mg;
    return \%s;
}

my $cfg = timing_config('--timing=qv100');
my $n = $cfg->{gpgpu_n_clusters} * $cfg->{gpgpu_n_cores_per_cluster};
sub run {
    my @set = @_;
    my ($code, $out, $err) = ptxemu_run('exec', 'fixtures/ptx/ubench/memory.ptx', '--kernel',
        'chase_cg', '--grid', $n, '--block', 1, '--arg', 'buf:zero=65536', '--arg', 'u32:32',
        '--arg', 'u32:255', '--arg', 's32:0', '--arg', 's32:64', '--arg', 'buf:zero=16',
        '--timing=qv100', map { ('--timing-set', $_) } @set);
    return $code ? undef : kernel_stats($err);
}
sub l2_reads {
    my ($s) = @_;
    my $t = 0;
    $t += $s->{"L2_cache_stats_breakdown[GLOBAL_ACC_R][$_]"} // 0 for qw(HIT HIT_RESERVED MISS);
    return $t;
}

my $off = run('gpgpu_lrc_enabled=0');
for my $m (1, 3, 4, $n) {
    my $s = run('gpgpu_lrc_enabled=1', "gpgpu_lrc_max_merged=$m");
    my $want = 64 * ($n - ceil($n / $m));
    my $ok = $off && $s && $s->{L2_partition_lrc_merged} == $want
        && l2_reads($s) == l2_reads($off) - $want
        && $s->{L2_partition_read_replies} == 64 * $n
        && ($m > 1 || $s->{gpu_sim_cycle} == $off->{gpu_sim_cycle});
    ok($ok, "-gpgpu_lrc_max_merged $m: $want of " . 64 * $n . ' reads merged, the L2 reads '
       . 'fewer by as many, every read answered' . ($m == 1 ? ', cycles as without' : ''),
       $s ? "merged $s->{L2_partition_lrc_merged}, L2 reads " . l2_reads($s) . ' (without: '
            . ($off ? l2_reads($off) : '?') . "), replies $s->{L2_partition_read_replies}, "
            . "cycles $s->{gpu_sim_cycle}" : 'run failed');
}
my $s = run('gpgpu_lrc_enabled=1', 'gpgpu_lrc_max_merged=4', 'gpgpu_lrc_max_entries=1');
ok($s && $s->{L2_partition_stall_lrc_full} > 0 && $s->{L2_partition_read_replies} == 64 * $n,
   'a one-entry coalescer holds reads in the network and answers all ' . 64 * $n,
   $s ? "stalls $s->{L2_partition_stall_lrc_full}, replies $s->{L2_partition_read_replies}"
      : 'run failed');

exit(tap_done());
