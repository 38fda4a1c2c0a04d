#!/usr/bin/env perl
# tests/roundtrip.t - printer round trip over every nvcc-generated and hand-written PTX
# fixture that loads: `ptxemu print FILE` (P1), `ptxemu print P1` (P2) must equal P1 (after
# the comment header naming the file), P1 keeps the source's .address_size line (none when the
# source has none), and P1 must assemble with `ptxas -arch=<its .target>`
# (skipped when ptxas is not installed). P1 also keeps the source's directives that carry no
# instruction: the same `.pragma` lines (as a multiset), the same distinct `.loc` lines
# (column and `function_name … inlined_at …` included) and as many `.section` blocks. Files that `ptxemu check` rejects are skipped here
# (fixtures.t owns their expectations).
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Find;
use File::Temp qw(tempdir);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $bin = ($ENV{PTXEMU_BUILD} // 'build') . '/ptxemu';
my $ptxas = -x '/usr/local/cuda/bin/ptxas' ? '/usr/local/cuda/bin/ptxas' : `command -v ptxas 2>/dev/null`;
chomp $ptxas;
my $tmp = tempdir(CLEANUP => 1);
my @files;
find({ wanted => sub { push @files, $File::Find::name if /\.ptx\z/ && -f $_ }, no_chdir => 1 },
    'fixtures/ptx');
@files = sort grep { !m{/diag/} } @files;
print "1.." . scalar(@files) . "\n";
my $n = 0;
sub strip { my $t = shift; $t =~ s{\A//\n//[^\n]*\n//\n}{}; $t }

# The .pragma / .loc / .section directives of a PTX text, normalized (comments dropped,
# blanks collapsed): (sorted pragma lines, sorted distinct loc lines, section count).
sub directives {
    my ($t) = @_;
    my (@pragma, %loc, $sections);
    for my $l (split /\n/, $t) {
        $l =~ s{//.*}{};
        $l =~ s/\s+/ /g;
        $l =~ s/^ | $//g;
        if ($l =~ /^\.pragma /) { push @pragma, $l }
        elsif ($l =~ /^\.loc /) { $loc{$l} = 1 }
        elsif ($l =~ /^\.section /) { $sections++ }
    }
    return (join("\n", sort @pragma), join("\n", sort keys %loc), $sections // 0);
}

# Why P1 lost or changed some of the source's directives, or '' when it kept them all.
sub lost_directives {
    my ($src, $p1) = @_;
    my @a = directives($src);
    my @b = directives($p1);
    return ".pragma lines differ:\n# source: $a[0]\n# print:  $b[0]" if $a[0] ne $b[0];
    if ($a[1] ne $b[1]) {
        my %in_b = map { $_ => 1 } split /\n/, $b[1];
        my %in_a = map { $_ => 1 } split /\n/, $a[1];
        my @miss = grep { !$in_b{$_} } split /\n/, $a[1];
        my @new = grep { !$in_a{$_} } split /\n/, $b[1];
        return ".loc lines differ: missing [@miss[0 .. ($#miss < 4 ? $#miss : 4)]] new ["
            . "@new[0 .. ($#new < 4 ? $#new : 4)]]";
    }
    return "$a[2] .section blocks printed as $b[2]" if $a[2] != $b[2];
    return '';
}
for my $f (@files) {
    $n++;
    if (system("$bin check '$f' >/dev/null 2>&1") != 0) {
        print "ok $n - $f # SKIP does not load\n";
        next;
    }
    my $p1 = `$bin print '$f' 2>&1`;
    if ($? != 0) { print "not ok $n - $f: print failed\n# $p1\n"; next; }
    open(my $fh, '>', "$tmp/p1.ptx") or die; print $fh $p1; close $fh;
    my $p2 = `$bin print '$tmp/p1.ptx' 2>&1`;
    if ($? != 0 || strip($p1) ne strip($p2)) {
        print "not ok $n - $f: second print differs\n";
        next;
    }
    # .address_size is printed back exactly as declared, and not at all when absent
    open(my $sf, '<', $f) or die "$f: $!";
    my $src = join('', <$sf>);
    my ($src_as) = $src =~ /^\s*\.address_size\s+(\d+)/m;
    close $sf;
    my ($p1_as) = $p1 =~ /^\.address_size\s+(\d+)/m;
    if (($src_as // 'absent') ne ($p1_as // 'absent')) {
        print "not ok $n - $f: .address_size " . ($src_as // 'absent') . " printed as "
            . ($p1_as // 'absent') . "\n";
        next;
    }
    my $lost = lost_directives($src, $p1);
    if ($lost) { print "not ok $n - $f: $lost\n"; next; }
    if ($ptxas) {
        my ($arch, $num) = $p1 =~ /^\.target\s+(sm_(\d+)\w*)/m;
        if (!$arch || $num < 75) { print "ok $n - $f # ptxas cannot assemble this .target\n"; next; }
        # separate-compilation modules (.extern symbols, .unified functions) assemble as
        # relocatable objects only
        my $c = $p1 =~ /^\s*\.extern\b|\.attribute\(\.unified/m ? '-c ' : '';
        my $out = `$ptxas $c-arch=$arch '$tmp/p1.ptx' -o '$tmp/p1.cubin' 2>&1`;
        if ($? != 0) { $out =~ s/^/# /mg; print "not ok $n - $f: ptxas rejects the print\n$out"; next; }
    }
    print "ok $n - $f" . ($ptxas ? "" : " (no ptxas)") . "\n";
}
