#!/usr/bin/env bash
# scripts/fuzz.sh - run the libFuzzer harnesses of tests/fuzz/ for a bounded time.
#
#   scripts/fuzz.sh [TARGET...]        build (`ninja fuzz`) and fuzz each TARGET (default: all
#                                      three) for $FUZZ_SECONDS (default 60) split evenly
#   scripts/fuzz.sh regress            run the kept regression inputs once through their
#                                      instrumented harness (no fuzzing)
#   scripts/fuzz.sh save CRASH NAME [TARGET]
#                                      minimize a crashing input of TARGET (default frontend)
#                                      and keep it as a regression input (see below)
#
# Targets (build-fuzz/fuzz_TARGET):
#   frontend  PTX text -> module, verifier, printer. Seeds: every fixtures/**/*.ptx.
#   exec      PTX text -> module -> program load -> a tiny launch of every kernel (instruction
#             budget, bounded memory; see tests/fuzz/fuzz_exec.c). Seeds: the same PTX.
#   fatbin    the fat binary reader on arbitrary bytes. Seeds: tests/fuzz/fatbin/*.fatbin and,
#             with nvcc, containers it writes for a few fixtures/cuda programs (kept in
#             build-fuzz/seeds-fatbin/, remade when older than their source).
# Regression inputs: frontend fixtures/ptx/fuzz/NAME.ptx (tests/fuzz_regress.t runs them
# through `ptxemu check`), exec tests/fuzz/exec/NAME.ptx, fatbin tests/fuzz/fatbin/NAME.fatbin
# (also seeds); `regress` replays all of them through the harnesses.
#
# Dictionaries: frontend and exec use tests/fuzz/ptx.dict plus every mnemonic of
# frontend/ops.def and modifier of frontend/mods.def; fatbin uses tests/fuzz/fatbin.dict.
# A crash, sanitizer report, leak, out-of-memory, timeout or broken contract stops a run; the
# input is saved in build-fuzz/crashes/ and the script exits 1 (after running the other
# targets, with the `save` command to run). Exit 0: no crash in the time given. Without
# clang's libFuzzer runtime it prints why and exits 0 (Debian 12: apt-get install clang-14
# libclang-rt-14-dev).
#
# Environment: FUZZ_SECONDS (total time, split over the targets), FUZZ_JOBS (parallel fuzzing
# processes per target, default 1), FUZZ_CORPUS (a directory to keep corpora in between runs,
# one subdirectory per target), FUZZ_ARGS (extra libFuzzer flags, e.g. -max_len=4096),
# PTXEMU_FUZZ_ROUNDTRIP=1 (frontend: also require the printed module to re-load).
set -euo pipefail
cd "$(dirname "$0")/.."

crashes=build-fuzz/crashes
all_targets=(frontend exec fatbin)

# Does this clang link a libFuzzer program? (clang alone is not enough: the runtime lives in
# libclang-rt-14-dev on Debian 12.)
have_libfuzzer() {
    command -v clang >/dev/null 2>&1 || return 1
    local d
    d=$(mktemp -d)
    printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
        >"$d/t.c"
    local ok=0
    clang -fsanitize=fuzzer,address,undefined "$d/t.c" -o "$d/t" >/dev/null 2>&1 || ok=1
    rm -rf "$d"
    return $ok
}

if ! have_libfuzzer; then
    echo "fuzz.sh: skipped: clang with the libFuzzer runtime is not available" \
        "(Debian 12: apt-get install clang-14 libclang-rt-14-dev)"
    exit 0
fi

ninja fuzz </dev/null

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Where a target's regression inputs live, and their extension.
regress_dir() {
    case $1 in
    frontend) echo fixtures/ptx/fuzz ;;
    exec) echo tests/fuzz/exec ;;
    fatbin) echo tests/fuzz/fatbin ;;
    esac
}
regress_ext() { [ "$1" = fatbin ] && echo fatbin || echo ptx; }

