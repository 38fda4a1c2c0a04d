#!/usr/bin/env perl
# tests/fatbin_corrupt.t - corrupted fat binaries never crash (issue 20 item 13).
#
# Builds fixtures/cuda/vecadd.cu with nvcc (-cudart shared, SASS + PTX for sm_80) into
# $PTXEMU_BUILD/fixtures/fatbin/vecadd (rebuilt when older than the source), then, in copies of
# it, overwrites one byte of its .nv_fatbin section at a time: every byte of each container
# header and entry header with 0x00 and 0xFF (a header-size field of 0xFFFF was a SIGSEGV),
# and every 61st payload byte with its complement. For each copy:
#   - `ptxemu run -- COPY` ends with an exit status, never a signal, a sanitizer report or a
#     hang; when the registered container is structurally invalid (the checks below, written
#     independently of runtime/fatbin.c), it fails with exactly one line
#     `ptxemu: invalid fat binary (section .nv_fatbin of … at +0x…): …` and the program sees
#     cudaErrorInvalidKernelImage ("device kernel image is invalid");
#   - `ptxemu fatbin COPY` exits 0 when every container of the section is well formed, and
#     otherwise 1 with exactly one line on stderr naming the file offset.
# Structural validity, as fatbin.h documents it: magic 0xBA55ED50, header size 16..available,
# header + size within the section; entries of header size 64..left and a payload within the
# container, back to back to its end; zero padding (8-byte words) between containers.
# Skips without nvcc.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Path qw(make_path);
use File::Temp qw(tempdir);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(find_nvcc run_bounded);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $build   = $ENV{PTXEMU_BUILD} // 'build';
my $ptxemu  = "$build/ptxemu";
my $timeout = $ENV{PTXEMU_TIMEOUT} // 60;

my $nvcc = find_nvcc();
if (!$nvcc) {
    print "1..0 # SKIP nvcc not found\n";
    exit 0;
}
if (!-x $ptxemu) {
    print "1..1\nnot ok 1 - $ptxemu is not built (run ninja)\n";
    exit 0;
}

my %env;
if ($build =~ /asan/) {
    chomp(my $so = `gcc -print-file-name=libasan.so`);
    $env{LD_PRELOAD} = $so if $so =~ m{/};
    $env{ASAN_OPTIONS}  = 'abort_on_error=1:detect_leaks=0';
    $env{UBSAN_OPTIONS} = 'halt_on_error=1:abort_on_error=1:print_stacktrace=1';
}

# --- the program -----------------------------------------------------------------------------
my $src = 'fixtures/cuda/vecadd.cu';
my $dir = "$build/fixtures/fatbin";
my $exe = "$dir/vecadd";
make_path($dir);
if (!-x $exe || -M $exe > -M $src) {
    my $out = `$nvcc -cudart shared -O3 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80 -o $exe.tmp $src 2>&1`;
    if ($? != 0 || !rename("$exe.tmp", $exe)) {
        print "1..1\nnot ok 1 - nvcc builds $src\n", map { "# $_\n" } split /\n/, $out;
        exit 0;
    }
}
my $image = do { local $/; open my $f, '<:raw', $exe or die "$exe: $!"; <$f> };

# .nv_fatbin: (file offset, size) from the ELF section headers.
sub section {
    my ($b, $want) = @_;
    my ($shoff)                          = unpack 'Q<', substr($b, 0x28, 8);
    my ($shentsize, $shnum, $shstrndx)   = unpack 'v3', substr($b, 0x3a, 6);
    my $sh = sub { unpack 'VVQ<Q<Q<Q<', substr($b, $shoff + $_[0] * $shentsize, 40) };
    my (undef, undef, undef, undef, $stroff) = $sh->($shstrndx);
    for my $i (0 .. $shnum - 1) {
        my ($name, undef, undef, undef, $off, $size) = $sh->($i);
        my $nm = unpack 'Z*', substr($b, $stroff + $name, 64);
        return ($off, $size) if $nm eq $want;
    }
    return;
}
my ($soff, $ssize) = section($image, '.nv_fatbin');
die "$exe has no .nv_fatbin\n" unless defined $soff;

# Structural check of the container at $pos of the section bytes $s: (total size, entry header
# offsets relative to the container) or (undef, reason).
sub container {
    my ($s, $pos) = @_;
    my $avail = length($s) - $pos;
    return (undef, 'short') if $avail < 16;
    my ($magic, undef, $hs, $size) = unpack 'VvvQ<', substr($s, $pos, 16);
    return (undef, 'magic') if $magic != 0xBA55ED50;
    return (undef, 'header size') if $hs < 16 || $hs > $avail;
    return (undef, 'size') if $size > $avail - $hs;
    my ($off, $end, @entries) = ($hs, $hs + $size);
    while ($off < $end) {
        return (undef, 'entry header cut') if $end - $off < 64;
        my ($ehs, $psz) = unpack 'VQ<', substr($s, $pos + $off + 4, 12);
        return (undef, 'entry header size') if $ehs < 64 || $ehs > $end - $off;
        return (undef, 'payload size') if $psz > $end - $off - $ehs;
        push @entries, $off;
        $off += $ehs + $psz;
    }
    return ($end, @entries);
}

# Every container of a section: list of [pos, size, entry offsets], or undef if one is invalid.
sub containers {
    my ($s) = @_;
    my ($pos, @list) = (0);
    while ($pos < length $s) {
        if (length($s) - $pos >= 8 && substr($s, $pos, 8) eq "\0" x 8) {
            $pos += 8;
            next;
        }
        my ($size, @entries) = container($s, $pos);
        return undef unless defined $size;
        push @list, [$pos, $size, @entries];
        $pos += ($size + 7) & ~7;
    }
    return \@list;
}

