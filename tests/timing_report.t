#!/usr/bin/env perl
# tests/timing_report.t - the timing report (issue 23 item 4) on nvcc's -lineinfo PTX of
# fixtures/cuda/matmul_tiled.cu (fixtures/ptx/sm_90_L, which carries .loc):
#   - the --timing-stats time series: ceil(cycles / N) samples ending at start + N, 2N, …
#     and the kernel's end; summed over samples (and SMs) the thread and warp instructions,
#     the issue / stall counters, the L1D and L2 accesses and misses equal the kernel's
#     totals, and the DRAM bytes equal (n_rd + n_wr) x atom of the printed DRAM lines;
#     -gpgpu_runtime_stat's interval is the default; sampling does not change the cycles;
#   - the per-PTX-line counters: issued, thread instructions, every stall cause, the L1D
#     counters and the L2 accesses / misses and DRAM sectors read (counted where they happen,
#     from the line each request carries) sum to the totals, on the global loads and stores; each row's text is the instruction on that PTX line; the
#     source lines (.loc) sum to the rows that carry a .loc;
#   - `ptxemu report` writes a well-formed page (a strict XML check here, and Python's XML
#     parser when present) with five plots per kernel whose every series has one point per
#     sample, the per-line tables with the CUDA source text; --timing-report DIR does the
#     same at exit (exec, and `run` of the fixture program when cuda_programs.t built it);
#     malformed JSON is a file:line:col diagnostic; perfect memory gives four plots;
#   - a headless Chromium (`apt-get install chromium`), when installed, loads the page: its
#     --dump-dom DOM has the five plots, every series with one point per sample, and every
#     PTX-line row; Firefox takes a screenshot; without a browser: SKIP.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);
use Cwd qw(getcwd);
use JSON::PP qw(decode_json);
use POSIX qw(ceil);
use lib dirname(__FILE__) . '/lib';
use PtxemuTest qw(run_bounded fail_diag);

chdir(dirname(__FILE__) . '/..') or die "chdir: $!";
my $root = getcwd();
my $build = $ENV{PTXEMU_BUILD} // 'build';
my $ptxemu = "$build/ptxemu";
my $ptx = 'fixtures/ptx/sm_90_L/matmul_tiled.ptx';
my $tmp = tempdir(CLEANUP => 1);
my $n = 0;
my $failed = 0;

sub ok($$;@) {
    my ($cond, $name, @diag) = @_;
    $n++;
    print(($cond ? 'ok' : 'not ok'), " $n - $name\n");
    if (!$cond) {
        $failed++;
        fail_diag($n, $name, 12, @diag);
    }
    return $cond;
}

sub skip {
    my ($name, $why) = @_;
    $n++;
    print "ok $n - $name # SKIP $why\n";
}

sub run { return run_bounded(300, {}, $ptxemu, @_) }

sub slurp {
    my ($f) = @_;
    open(my $h, '<', $f) or return undef;
    local $/;
    return scalar <$h>;
}

my @kernel = ('--kernel', '_Z6matmulPKfS0_Pfi', '--grid', '4,4', '--block', '16,16',
              '--arg', 'buf:rand=16384,1', '--arg', 'buf:rand=16384,2', '--arg',
              'buf:zero=16384', '--arg', 'u32:64');
my $N = 500;

sub sum { my $s = 0; $s += $_ for @_; return $s }

# ---------------------------------------------------------------- the time series
my $json = "$tmp/s.json";
my ($code, $out, $err) = run('exec', $ptx, @kernel, '--timing=qv100', '--timing-sample', $N,
                             '--timing-stats', $json);