case "${1:-}" in
regress)
    shopt -s nullglob
    status=0
    for t in "${all_targets[@]}"; do
        files=("$(regress_dir "$t")"/*."$(regress_ext "$t")")
        if [ ${#files[@]} -eq 0 ]; then
            echo "fuzz.sh: $t: no regression inputs in $(regress_dir "$t")/"
            continue
        fi
        echo "fuzz.sh: $t: ${#files[@]} regression input(s)"
        "build-fuzz/fuzz_$t" "${files[@]}" || status=1
    done
    exit $status
    ;;
save)
    [ $# -eq 3 ] || [ $# -eq 4 ] || {
        echo "usage: scripts/fuzz.sh save CRASH NAME [frontend|exec|fatbin]" >&2
        exit 2
    }
    t=${4:-frontend}
    bin=build-fuzz/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz.sh: unknown target $t" >&2; exit 2; }
    dir=$(regress_dir "$t")
    mkdir -p "$dir"
    out=$dir/$3.$(regress_ext "$t")
    # -minimize_crash exits 0 once it stops shrinking; the result is checked to still crash.
    "$bin" -minimize_crash=1 -runs="${FUZZ_MINIMIZE_RUNS:-20000}" -exact_artifact_path="$out" \
        "$2" >/dev/null 2>&1 || true
    [ -s "$out" ] || cp "$2" "$out"
    if "$bin" "$out" >/dev/null 2>&1; then
        echo "fuzz.sh: $out does not crash the harness (flaky input?)" >&2
        exit 1
    fi
    if [ "$t" != fatbin ] && grep -q '//@' "$out"; then
        echo "fuzz.sh: warning: $out contains '//@', which tests/fixtures.t reads as" \
            "expectations: edit it (keeping the crash) before committing" >&2
    fi
    echo "fuzz.sh: saved $out ($(wc -c <"$out") bytes)"
    exit 0
    ;;
esac

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
    case $t in
    frontend | exec | fatbin) ;;
    *)
        echo "usage: scripts/fuzz.sh [frontend|exec|fatbin]... | regress | save CRASH NAME [TARGET]" >&2
        exit 2
        ;;
    esac
done
total=${FUZZ_SECONDS:-60}
each=$((total / ${#targets[@]}))
[ "$each" -ge 1 ] || each=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$crashes" "$work/ptx-seeds" "$work/fatbin-seeds"

# PTX seeds: the fixtures, named by path so equal base names do not collide.
while IFS= read -r -d '' f; do
    cp "$f" "$work/ptx-seeds/$(echo "${f#fixtures/}" | tr / _)"
done < <(find fixtures tests/fuzz/exec -type f -name '*.ptx' -print0 2>/dev/null)

# PTX dictionary: the hand-kept part, then mnemonics and modifiers from the opcode tables.
{
    cat tests/fuzz/ptx.dict
    echo "# generated from frontend/ops.def and frontend/mods.def"
    sed -n 's/^OP([A-Z0-9_]*, *"\([^"]*\)".*/"\1"/p' frontend/ops.def
    sed -n 's/^MOD([A-Z0-9_]*, *"\([^"]*\)".*/".\1"/p' frontend/mods.def
} | awk '!seen[$0]++' >"$work/ptx.dict"

# Fat binary seeds: the committed ones, and what nvcc writes for a few programs (cached).
cp tests/fuzz/fatbin/*.fatbin "$work/fatbin-seeds/"
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [[ " ${targets[*]} " == *" fatbin "* ]] && [ -x "$nvcc" ]; then
    gen=build-fuzz/seeds-fatbin
    mkdir -p "$gen"
    # name, source, nvcc options
    while read -r name src opts; do
        [ "$gen/$name.fatbin" -nt "$src" ] && continue
        # shellcheck disable=SC2086
        "$nvcc" -fatbin $opts -o "$gen/$name.fatbin" "$src" >/dev/null 2>&1 ||
            echo "fuzz.sh: nvcc could not make the seed $name (skipped)"
    done <<'EOF'
vecadd_zstd fixtures/cuda/vecadd.cu -gencode arch=compute_80,code=compute_80
vecadd_plain fixtures/cuda/vecadd.cu -gencode arch=compute_80,code=compute_80 --compress-mode=none
vecadd_lz4 fixtures/cuda/vecadd.cu -gencode arch=compute_80,code=compute_80 --compress-mode=speed
reduce_sass_ptx fixtures/cuda/reduce_warp.cu -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90a,code=compute_90a
EOF
    cp "$gen"/*.fatbin "$work/fatbin-seeds/" 2>/dev/null || true
fi

# What libFuzzer leaves in $crashes/ when a run fails (slow-unit-* files are only notes).
count_failures() { find "$crashes" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' \
    -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l; }

jobs=${FUZZ_JOBS:-1}
failed=()
for t in "${targets[@]}"; do
    if [ "$t" = fatbin ]; then
        seeds=$work/fatbin-seeds dict=tests/fuzz/fatbin.dict
    else
        seeds=$work/ptx-seeds dict=$work/ptx.dict
    fi
    if [ -n "${FUZZ_CORPUS:-}" ]; then corpus=$FUZZ_CORPUS/$t; else corpus=$work/corpus-$t; fi
    mkdir -p "$corpus"
    args=(-max_total_time="$each" -dict="$dict" -artifact_prefix="$crashes/$t-"
        -timeout=20 -rss_limit_mb=2048 -print_final_stats=1)
    [ "$jobs" -gt 1 ] && args+=(-jobs="$jobs" -workers="$jobs")
    echo "fuzz.sh: $t: $(ls "$seeds" | wc -l) seeds, $(grep -c '^"' "$dict") dictionary" \
        "entries, $each s, $jobs job(s); crashes go to $crashes/$t-*"
    before=$(count_failures)
    status=0
    # shellcheck disable=SC2086
    "build-fuzz/fuzz_$t" "${args[@]}" ${FUZZ_ARGS:-} "$corpus" "$seeds" || status=$?
    after=$(count_failures)
    if [ "$status" -ne 0 ] || [ "$after" -ne "$before" ]; then
        echo "fuzz.sh: $t FAILED (status $status); inputs in $crashes/:"
        ls -t "$crashes" | grep "^$t-" | head -n 5 | sed "s|^|  $crashes/|"
        echo "fuzz.sh: reproduce: PTXEMU_FUZZ_DIAG=1 build-fuzz/fuzz_$t CRASH"
        echo "fuzz.sh: keep as a regression input: scripts/fuzz.sh save CRASH NAME $t"
        failed+=("$t")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: FAILED: ${failed[*]}"
    exit 1
fi
echo "fuzz.sh: no crash in $each s each (${targets[*]})"
