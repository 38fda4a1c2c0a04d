#!/usr/bin/env perl
# tests/timing_tex.t - the L1T's texture pipeline (GPGPU-Sim's tex_cache: fragment FIFO,
# request FIFO, reorder buffer, sized by the MSHR-entries, merge and miss-queue fields of
# -gpgpu_tex_cache:l1) on fixtures/cuda/tm_tex, whose first three kernels have one warp fetch
# 1, 8 and 32 texture lines (all misses, L2 hits: -gpgpu_perf_sim_memcpy warmed them) and
# then the same texels again (all hits). Per kernel k, C_k its cycles; the cost of a line is
# the slope (C_2 - C_1) / 7 = (C_3 - C_2) / 24 (both equal: every line costs the same):
#   - the presets' sizes (512, 8, 128): misses overlap, a line costs a few cycles;
#   - a one-entry reorder buffer: a miss waits until the previous one was answered, so a line
#     costs the miss's round trip L (every response of these kernels takes mem_latency_sum /
#     mem_responses cycles from send to delivery) plus 1 (a response the memory system
#     delivers in cycle c is taken in the SM's cycle c + 1), the hits still overlapping;
#   - a one-entry fragment FIFO: every access waits until the previous one was answered, so
#     each hit also costs the L1T hit latency instead of 1 cycle: lat - 1 more per line
#     (lat = -ptxemu_l1t_latency, 0: -gpgpu_l1_latency; checked with the default and 40);
#   - a sectored L1T with a two-entry reorder buffer runs tm_tex to PASS with its misses.
use strict;
use warnings;
use File::Basename qw(dirname);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(find_nvcc kernels_stats ok program_env run_bounded skip tap_done timing_config);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $build = $ENV{PTXEMU_BUILD} // 'build';

my $exe = 'build/fixtures/tm_tex';
my $nvcc = find_nvcc();
if ($nvcc && (!-x $exe || -M $exe > -M 'fixtures/cuda/tm_tex.cu')) {
    local $ENV{NVCC} = $nvcc;
    `scripts/gen-fixtures.sh --exe --variants '' tm_tex 2>&1`;
}
if (!-x $exe) {
    skip('tm_tex needs nvcc to build');
    exit(tap_done());
}
my $cfg = timing_config('--timing=qv100');
my @f = split /,/, $cfg->{'gpgpu_tex_cache:l1'};
my ($kind, $frag, $req) = split /:/, $f[2];
my ($rob, $fifo) = split /:/, $f[3];

# (cost of a line, the two slopes agree, response latency of kernel 3 or undef) of a run
sub line_cost {
    my ($fields, @set) = @_;
    my $l1t = join ',', @f[0, 1], @$fields;
    my %env = program_env(PTXEMU_TIMING => 'qv100',
                          PTXEMU_TIMING_SET => join(';', "gpgpu_tex_cache:l1=$l1t", @set));
    my ($code, $out, $err) = run_bounded(300, \%env, "./$exe");
    my @k = kernels_stats($err);
    return (undef, 0, undef, "$out$err") if $code || $out !~ /^PASS$/m || @k < 3;
    my ($a, $b) = (($k[1]{gpu_sim_cycle} - $k[0]{gpu_sim_cycle}) / 7,
                   ($k[2]{gpu_sim_cycle} - $k[1]{gpu_sim_cycle}) / 24);
    my $lat = $k[2]{mem_latency_sum} / $k[2]{mem_responses};
    return ($a, $a == $b, $lat, "slopes $a, $b");
}

my ($p0, $lin0, undef, $e0) = line_cost(["$kind:$frag:$req", "$rob:$fifo"]);
my ($p1, $lin1, $l, $e1) = line_cost(["$kind:$frag:$req", "1:$fifo"]);
ok(defined $p0 && $lin0 && defined $p1 && $lin1 && $p0 < 10 && $p1 == $l + 1,
   "texture misses: a line costs " . ($p0 // '?') . " cycles with a $rob-entry reorder buffer, "
   . "the round trip + 1 = " . (defined $l ? $l + 1 : '?') . " with one entry (got "
   . ($p1 // '?') . ')', $e0, $e1);
for my $lat ('', 40) {
    my @set = $lat eq '' ? () : ("ptxemu_l1t_latency=$lat");
    my $hit = $lat eq '' ? $cfg->{gpgpu_l1_latency} : $lat;
    my ($pr, $linr, undef, $er) = line_cost(["$kind:$frag:$req", "1:$fifo"], @set);
    my ($pf, $linf, undef, $ef) = line_cost(["$kind:1:$req", "$rob:$fifo"], @set);
    ok(defined $pr && defined $pf && $linr && $linf && $pf == $pr + $hit - 1,
       "one-entry fragment FIFO, hit latency $hit: a line costs $hit - 1 more than with a "
       . "one-entry reorder buffer (" . ($pf // '?') . ' vs ' . ($pr // '?') . ')', $er, $ef);
}

# a sectored L1T ('S') with a two-entry reorder buffer: its tag array's MSHRs count sectors,
# so it gets one per sector of each reorder-buffer entry (4-sector misses once deadlocked)
{
    my $l1t = join ',', 'S' . substr($f[0], 1), $f[1], "$kind:$frag:$req", "2:$fifo";
    my %env = program_env(PTXEMU_TIMING => 'qv100',
                          PTXEMU_TIMING_SET => "gpgpu_tex_cache:l1=$l1t");
    my ($code, $out, $err) = run_bounded(300, \%env, "./$exe");
    my $miss = join ' ', map { $_->{L1T_total_cache_misses} // '?' } kernels_stats($err);
    ok($code == 0 && $out =~ /^PASS$/m && $miss eq '1 8 32 1 4',
       "a sectored L1T with a 2-entry reorder buffer: PASS, misses $miss", $out, $err);
}

# a sectored L1T ('S') with a two-entry reorder buffer: its tag array's MSHRs count sectors,
# so it gets one per sector of each reorder-buffer entry (4-sector misses once deadlocked)
{
    my $l1t = join ',', 'S' . substr($f[0], 1), $f[1], "$kind:$frag:$req", "2:$fifo";
    my %env = program_env(PTXEMU_TIMING => 'qv100',
                          PTXEMU_TIMING_SET => "gpgpu_tex_cache:l1=$l1t");
    my ($code, $out, $err) = run_bounded(300, \%env, "./$exe");
    my $miss = join ' ', map { $_->{L1T_total_cache_misses} // '?' } kernels_stats($err);
    ok($code == 0 && $out =~ /^PASS$/m && $miss eq '1 8 32 1 4',
       "a sectored L1T with a 2-entry reorder buffer: PASS, misses $miss", $out, $err);
}

exit(tap_done());
