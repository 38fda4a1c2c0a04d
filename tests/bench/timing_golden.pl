#!/usr/bin/perl
# tests/bench/timing_golden.pl — the bit-identity check for timing-mode speed work (issue 24
# item 3): saves the full --timing-stats JSON of every bench kernel (bench.list, grids scaled
# down by --scale, default 64) under the qv100, rtx3070 and h100 presets, plus the timing
# fixture programs (fixtures/cuda tm_* and the ones tests/timing_skip.t runs, h100 preset) and
# the statistics log of each kernel run without --timing-stats (statistics JSON turns idle
# skipping off, so the log covers the skipping path), and
# compares a later build's JSON with them byte for byte. Also prints the host seconds of each
# run (a measurement, never a test).
#   usage: timing_golden.pl --save DIR  [--build BUILD] [--scale N] [--presets a,b] [NAME...]
#          timing_golden.pl --check DIR [--build BUILD] [--scale N] [--presets a,b] [NAME...]
# Exit status 1 when --check finds a difference or a missing file.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Path qw(make_path);
use Getopt::Long;
use Time::HiRes qw(time);

my $dir     = dirname(__FILE__);
my $build   = $ENV{PTXEMU_BUILD} // 'build';
my ($save, $check);
my $scale   = 64;
my $presets = 'qv100,rtx3070,h100';
my $progs   = 1;
GetOptions('build=s' => \$build, 'save=s' => \$save, 'check=s' => \$check,
           'scale=i' => \$scale, 'presets=s' => \$presets, 'programs!' => \$progs)
    or die "usage: timing_golden.pl --save DIR | --check DIR [--build B] [--scale N]\n";
my $out = $save // $check or die "timing_golden.pl: --save DIR or --check DIR\n";
make_path($out) if $save;
my %only = map { $_ => 1 } @ARGV;

sub slurp { open my $f, '<', $_[0] or return undef; local $/; my $s = <$f>; return $s; }

my @kernels;
open my $fh, '<', "$dir/bench.list" or die "bench.list: $!";
while (<$fh>) {
    next if /^\s*(#|$)/;
    my ($name, $class, $chk, $args) = /^(\S+)\s+(\S+)\s+(\S+)\s+(.*?)\s*$/ or next;
    next if %only && !$only{$name};
    $args =~ s{--grid (\d+)(,\d+)?}{
        my ($x, $rest) = ($1, $2 // '');
        my $nx = int($x / $scale); $nx = 1 if $nx < 1;
        "--grid $nx$rest"
    }e;
    push @kernels, [$name, $args];
}
close $fh;

my $bad = 0;
my $total = 0;
sub compare {
    my ($tag, $file, $ext) = @_;
    return if $save;
    my $new = slurp($file);
    my $old = slurp("$out/$tag." . ($ext // 'json'));
    if (!defined $old) { print "MISSING $tag\n"; $bad++; return; }
    if (!defined $new || $new ne $old) { print "DIFFER  $tag\n"; $bad++; return; }
}
my $tmp = $save ? $out : "$out/new.$$"; # (checks may run at once)
make_path($tmp);
for my $p (split /,/, $presets) {
    for my $k (@kernels) {
        my ($name, $args) = @$k;
        my $tag = "$name-$p";
        my $j = "$tmp/$tag.json";
        unlink $j;
        my $t0 = time;
        my $o = `$build/ptxemu exec $dir/kernels_sm80.ptx --kernel $name $args --threads 1 --timing=$p --timing-stats $j 2>&1 >/dev/null`;
        my $dt = time - $t0;
        $total += $dt;
        my ($c) = $o =~ /^gpu_sim_cycle = (\d+)/m;
        my ($w) = $o =~ /^gpgpu_n_tot_w_icount = (\d+)/m;
        printf "%-13s %-8s %10s cycles %10s winsn %7.2f s\n", $name, $p, $c // '?', $w // '?', $dt;
        compare($tag, $j);
        # and the log of a run without --timing-stats (idle skipping is on only then), less
        # the host-time lines
        my $l = "$tmp/$tag.log";
        $t0 = time;
        my $log = `$build/ptxemu exec $dir/kernels_sm80.ptx --kernel $name $args --threads 1 --timing=$p 2>&1 >/dev/null`;
        $total += time - $t0;
        $log =~ s/^gpgpu_simulation_(time|rate) = .*\n//mg;
        open my $lf, '>', $l or die "$l: $!";
        print $lf $log;
        close $lf;
        compare($tag, $l, 'log');
    }
}
if ($progs && !%only) {
    my $lib = ($build =~ m{^/} ? $build : "$ENV{PWD}/$build") . '/lib';
    for my $prog (qw(tm_copy tm_tex divergent_loop its_sched cluster_reduce reduce_shared
                     atomics matmul_tiled rt_events)) {
        my $exe = "$build/fixtures/$prog";
        $exe = "build/fixtures/$prog" unless -x $exe;
        next unless -x $exe;
        my $j = "$tmp/prog-$prog.json";
        unlink $j;
        my $t0 = time;
        system("env LD_LIBRARY_PATH=$lib PTXEMU_TIMING=h100 PTXEMU_TIMING_STATS=$j $exe >/dev/null 2>&1");
        my $dt = time - $t0;
        $total += $dt;
        printf "%-22s h100 %7.2f s\n", $prog, $dt;
        compare("prog-$prog", $j);
    }
}
printf "total %.2f s\n", $total;
if ($check) {
    print $bad ? "$bad DIFFERENT\n" : "all identical\n";
    exit($bad ? 1 : 0);
}
