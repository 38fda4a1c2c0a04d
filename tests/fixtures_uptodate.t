#!/usr/bin/env perl
# tests/fixtures_uptodate.t - the committed fixtures/ptx/{sm_75,sm_80,sm_90,sm_100,
# sm_120,sm_80_G,sm_90_L}/NAME.ptx are what scripts/gen-fixtures.sh makes of
# fixtures/cuda/NAME.cu with the installed nvcc.
#
# Regenerates all five variants into a temporary directory (two nvcc at a
# time, about 20 s here) and compares file by file, one TAP line per file.
# `.file` directives (written by -G) are not compared: they hold the paths of
# the CUDA and gcc headers, which differ between installations.  Without nvcc
# the test is skipped.  Fix a failure with `scripts/gen-fixtures.sh`.  A source marked
# `// fixtures: sm_NN` (first line) has no variant older than sm_NN; one marked
# `// fixtures: sm_NNa` only the variants of sm_NN.
use strict;
use warnings;
use File::Basename qw(dirname basename);
use File::Temp qw(tempdir);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";

my $nvcc = $ENV{NVCC};
if (!$nvcc) {
    for my $d (split(/:/, $ENV{PATH} // ''), '/usr/local/cuda/bin') {
        if (-x "$d/nvcc") { $nvcc = "$d/nvcc"; last }
    }
}
if (!$nvcc) {
    print "1..1\nok 1 # SKIP nvcc not found\n";
    exit 0;
}

my @variants = qw(sm_75 sm_80 sm_90 sm_100 sm_120 sm_80_G sm_90_L);
my @names = map { basename($_, '.cu') } sort glob('fixtures/cuda/*.cu');
my $tmp = tempdir(CLEANUP => 1);
my $log = do {
    local $ENV{NVCC} = $nvcc;
    `scripts/gen-fixtures.sh --out $tmp 2>&1`;
};
my $gen_ok = $? == 0;

# A -G build embeds the path of a CUDA header as a byte string for assert()
# (`.b8 $str$1[79] = {47, 117, ...}`).  That path starts with the directory nvcc
# was found in (/usr/local/cuda/bin/.. here, /usr/local/cuda-13.0/bin/.. where
# PATH names the versioned directory), so such a string is compared with the
# part before `/targets/` or `/include/` replaced by `CUDA`.
sub cuda_path_free {
    my ($line) = @_;
    return $line unless $line =~ /^(\s*\.global\s+\.align\s+\d+\s+\.b8\s+\$str\$?\w*)\[\d+\]\s*=\s*\{([\d,\s]+)\};\s*$/;
    my ($decl, $bytes) = ($1, $2);
    my $str = join('', map { chr } split /\s*,\s*/, $bytes =~ s/^\s+|\s+$//gr);
    return $line unless $str =~ s{^/\S*?(?=/(?:targets|include)/)}{CUDA};
    return "$decl = \"$str\"\n";
}

sub slurp {
    my ($path) = @_;
    open(my $fh, '<', $path) or return undef;
    my @l = map { cuda_path_free($_) } grep { !/^\s*\.file\s/ } <$fh>;
    return \@l;
}

# The architecture a source needs: its `// fixtures: sm_NN` first line (gen-fixtures.sh
# generates no variant older than that for it), 0 for any.
sub min_sm {
    my ($name) = @_;
    open(my $fh, '<', "fixtures/cuda/$name.cu") or return 0;
    my $l = <$fh> // '';
    return $l =~ m{^// fixtures: sm_(\d+)} ? $1 : 0;
}

# Does the source need an arch-specific target (`// fixtures: sm_NNa`)?
sub arch_specific {
    my ($name) = @_;
    open(my $fh, '<', "fixtures/cuda/$name.cu") or return 0;
    my $l = <$fh> // '';
    return $l =~ m{^// fixtures: sm_\d+a\b} ? 1 : 0;
}

# Expected files, plus committed ones that no source produces any more.
my @files;
for my $v (@variants) {
    my ($sm) = $v =~ /^sm_(\d+)/;
    # sm_100 and later: only the sources that need them (gen-fixtures.sh)
    # an arch-specific source (`sm_NNa`) only in the variants of sm_NN itself
    my @vn = grep { $sm >= min_sm($_) && ($sm < 100 || min_sm($_) >= 100) &&
                    (!arch_specific($_) || $sm == min_sm($_)) } @names;
    push @files, map { "$v/$_.ptx" } @vn;
    my %have = map { ("$v/$_.ptx" => 1) } @vn;
    push @files, grep { !$have{$_} } map { s{^fixtures/ptx/}{}r } sort glob("fixtures/ptx/$v/*.ptx");
}

print "1..", scalar(@files), "\n";
print map { "# $_\n" } split /\n/, $log unless $gen_ok;
my $n = 0;
for my $f (@files) {
    $n++;
    my $committed = slurp("fixtures/ptx/$f");
    my $fresh = slurp("$tmp/$f");
    my @why;
    if (!$fresh && $committed) {
        push @why, "# fixtures/ptx/$f has no source fixtures/cuda/*.cu (delete it?)\n";
    } elsif (!$committed) {
        push @why, "# fixtures/ptx/$f is missing: run scripts/gen-fixtures.sh\n";
    } elsif (join('', @$committed) ne join('', @$fresh)) {
        my $i = 0;
        $i++ while $i < @$committed && $i < @$fresh && $committed->[$i] eq $fresh->[$i];
        chomp(my $c = $committed->[$i] // '(end of file)');
        chomp(my $g = $fresh->[$i] // '(end of file)');
        push @why, "# out of date: run scripts/gen-fixtures.sh (first difference, line "
            . ($i + 1) . " ignoring .file lines)\n",
            "#    committed: $c\n", "#    generated: $g\n";
    }
    print((@why ? 'not ok' : 'ok'), " $n - fixtures/ptx/$f\n");
    print @why;
}
