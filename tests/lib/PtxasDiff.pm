# tests/lib/PtxasDiff.pm - the differential test of `ptxemu check` against ptxas: a
# deterministic, seeded mutator of fixture PTX (one mutation per variant), the list of fixtures
# ptxas can assemble, and a parallel runner that asks both tools for an accept/reject verdict.
# Used by tests/ptxas_diff.t (a fixed subset) and scripts/ptxas-diff.pl (the full run).
package PtxasDiff;
use strict;
use warnings;
use File::Find;
use File::Temp qw(tempdir);
use POSIX qw(_exit);
use Exporter qw(import);
use lib do { my $d = __FILE__; $d =~ s{/[^/]*\z}{}; $d };
use PtxemuTest qw(run_bounded);
our @EXPORT_OK = qw(allow_reason find_ptxas diff_fixtures ptxas_args fixture_jobs make_variants run_all
                    read_allowlist);

# ptxas: $PTXAS, next to nvcc in /usr/local/cuda/bin, or on PATH; undef if none.
sub find_ptxas {
    return $ENV{PTXAS} if $ENV{PTXAS};
    return '/usr/local/cuda/bin/ptxas' if -x '/usr/local/cuda/bin/ptxas';
    for my $d (split /:/, $ENV{PATH} // '') { return "$d/ptxas" if -x "$d/ptxas" }
    return undef;
}

# ptxas arguments for a PTX text (its own .target; -c for separate-compilation modules), or
# undef when ptxas cannot assemble that .target (before sm_75, PTXPlus) or 32-bit code.
sub ptxas_args {
    my ($text) = @_;
    my ($arch, $num) = $text =~ /^\s*\.target\s+(sm_(\d+)[af]?)\b/m or return undef;
    return undef if $num < 75;
    # ptxas 13 assembles only 64-bit code (no .address_size: 32-bit)
    my ($as) = $text =~ /^\s*\.address_size\s+(\d+)/m;
    return undef unless ($as // 32) == 64;
    my @a = ("-arch=$arch");
    unshift @a, '-c' if $text =~ /^\s*\.extern\b|\.attribute\(\.unified/m;
    return \@a;
}

# Every committed fixture under fixtures/ptx that ptxas can assemble, sorted: [path, text].
sub diff_fixtures {
    my @files;
    find({ wanted => sub { push @files, $File::Find::name if /\.ptx\z/ && -f $_ },
           no_chdir => 1 }, 'fixtures/ptx');
    my @out;
    for my $f (sort @files) {
        next if $f =~ m{/ptxplus/};
        open(my $fh, '<', $f) or die "$f: $!";
        local $/;
        my $t = <$fh>;
        close $fh;
        push @out, [$f, $t] if ptxas_args($t);
    }
    return @out;
}

# ---------------------------------------------------------------- deterministic random numbers

# xorshift32 seeded from (seed, stream): the same variants on every machine and perl.
sub rng_new {
    my ($seed, $stream) = @_;
    my $s = (($seed * 2654435761) ^ ($stream * 40503 + 0x9e3779b9)) & 0xffffffff;
    $s ||= 1;
    return \$s;
}

sub rng_next {
    my ($r) = @_;
    my $x = $$r;
    $x ^= ($x << 13) & 0xffffffff;
    $x ^= $x >> 17;
    $x ^= ($x << 5) & 0xffffffff;
    $$r = $x;
    return $x;
}

sub rng_pick { my ($r, $n) = @_; return rng_next($r) % $n }

# ------------------------------------------------------------------------------- the mutator

my @TYPES = qw(pred b8 u8 s8 b16 u16 s16 f16 b32 u32 s32 f32 b64 u64 s64 f64);
my %IS_TYPE = map { $_ => 1 } @TYPES;

# The instructions of a PTX text: per instruction line, its line index, the function it is in,
# and per function the declared register pools (prefix, type, count) and labels.
sub scan {
    my ($lines) = @_;
    my (@insns, @funcs);
    my $fn = -1;
    my $depth = 0;
    for my $i (0 .. $#$lines) {
        my $l = $lines->[$i];
        if ($l =~ /^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)?\.(?:entry|func)\b/) {
            push @funcs, { pools => [], labels => [] };
            $fn = $#funcs;
        }
        my $code = $l;
        $code =~ s{//.*}{};
        $depth += () = $code =~ /\{/g;
        $depth -= () = $code =~ /\}/g;
        next if $fn < 0 || $depth < 1;
        if ($code =~ /^\s*\.reg\s+(?:\.v\d\s+)?\.(\w+)\s+(%\w+)(?:<(\d+)>)?\s*;/) {
            push @{ $funcs[$fn]{pools} }, [$2, $1, $3 // 0];
            next;
        }
        if ($code =~ /^\s*(\$?[\w.\$]+):\s*$/) { push @{ $funcs[$fn]{labels} }, $1; next }
        next unless $code =~ /^\s*(?:@!?%\w+\s+)?[a-z][\w.:]*(?:\s|;)/ && $code =~ /;\s*$/;
        push @insns, { line => $i, fn => $fn };
    }
    return (\@insns, \@funcs);
}

# The declared registers of a function: name => type.
sub regs_of {
    my ($f) = @_;
    my %r;
    for my $p (@{ $f->{pools} }) {
        my ($pre, $t, $n) = @$p;
        if ($n) { $r{"$pre$_"} = $t for 0 .. $n - 1 } else { $r{$pre} = $t }
    }
    return \%r;
}

# Split an instruction line into (prefix with guard and mnemonic, operand text, rest).
sub split_insn {
    my ($l) = @_;
    $l =~ /^(\s*(?:@!?%\w+\s+)?)([a-z][\w.:]*)(\s*)(.*?)(;\s*(?:\/\/.*)?)$/ or return;
    return ($1, $2, $3, $4, $5);
}

# One mutation of a PTX text: (new text, class, description), or () if rng's pick of class
# does not apply to this text. Classes: regswap (a register operand replaced by one of another
# declared type or width), typeswap (the instruction type), vecwidth (.v2/.v4 changed, added or
# removed), moddrop / moddup (a modifier dropped or duplicated), labelren (a branch target
# renamed: to another label or an undefined one), predren (a guard renamed: another predicate,
# an undeclared one or a value register).
my @CLASSES = ((('regswap') x 8), (('typeswap') x 3), (('vecwidth') x 2), (('moddrop') x 2),
               'moddup', (('labelren') x 2), (('predren') x 2));

sub mutate {
    my ($text, $r) = @_;
    my @lines = split /\n/, $text, -1;
    my ($insns, $funcs) = scan(\@lines);
    return () unless @$insns;
    my $class = $CLASSES[rng_pick($r, scalar @CLASSES)];
    my @cand;
    for my $in (@$insns) {
        my ($pre, $mn, $sp, $ops, $end) = split_insn($lines[$in->{line}]) or next;
        my $ok = $class eq 'regswap' ? $ops =~ /%\w/
            : $class eq 'typeswap' ? grep({ $IS_TYPE{$_} } split /\./, $mn)
            : $class eq 'vecwidth' ? $mn =~ /^(?:ld|st|ldu|mov)\./
            : $class eq 'moddrop' || $class eq 'moddup' ? $mn =~ /\./
            : $class eq 'labelren' ? $ops =~ /\$L\w+/
            : $class eq 'predren' ? $pre =~ /@/
            : 0;
        push @cand, [$in, $pre, $mn, $sp, $ops, $end] if $ok;
    }
    return () unless @cand;
    my ($in, $pre, $mn, $sp, $ops, $end) = @{ $cand[rng_pick($r, scalar @cand)] };
    my $f = $funcs->[$in->{fn}];
    my $regs = regs_of($f);
    my $orig = $lines[$in->{line}];
    my $desc;
    if ($class eq 'regswap') {
        my @occ;
        while ($ops =~ /(%\w+)/g) { push @occ, [$-[1], $1] if $regs->{$1} }
        return () unless @occ;
        my ($at, $name) = @{ $occ[rng_pick($r, scalar @occ)] };
        my @other = grep { $_->[1] ne $regs->{$name} } @{ $f->{pools} };
        return () unless @other;
        my ($p, $t, $n) = @{ $other[rng_pick($r, scalar @other)] };
        my $new = $n ? $p . rng_pick($r, $n) : $p;
        substr($ops, $at, length $name) = $new;
        $desc = "$name (.$regs->{$name}) -> $new (.$t)";
    } elsif ($class eq 'typeswap') {
        my @parts = split /\./, $mn;
        my @ti = grep { $IS_TYPE{ $parts[$_] } } 0 .. $#parts;
        my $k = $ti[rng_pick($r, scalar @ti)];
        my @alt = grep { $_ ne $parts[$k] } @TYPES;
        my $old = $parts[$k];
        $parts[$k] = $alt[rng_pick($r, scalar @alt)];
        $mn = join '.', @parts;
        $desc = ".$old -> .$parts[$k]";
    } elsif ($class eq 'vecwidth') {
        my @parts = split /\./, $mn;
        my ($vi) = grep { $parts[$_] =~ /^v\d$/ } 0 .. $#parts;
        my @ch = grep { !defined $vi || $_ ne $parts[$vi] } ('v2', 'v4', '');
        my $to = $ch[rng_pick($r, scalar @ch)];
        my $from = defined $vi ? $parts[$vi] : '';
        if (defined $vi) { $to eq '' ? splice(@parts, $vi, 1) : ($parts[$vi] = $to) }
        elsif ($to ne '') {
            my ($ti) = grep { $IS_TYPE{ $parts[$_] } } 0 .. $#parts;
            return () unless defined $ti;
            splice(@parts, $ti, 0, $to);
        } else { return () }
        $mn = join '.', @parts;
        $desc = '.' . ($from || 'scalar') . ' -> .' . ($to || 'scalar');
    } elsif ($class eq 'moddrop' || $class eq 'moddup') {
        my @parts = split /\./, $mn;
        my $k = 1 + rng_pick($r, $#parts);
        $desc = ($class eq 'moddrop' ? 'drop' : 'duplicate') . " .$parts[$k]";
        if ($class eq 'moddrop') { splice(@parts, $k, 1) }
        else { splice(@parts, $k, 0, $parts[$k]) }
        $mn = join '.', @parts;
    } elsif ($class eq 'labelren') {
        $ops =~ /(\$L\w+)/;
        my $old = $1;
        my @other = grep { $_ ne $old } @{ $f->{labels} };
        my $new = (@other && rng_pick($r, 2)) ? $other[rng_pick($r, scalar @other)]
                                               : $old . '_undefined';
        $ops =~ s/\Q$old\E/$new/;
        $desc = "$old -> $new";
    } else {
        $pre =~ /@(!?)(%\w+)/;
        my ($neg, $old) = ($1, $2);
        my @preds = grep { $_->[1] eq 'pred' } @{ $f->{pools} };
        my @vals = grep { $_->[1] ne 'pred' } @{ $f->{pools} };
        my $how = rng_pick($r, 3);
        my $new;
        if ($how == 0 && @preds) {
            my ($p, $t, $n) = @{ $preds[rng_pick($r, scalar @preds)] };
            $new = $n ? $p . rng_pick($r, $n) : $p;
        } elsif ($how == 1 && @vals) {
            my ($p, $t, $n) = @{ $vals[rng_pick($r, scalar @vals)] };
            $new = $n ? $p . rng_pick($r, $n) : $p;
        } else {
            $new = '%p_undeclared';
        }
        $pre =~ s/\Q$old\E/$new/;
        $desc = "\@$neg$old -> \@$neg$new";
    }
    my $line = "$pre$mn$sp$ops$end";
    return () if $line eq $orig;
    $lines[$in->{line}] = $line;
    $orig =~ s/^\s+//;
    $line =~ s/^\s+//;
    return (join("\n", @lines), $class,
             sprintf('line %d: %s [%s => %s]', $in->{line} + 1, $desc, $orig, $line));
}

# The unmutated fixtures as jobs (class 'fixture'): hashes {id, file, class, desc, text}.
sub fixture_jobs {
    my ($fixtures) = @_;
    return map { { id => "fixture:$_->[0]", file => $_->[0], class => 'fixture', desc => '',
                   text => $_->[1] } } @$fixtures;
}

# $n mutated variants of the fixtures, from (seed, 0..): hashes {id, file, class, desc, text}.
# The same ($seed, $n, fixtures) always gives the same list; a smaller $n gives a prefix of a
# larger one. Pass only fixtures ptxas accepts: a mutation of a rejected file says nothing.
sub make_variants {
    my ($fixtures, $seed, $n) = @_;
    my @jobs;
    my $stream = 0;
    for my $i (0 .. $n - 1) {
        for (my $try = 0; ; $try++) {
            my $r = rng_new($seed, $stream++);
            my $fx = $fixtures->[rng_pick($r, scalar @$fixtures)];
            my ($t, $class, $desc) = mutate($fx->[1], $r);
            next unless defined $t;
            my ($line) = $desc =~ /^line (\d+)/;
            push @jobs, { id => "$fx->[0]:$line:$class", file => $fx->[0], class => $class,
                          desc => $desc, text => $t };
            last;
        }
    }
    return @jobs;
}

# Accept (1) or reject (0) from both tools for every job, $jobs processes at a time: fills
# {emu, emu_msg, ptxas, ptxas_msg} (first error lines) in each job. A crash of ptxemu (exit
# status above 1) is a verdict of its own (-1).
sub run_all {
    my ($ptxemu, $ptxas, $njobs, @jobs) = @_;
    my $tmp = tempdir(CLEANUP => 1);
    my @pids;
    for my $w (0 .. $njobs - 1) {
        my $pid = fork();
        die "fork: $!" unless defined $pid;
        if ($pid == 0) {
            open(my $out, '>', "$tmp/res$w") or _exit(2);
            for (my $k = $w; $k < @jobs; $k += $njobs) {
                my $j = $jobs[$k];
                my $f = "$tmp/v$w.ptx";
                open(my $fh, '>', $f) or _exit(2);
                print $fh $j->{text};
                close $fh;
                my ($ec, $eo, $ee) = run_bounded(120, {}, $ptxemu, 'check', $f);
                my ($pc, $po, $pe) = run_bounded(120, {}, $ptxas, @{ ptxas_args($j->{text}) },
                                                 $f, '-o', '/dev/null');
                my $emsg = (grep { /error/ } split /\n/, $ee)[0] // '';
                my $pmsg = (grep { /error|fatal/ } split /\n/, $pe . $po)[0] // '';
                s/\Q$f\E/FILE/g, s/[\t\n]/ /g for $emsg, $pmsg;
                printf $out "%d\t%d\t%d\t%s\t%s\n", $k, $ec == 0 ? 1 : $ec == 1 ? 0 : -1,
                    $pc == 0 ? 1 : 0, $emsg, $pmsg;
            }
            close $out;
            _exit(0);
        }
        push @pids, $pid;
    }
    waitpid($_, 0) for @pids;
    for my $w (0 .. $njobs - 1) {
        open(my $in, '<', "$tmp/res$w") or die "worker $w: no results";
        while (my $l = <$in>) {
            chomp $l;
            my ($k, $e, $p, $em, $pm) = split /\t/, $l, 5;
            @{ $jobs[$k] }{qw(emu ptxas emu_msg ptxas_msg)} = ($e, $p, $em, $pm);
        }
        close $in;
    }
    return @jobs;
}

# The allowlist of known disagreements: lines `ID  REASON` ('#' comments), where ID is a job's
# id (FILE:LINE:CLASS of the mutation, or fixture:FILE); ID => reason.
# The reason a disagreement is allowed, or undef: its ID listed, or an `op:MNEMONIC` entry for
# the mutated instruction's opcode when ptxemu accepts what ptxas rejects (an instruction form
# the verifier does not model yet; never the other way round, a false rejection).
sub allow_reason {
    my ($allow, $j) = @_;
    return $allow->{ $j->{id} } if $allow->{ $j->{id} };
    return undef unless ($j->{emu} // 0) > 0 && !$j->{ptxas};
    my ($orig) = ($j->{desc} // "") =~ /\[(?:@!?%?\w+\s+)?([\w:.]+)/ or return undef;
    my @parts = split /\./, $orig;
    for my $k (reverse 1 .. @parts) {
        my $op = join '.', @parts[0 .. $k - 1];
        return $allow->{"op:$op"} if $allow->{"op:$op"};
    }
    return undef;
}

sub read_allowlist {
    my ($path) = @_;
    my %a;
    open(my $fh, '<', $path) or return \%a;
    while (my $l = <$fh>) {
        next if $l =~ /^\s*(?:#|$)/;
        my ($id, $why) = $l =~ /^(\S+)\s+(.*\S)/ or next;
        $a{$id} = $why;
    }
    close $fh;
    return \%a;
}

1;