my $sect = substr($image, $soff, $ssize);
my $list = containers($sect) or die "$exe: the pristine .nv_fatbin does not check out\n";

# The container the program registers: PTXEMU_DEBUG_REG names its section offset.
my ($code, $out, $err) = run_bounded($timeout, {%env, PTXEMU_DEBUG_REG => 1}, $ptxemu, 'run', '--', $exe);
my ($reg) = $err =~ /fatbin in section \.nv_fatbin of \S+ at \+0x([0-9a-f]+)/;
if ($code != 0 || $out !~ /PASS/ || !defined $reg) {
    print "1..1\nnot ok 1 - the pristine program runs and registers a container in .nv_fatbin\n";
    print map { "# $_\n" } split /\n/, $out . $err;
    exit 0;
}
$reg = hex $reg;

# Positions: every header byte, every 61st payload byte.
my @cases;
for my $c (@$list) {
    my ($pos, $size, @entries) = @$c;
    my %hdr = map { ($pos + $_ => 1) } 0 .. 15;
    for my $e (@entries) { $hdr{$pos + $e + $_} = 1 for 0 .. 63 }
    for my $p (sort { $a <=> $b } keys %hdr) {
        for my $v (0x00, 0xff) {
            push @cases, [$p, $v] if ord(substr($sect, $p, 1)) != $v;
        }
    }
    for (my $p = $pos + 16; $p < $pos + $size; $p += 61) {
        next if $hdr{$p};
        push @cases, [$p, 0xff ^ ord(substr($sect, $p, 1))];
    }
}

my $tmp = tempdir(CLEANUP => 1);
my $copy = "$tmp/vecadd";
print "1..", scalar(@cases), "\n";
my $n = 0;
my %tally;
for my $case (@cases) {
    my ($p, $v) = @$case;
    $n++;
    my $bad_sect = $sect;
    substr($bad_sect, $p, 1) = chr $v;
    my $b = $image;
    substr($b, $soff, $ssize) = $bad_sect;
    open my $f, '>:raw', $copy or die "$copy: $!";
    print $f $b;
    close $f;
    chmod 0755, $copy;

    my $what = sprintf 'section byte +0x%x = 0x%02x', $p, $v;
    my @why;
    my $valid = defined containers($bad_sect);
    my ($reg_size) = container($bad_sect, $reg);
    my $reg_valid = defined $reg_size;

    my ($rc, $rout, $rerr, $rto) = run_bounded($timeout, {%env}, $ptxemu, 'run', '--', $copy);
    if ($rto) {
        push @why, "ptxemu run timed out";
    } elsif ($rc > 128) {
        push @why, "ptxemu run died on signal " . ($rc - 128);
    } elsif ($rerr =~ /(AddressSanitizer|LeakSanitizer|runtime error:)/) {
        push @why, "ptxemu run: sanitizer report ($1)";
    }
    my @lines = grep { /invalid fat binary/ } split /\n/, $rerr;
    if (!$reg_valid) {
        push @why, "ptxemu run exit $rc on an invalid container" if $rc == 0;
        push @why, "ptxemu run: want one 'invalid fat binary' line, got " . scalar(@lines)
            if @lines != 1;
        push @why, "ptxemu run: the line does not name the section and offset"
            if @lines == 1 && $lines[0] !~
            /^ptxemu: invalid fat binary \(section \.nv_fatbin of \S+ at \+0x[0-9a-f]+\): \S/;
        push @why, "the program did not see cudaErrorInvalidKernelImage"
            if $rout !~ /device kernel image is invalid/;
    } elsif (@lines > 1) {
        push @why, "ptxemu run: " . scalar(@lines) . " 'invalid fat binary' lines";
    }
    $tally{ !$reg_valid ? 'invalid' : $rc == 0 ? 'ran' : 'failed' }++;

    my ($fc, $fout, $ferr, $fto) = run_bounded($timeout, {%env}, $ptxemu, 'fatbin', $copy);
    my @ferr = split /\n/, $ferr;
    if ($fto || $fc > 128) {
        push @why, "ptxemu fatbin " . ($fto ? 'timed out' : 'died on signal ' . ($fc - 128));
    } elsif ($valid) {
        push @why, "ptxemu fatbin exit $fc on a well-formed section" if $fc != 0;
    } else {
        push @why, "ptxemu fatbin exit $fc on a malformed section" if $fc != 1;
        push @why, "ptxemu fatbin: want one line on stderr, got " . scalar(@ferr)
            if @ferr != 1;
        push @why, "ptxemu fatbin: the line does not name the file offset"
            if @ferr == 1 && $ferr[0] !~ /^ptxemu: \S+: malformed fat binary at file offset 0x[0-9a-f]+ \(\.nv_fatbin \+0x[0-9a-f]+\): \S/;
    }
    if (@why) {
        print "not ok $n - $what\n", map { "# $_\n" } @why;
        my @rerr = split /\n/, $rerr;
        print map { "#   run stderr| $_\n" } grep { defined } @rerr[0 .. 9];
        print map { "#   fatbin stderr| $_\n" } grep { defined } @ferr[0 .. 9];
    } else {
        print "ok $n - $what (run exit $rc, fatbin exit $fc)\n";
    }
}
printf "# %d corruptions: registered container invalid %d, program ran %d, failed otherwise %d\n",
    scalar(@cases), $tally{invalid} // 0, $tally{ran} // 0, $tally{failed} // 0;