ok($code == 0, 'exec --timing --timing-sample --timing-stats runs', $err);
my $j = eval { decode_json(slurp($json) // '') };
ok(ref $j eq 'ARRAY' && @$j == 1, 'the statistics file is a JSON array of one kernel', $@);
my $k = ref $j eq 'ARRAY' ? $j->[0] : {};
my $s = $k->{samples} // {};
my $t = $k->{totals} // {};
my $cyc = $k->{gpu_sim_cycle} // 0;
ok($cyc > 0 && $s->{interval} == $N && $s->{count} == ceil($cyc / $N)
       && @{$s->{end} // []} == $s->{count},
   "ceil(cycles / $N) samples ($cyc cycles, $s->{count} samples)");
my @end = @{$s->{end} // []};
my $bad = grep { $end[$_] != $s->{start} + ($_ + 1) * $N } 0 .. $#end - 1;
ok(!$bad && @end && $end[-1] == $s->{start} + $cyc,
   'samples end at start + N, 2N, ... and the last at the kernel\'s end');
my @sm = @{$s->{sm} // []};
ok(@sm == @{$k->{sm} // []} && @sm == 80, 'a series per SM (80 on qv100)');
my ($ti, $wi, $wc) = (0, 0, 0);
for my $m (@sm) {
    $ti += sum(@{$m->{thread_insn}});
    $wi += sum(@{$m->{warp_insn}});
    $wc += sum(@{$m->{warp_cycles}});
}
ok($ti == $k->{gpu_sim_insn} && $ti > 0, "per-interval thread instructions sum to gpu_sim_insn ($ti)");
ok($wi == $t->{gpgpu_n_tot_w_icount}, "warp instructions sum to gpgpu_n_tot_w_icount ($wi)");
ok($wc == $t->{sm_resident_warp_cycles}, 'resident-warp cycles sum to the total');
my %pairs = (sched_issue => 'sched_issue', stall_idle => 'stall_idle',
             stall_ibuffer_empty => 'stall_ibuffer_empty', stall_scoreboard => 'stall_scoreboard',
             stall_pipeline_busy => 'stall_pipeline_busy', stall_barrier => 'stall_barrier',
             stall_membar => 'stall_membar', l1d_accesses => 'L1D_total_cache_accesses',
             l1d_misses => 'L1D_total_cache_misses', mem_sectors => 'mem_sectors_requested');
my @off = grep { sum(@{$s->{$_} // [-1]}) != $t->{$pairs{$_}} } sort keys %pairs;
ok(!@off, 'issue, stall, L1D and sector series sum to the kernel totals', "off: @off");
ok($t->{stall_scoreboard} > 0 && $t->{stall_barrier} > 0, 'the kernel has scoreboard and barrier stalls');
my $l2 = $k->{memory}{l2} // {};
ok(sum(@{$s->{l2_accesses}}) == $l2->{accesses} && sum(@{$s->{l2_misses}}) == $l2->{misses}
       && $l2->{accesses} > 0,
   "L2 series sum to L2 accesses / misses ($l2->{accesses} / $l2->{misses})");
my ($cc, $cfg) = run('timing-config', '--timing=qv100');
my %o;
$o{$1} = $2 while $cfg =~ /^-(\S+)[ \t]+(.*?)[ \t]*$/mg;
my $atom = $o{gpgpu_dram_burst_length} * $o{gpgpu_dram_buswidth} * $o{gpgpu_n_mem_per_ctrlr};
my $cmds = 0;
$cmds += $1 while $err =~ /\bn_rd=(\d+)/g;
$cmds += $1 while $err =~ /\bn_wr=(\d+)/g;
my $db = sum(@{$s->{dram_bytes}});
ok($db == $cmds * $atom && $db > 0, "DRAM bytes sum to (n_rd + n_wr) x $atom ($db)");

# sampling and per-line counting do not change the model
my ($c2, $o2, $e2) = run('exec', $ptx, @kernel, '--timing=qv100');
my ($plain) = $e2 =~ /^gpu_sim_cycle = (\d+)$/m;
ok(defined $plain && $plain == $cyc, "the same cycles without statistics ($plain)");
# -gpgpu_runtime_stat's interval when --timing-sample is not given
my $json2 = "$tmp/rs.json";
run('exec', $ptx, @kernel, '--timing=qv100', '--timing-set', 'gpgpu_runtime_stat=700:0',
    '--timing-stats', $json2);
my $j2 = eval { decode_json(slurp($json2) // '') } // [{}];
ok(($j2->[0]{samples}{interval} // 0) == 700 && $j2->[0]{samples}{count} == ceil($cyc / 700),
   '-gpgpu_runtime_stat 700:0 samples every 700 cycles');
($code, $out, $err) = run('exec', $ptx, @kernel, '--timing', '--timing-sample', '0');
ok($code == 2 && $err =~ /--timing-sample: expected a number of cycles/, '--timing-sample 0 is a usage error', $err);

# ---------------------------------------------------------------- per-line counters
my @pl = @{$k->{ptx_lines} // []};
ok(@pl > 20, scalar(@pl) . ' PTX lines with counters');
my %pc = (issued => 'gpgpu_n_tot_w_icount', thread_insn => 'gpgpu_n_tot_thrd_icount',
          stall_ibuffer_empty => 'stall_ibuffer_empty', stall_barrier => 'stall_barrier',
          stall_membar => 'stall_membar', stall_scoreboard => 'stall_scoreboard',
          stall_pipeline_busy => 'stall_pipeline_busy', l1d_accesses => 'L1D_total_cache_accesses',
          l1d_misses => 'L1D_total_cache_misses');
@off = grep { my $c = $_; sum(map { $_->{$c} } @pl) != $t->{$pc{$c}} } sort keys %pc;
ok(!@off, 'per-line issued, thread instructions, stall causes and L1D counters sum to the totals',
   "off: @off");
# L2 and DRAM outcomes, counted by the L2 slices and DRAM channels for the line each request
# carries (L1 fills and write-throughs take their instruction's line through the L1's token)
my %l2pc = (l2_accesses => $l2->{accesses}, l2_misses => $l2->{misses},
            dram_read_sectors => $l2->{dram_read_sectors});
@off = grep { my $c = $_; sum(map { $_->{$c} // 0 } @pl) != ($l2pc{$c} // -1) } sort keys %l2pc;
my @l2rows = grep { $_->{l2_accesses} } @pl;
my @notmem = grep { ($_->{text} // '') !~ /^(?:@!?%\w+\s+)?(?:ld|st)\.global/ } @l2rows;
ok(!@off && $l2->{misses} > 0 && $l2->{dram_read_sectors} > 0 && @l2rows && !@notmem,
   "per-line L2 accesses, L2 misses and DRAM sectors read sum to the totals ($l2->{accesses}, "
   . "$l2->{misses}, $l2->{dram_read_sectors}), on the global loads and stores only",
   "off: @off", map { "line $_->{line}: $_->{text}" } @notmem);
# the same for loads that bypass the L1 (ld.global.cg of tests/ubench/memory.cu's chase over
# 8 lines: 8 warm-up steps miss in the L2 and read one sector each, 16 timed steps hit)
{
    my $cj = "$tmp/cg.json";
    run('exec', 'fixtures/ptx/ubench/memory.ptx', '--kernel', 'chase_cg', '--grid', 1, '--block',
        1, '--arg', 'buf:zero=65536', '--arg', 'u32:32', '--arg', 'u32:255', '--arg', 's32:8',
        '--arg', 's32:16', '--arg', 'buf:zero=16', '--timing=qv100', '--timing-stats', $cj);
    my $ck = (eval { decode_json(slurp($cj) // '') } // [{}])->[0];
    my @cg = grep { ($_->{text} // '') =~ /^ld\.global\.cg/ } @{$ck->{ptx_lines} // []};
    my %c = map { my $f = $_; ($f => sum(map { $_->{$f} } @cg)) }
        qw(l2_accesses l2_misses dram_read_sectors);
    my $cl2 = $ck->{memory}{l2} // {};
    ok($c{l2_accesses} == 24 && $c{l2_misses} == 8 && $c{dram_read_sectors} == 8
       && $cl2->{misses} == 8 + 1 && $cl2->{dram_read_sectors} == 8,
       'ld.global.cg lines: 24 L2 accesses, 8 misses, 8 DRAM sectors (the 9th miss is the '
       . 'result store\'s)', "got @{[%c]}; totals $cl2->{accesses} / $cl2->{misses}");
}
my $memreq = sum(map { $_->{mem_requests} } @pl);
my $lines = 0;
$lines += $t->{$_} for qw(gpgpu_n_shmem_insn gpgpu_n_const_mem_insn gpgpu_n_mem_read_global
                         gpgpu_n_mem_write_global gpgpu_n_mem_read_local gpgpu_n_mem_write_local
                         gpgpu_n_mem_atomic);
ok($memreq == $lines && $memreq > 0,
   "memory requests: shared/constant accesses plus lines sent ($memreq)");
my @ptxsrc = split /\n/, slurp($ptx);
my @wrong = grep { my ($op) = ($_->{text} // '') =~ /^(?:@!?%\w+\s+)?([\w.]+)/;
                   !defined $op || index($ptxsrc[$_->{line} - 1] // '', $op) < 0 } @pl;
ok(!@wrong, 'every row\'s instruction text is on its PTX line',
   map { "line $_->{line}: $_->{text}" } @wrong);
my @sl = @{$k->{source_lines} // []};
my $with_loc = sum(map { $_->{issued} } grep { defined $_->{file} } @pl);
ok(@sl && sum(map { $_->{issued} } @sl) == $with_loc && $with_loc > 0,
   "source lines sum to the PTX lines with a .loc ($with_loc)");
my ($hot) = sort { $b->{issued} <=> $a->{issued} } @sl;
my @cu = split /\n/, slurp('fixtures/cuda/matmul_tiled.cu');
ok($hot && $hot->{file} eq 'fixtures/cuda/matmul_tiled.cu'
       && ($cu[$hot->{line} - 1] // '') =~ /As\[ty\]\[k\] \* Bs\[k\]\[tx\]/,
   "the most issued source line is the inner product (line $hot->{line})");

# ---------------------------------------------------------------- the report
# A strict XML well-formedness check: every tag closed and nested, attributes quoted, only
# the XML entities, no stray '<' or '&'. Returns an error message or ''.
sub xml_check {
    my ($x) = @_;
    $x =~ s/^<!DOCTYPE html>\s*//;
    my @stack;
    my $pos = 0;
    while ($x =~ /\G([^<]*)<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/gc) {
        my ($text, $close, $tag, $attrs, $empty) = ($1, $2, $3, $4, $5);
        return "bad text before <$tag>" if $text =~ /&(?!(?:lt|gt|amp|quot|apos|#\d+);)/;
        for my $v ($attrs =~ /="([^"]*)"/g) {
            return "bad attribute value in <$tag>" if $v =~ /&(?!(?:lt|gt|amp|quot|apos|#\d+);)/;
        }
        if ($close) {
            my $open = pop @stack;
            return "</$tag> closes <" . ($open // 'nothing') . ">" if !defined $open || $open ne $tag;
        } elsif (!$empty) {
            push @stack, $tag;
        }
        $pos = pos($x);
    }
    my $rest = substr($x, $pos);
    return "unparsed text at offset $pos: " . substr($rest, 0, 60) if $rest =~ /[<&]/ || $rest =~ /\S/;
    return @stack ? "unclosed <$stack[-1]>" : '';
}

sub check_page {
    my ($html, $what, $nplots) = @_;
    ok(defined $html && $html =~ m{^<!DOCTYPE html>} && $html =~ m{</html>\s*$}, "$what: a page");
    $html //= '';
    my $e = xml_check($html);
    ok($e eq '', "$what: well-formed (strict XML check)", $e);
    ok($html !~ /<script|<link|\bsrc=|\@import|url\(/i, "$what: self-contained (no scripts or external resources)");
    my @svg = $html =~ /(<svg .*?<\/svg>)/sg;
    ok(@svg == $nplots, "$what: $nplots plots (" . scalar(@svg) . ')');
    my @empty;
    for my $v (@svg) {
        my ($dp) = $v =~ /data-points="(\d+)"/;
        my ($title) = $v =~ /class="title">([^<]*)</;
        my @ser = $v =~ /<poly(line|gon)\b[^>]*points="([^"]*)"/g;
        push @empty, $title if !$dp || !@ser;
        while (my ($kind, $pts) = splice(@ser, 0, 2)) {
            my $np = () = $pts =~ /[\d.]+,[\d.]+/g;
            push @empty, "$title ($np points)" if $np != ($kind eq 'gon' ? 2 : 1) * $s->{count};
        }
    }
    ok(!@empty, "$what: every series of every plot has one point per sample", @empty);
    return $html;
}

my $dir = "$tmp/rep";
($code, $out, $err) = run('report', $json, '-o', $dir);
ok($code == 0 && $err eq '', 'ptxemu report STATS.json -o DIR', $err);
my $html = check_page(slurp("$dir/index.html"), 'report', 5);
# the stacked issue/stall fractions of an interval with scheduler cycles add up to 1: the
# top of the last area is the plot's top edge (y = 28) or, for an empty interval, its floor
my ($stall_svg) = grep { /issue and stall causes/ } $html =~ /(<svg .*?<\/svg>)/sg;
my @polys = ($stall_svg // '') =~ /<polygon [^>]*points="([^"]*)"/g;
my @top = map { (split /,/)[1] } (split ' ', $polys[-1] // '')[0 .. $s->{count} - 1];
my @off_top = grep { !defined $_ || ($_ ne '28.0' && $_ ne '204.0') } @top;
ok(@polys == 7 && !@off_top && grep({ $_ eq '28.0' } @top),
   'the stacked issue/stall fractions of each busy interval sum to 1', "tops: @top");
ok($html =~ /<tr><th>cycles<\/th><td>$cyc / && $html =~ /<th>L2 hit rate<\/th>/ && $html =~ /GB\/s/,
   'the summary shows cycles, the L2 hit rate and DRAM bandwidth');
ok($html =~ /matmul_tiled\.cu:\Q$hot->{line}\E <span class="src">acc \+= As\[ty\]\[k\] \* Bs\[k\]\[tx\];/,
   'the tables show CUDA source text');
my @rows = $html =~ /<table class="ptxlines">(.*?)<\/table>/s;
my @stalls = ($rows[0] // '') =~ /<tr><td>\d+<\/td><td class="code">.*?<\/td><td class="code">.*?<\/td><td>\d+<\/td><td>(\d+)<\/td>/g;
ok(@stalls == @pl && !grep({ $stalls[$_] < $stalls[$_ + 1] } 0 .. $#stalls - 1),
   'the PTX-line table has every row, sorted by stall cycles');
if (system('python3 -c "import xml.etree.ElementTree" 2>/dev/null') == 0) {
    my $r = system('python3', '-c', 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])',
                   "$dir/index.html");
    ok($r == 0, 'Python\'s XML parser reads the page');
} else {
    skip('Python\'s XML parser reads the page', 'python3 not found');
}

# --timing-report on exec: stats.json and index.html in DIR
my $dir2 = "$tmp/rep2";
($code, $out, $err) = run('exec', $ptx, @kernel, '--timing=qv100', '--timing-sample', $N,
                          '--timing-report', $dir2);
ok($code == 0 && -s "$dir2/stats.json", 'exec --timing-report DIR writes DIR/stats.json', $err);
my $h2 = slurp("$dir2/index.html") // '';
(my $a = $html) =~ s{<p>from <code>[^<]*</code>}{};
(my $b = $h2) =~ s{<p>from <code>[^<]*</code>}{};
ok($a eq $b && $a ne '', 'and DIR/index.html, the same page as ptxemu report makes');

# perfect memory: no L2 or DRAM series, four plots
my $json3 = "$tmp/p.json";
run('exec', $ptx, @kernel, '--timing=qv100', '--timing-set', 'gpgpu_perfect_mem=1',
    '--timing-sample', $N, '--timing-stats', $json3);
my $j3 = eval { decode_json(slurp($json3) // '') } // [{}];
my $s3 = $j3->[0]{samples} // {};
ok(!exists $s3->{l2_accesses} && !exists $s3->{dram_bytes} && $s3->{count},
   'perfect memory: no L2 or DRAM series');
($code, $out, $err) = run('report', $json3, '-o', "$tmp/rep3");
{
    local $s->{count} = $s3->{count};
    check_page(slurp("$tmp/rep3/index.html"), 'perfect-memory report', 4);
}

# malformed input
open(my $fh, '>', "$tmp/bad.json") or die;
print $fh "[\n{\"kernel_name\": \"k\",\n \"x\": [1, 2,]}\n]\n";
close $fh;
($code, $out, $err) = run('report', "$tmp/bad.json", '-o', "$tmp/rep4");
ok($code == 1 && $err =~ /^ptxemu: report: \Q$tmp\E\/bad\.json:3:13: error: unexpected character$/m,
   'malformed JSON: file:line:col: error', $err);
($code, $out, $err) = run('report', "$tmp/nothing.json", '-o', "$tmp/rep4");
ok($code == 1 && $err =~ /cannot read .*nothing\.json/, 'a missing file is an error', $err);
($code, $out, $err) = run('report', $json);
ok($code == 2 && $err =~ /usage: ptxemu report STATS.json -o DIR/, 'report without -o: usage', $err);

# run: the CUDA program itself (cuda_programs.t builds build/fixtures/NAME)
my $exe = 'build/fixtures/matmul_tiled';
if (-x $exe) {
    my $libdir = ($build =~ m{^/} ? $build : "$root/$build") . '/lib';
    my %env = (LD_LIBRARY_PATH => $libdir);
    if ($build =~ /asan/) {
        chomp(my $so = `gcc -print-file-name=libasan.so`);
        $env{LD_PRELOAD} = $so if $so =~ m{/};
    }
    my $dir5 = "$tmp/rep5";
    ($code, $out, $err) = run_bounded(300, \%env, $ptxemu, 'run', '--timing=qv100',
                                      '--timing-sample', 1000, '--timing-report', $dir5, '--', $exe);
    my $j5 = eval { decode_json(slurp("$dir5/stats.json") // '') } // [];
    my $k5 = $j5->[0] // {};
    my $ti5 = 0;
    $ti5 += sum(@{$_->{thread_insn}}) for @{$k5->{samples}{sm} // []};
    ok($code == 0 && $out =~ /^PASS$/m && @$j5 == 1 && $ti5 == ($k5->{gpu_sim_insn} // -1)
           && ($k5->{samples}{count} // 0) == ceil(($k5->{gpu_sim_cycle} // 0) / 1000)
           && (slurp("$dir5/index.html") // '') =~ /<svg class="plot"/,
       'run --timing-report DIR: the program\'s kernel sampled and reported', $err);
} else {
    skip('run --timing-report DIR', "$exe not built (tests/cuda_programs.t builds it)");
}

# a headless browser loads the page: Chromium's DOM after parsing (--dump-dom) still has the
# five plots, every series with one point per sample, and the whole PTX-line table
my ($browser) = grep { my $b = $_; grep { -x "$_/$b" } split(/:/, $ENV{PATH} // '') }
    qw(chromium chromium-browser google-chrome firefox);
if ($browser && $browser =~ /chrom/) {
    my ($bc, $bo, $be) = run_bounded(120, {}, $browser, '--headless', '--no-sandbox',
                                     '--disable-gpu', '--dump-dom', "file://$dir/index.html");
    my @svg = $bo =~ /(<svg .*?<\/svg>)/sg;
    my ($npoly, @bad) = (0);
    for my $v (@svg) {
        my ($title) = $v =~ /class="title">([^<]*)</;
        my @ser = $v =~ /<poly(line|gon)\b[^>]*points="([^"]*)"/g;
        push @bad, "$title: no series" if !@ser;
        while (my ($kind, $pts) = splice(@ser, 0, 2)) {
            my $np = () = $pts =~ /[\d.]+,[\d.]+/g;
            $npoly++;
            push @bad, "$title ($np points)" if $np != ($kind eq 'gon' ? 2 : 1) * $s->{count};
        }
    }
    my $npoly_file = () = $html =~ /<poly(?:line|gon)\b/g;
    my ($btab) = $bo =~ /<table class="ptxlines">(.*?)<\/table>/s;
    my $brows = () = ($btab // '') =~ /<tr><td>\d+<\/td>/g;
    ok($bc == 0 && @svg == 5 && !@bad && $npoly == $npoly_file && $brows == @pl,
       "$browser --headless --dump-dom: 5 plots, $npoly series of $s->{count} samples each, "
       . "$brows PTX-line rows", "exit $bc, " . scalar(@svg) . " plots, $npoly of $npoly_file "
       . "series, $brows of " . scalar(@pl) . " rows", @bad, $be);
} elsif ($browser) {
    my ($bc, $bo, $be) = run_bounded(120, {}, $browser, '--headless', '--screenshot',
                                     "$tmp/shot.png", "file://$dir/index.html");
    ok($bc == 0 && -s "$tmp/shot.png", "$browser renders the page", $be);
} else {
    skip('a headless browser renders the page', 'no chromium or firefox installed');
}

print "1..$n\n";
exit($failed ? 1 : 0);
