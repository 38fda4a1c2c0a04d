#!/usr/bin/env perl
# tests/cuda_programs.t - build every fixtures/cuda/NAME.cu with nvcc and run
# it on ptxemu's libcudart.so.13; it must print PASS and exit 0.  When
# fixtures/cuda/NAME.expected exists, the whole stdout must equal it.
#
# Executables go to build/fixtures/NAME (scripts/gen-fixtures.sh --exe, two
# nvcc at a time) and are rebuilt only when older than their source.  They run
# with LD_LIBRARY_PATH=$PTXEMU_BUILD/lib (default build/lib); under an ASan
# build the sanitizer runtime is preloaded, since the program itself is not
# instrumented.
#
# Without nvcc everything is skipped.  PTXEMU_TIMEOUT (seconds, default 300) bounds each program.
use strict;
use warnings;
use File::Basename qw(dirname basename);
use Cwd qw(getcwd);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(find_nvcc run_bounded fixture_sm);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $root  = getcwd();
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $lib   = "$build/lib";

my $timeout = $ENV{PTXEMU_TIMEOUT} // 300;

my $nvcc = find_nvcc();
if (!$nvcc) {
    print "1..0 # SKIP nvcc not found\n";
    exit 0;
}

my @srcs = sort glob('fixtures/cuda/*.cu');
print "1..", scalar(@srcs), "\n";

# Build what is stale (errors show up per program below).
my @stale = grep { my $e = 'build/fixtures/' . basename($_, '.cu');
                   !-x $e || -M $e > -M $_ } @srcs;
my $buildlog = '';
if (@stale) {
    my @names = map { basename($_, '.cu') } @stale;
    local $ENV{NVCC} = $nvcc;
    $buildlog = `scripts/gen-fixtures.sh --exe --variants '' @names 2>&1`;
}

sub run_cmd { return run_bounded($timeout, @_) }

sub lines {
    my ($label, $text) = @_;
    my @l = split /\n/, $text;
    @l = (@l[0 .. 29], '... (' . (@l - 30) . ' more lines)') if @l > 30;
    return map { "#   $label| $_\n" } @l;
}

my $libdir = $lib =~ m{^/} ? $lib : "$root/$lib";
my %env = (LD_LIBRARY_PATH => $libdir . ($ENV{LD_LIBRARY_PATH} ? ":$ENV{LD_LIBRARY_PATH}" : ''));
if ($build =~ /asan/) {
    chomp(my $asan = `gcc -print-file-name=libasan.so`);
    $env{LD_PRELOAD} = $asan if $asan =~ m{/};
}

# Where the dynamic loader resolves libcudart.so.13 for this program.
sub loaded_cudart {
    my ($exe) = @_;
    my ($code, $out) = run_cmd({ %env, LD_TRACE_LOADED_OBJECTS => 1, LD_PRELOAD => '' }, "./$exe");
    return $out =~ /^\s*libcudart\.so\.13 => (\S+)/m ? $1 : '(not found)';
}

my $n = 0;
for my $src (@srcs) {
    $n++;
    my $name = basename($src, '.cu');
    my $exe  = "build/fixtures/$name";
    my @why;
    if (!-x $exe || -M $exe > -M $src) {
        push @why, "# nvcc failed to build $exe\n", lines('nvcc', $buildlog);
    } elsif (!-f "$lib/libcudart.so.13") {
        # Never fall back to the real libcudart (it is in the ld.so cache).
        push @why, "# $lib/libcudart.so.13 is not built (run ninja)\n";
    } elsif ((my $where = loaded_cudart($exe)) !~ m{^\Q$libdir\E/}) {
        # The real libcudart is in the ld.so cache: make sure it is ours.
        push @why, "# $exe would load libcudart.so.13 from '$where', not $libdir\n";
    } else {
        # a program that needs an architecture newer than the emulated default (sm_90) runs
        # on that device: `// fixtures: sm_100a` -> PTXEMU_DEVICE=sm=100
        my %penv = %env;
        $penv{PTXEMU_DEVICE} = "sm=" . fixture_sm($src) if fixture_sm($src);
        my ($code, $out, $err, $to) = run_cmd(\%penv, "./$exe");
        my $expected = "fixtures/cuda/$name.expected";
        if ($to) {
            push @why, "# timed out after ${timeout}s\n";
        } elsif ($code != 0) {
            push @why, "# exit status $code\n";
        }
        if ($out !~ /^PASS$/m) {
            push @why, "# no PASS line in stdout\n";
        }
        if (-f $expected) {
            open(my $fh, '<', $expected) or die;
            local $/;
            my $want = <$fh>;
            push @why, "# stdout differs from $expected\n", lines('want', $want) if $out ne $want;
        }
        push @why, lines('stdout', $out), lines('stderr', $err) if @why;
    }
    print((@why ? 'not ok' : 'ok'), " $n - $name\n");
    print @why;
}
