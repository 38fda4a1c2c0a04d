#!/usr/bin/env bash
# scripts/fuzz.sh - fuzz the front end with libFuzzer for a bounded time.
#
#   scripts/fuzz.sh                    build (`ninja fuzz`) and fuzz for $FUZZ_SECONDS (60)
#   scripts/fuzz.sh regress            run every fixtures/ptx/fuzz/* input once through the
#                                      instrumented harness (no fuzzing)
#   scripts/fuzz.sh save CRASH NAME    minimize a crashing input and store it as the regression
#                                      fixture fixtures/ptx/fuzz/NAME.ptx
#
# The seed corpus is every fixtures/**/*.ptx (plus fixtures/ptx/fuzz/*), copied into a fresh
# temporary directory ($FUZZ_CORPUS to keep one between runs); the dictionary is
# tests/fuzz/ptx.dict plus every mnemonic of frontend/ops.def and modifier of frontend/mods.def.
# A crash, sanitizer report, leak or broken fe_load contract stops the run; the input is saved
# in build-fuzz/crashes/ and the script exits 1 (with the `save` command to run). Exit 0: no
# crash in the time given. Without clang's libFuzzer runtime it prints why and exits 0
# (Debian 12: apt-get install clang-14 libclang-rt-14-dev).
#
# Environment: FUZZ_SECONDS (total time), FUZZ_JOBS (parallel fuzzing processes, default 1),
# FUZZ_CORPUS (corpus dir to keep), FUZZ_ARGS (extra libFuzzer flags, e.g. -max_len=4096),
# PTXEMU_FUZZ_ROUNDTRIP=1 (also require the printed module to re-load; see the harness).
set -euo pipefail
cd "$(dirname "$0")/.."

bin=build-fuzz/fuzz_frontend
crashes=build-fuzz/crashes

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

case "${1:-fuzz}" in
regress)
    shopt -s nullglob
    files=(fixtures/ptx/fuzz/*)
    if [ ${#files[@]} -eq 0 ]; then
        echo "fuzz.sh: no regression inputs in fixtures/ptx/fuzz/"
        exit 0
    fi
    exec "$bin" "${files[@]}"
    ;;
save)
    [ $# -eq 3 ] || { echo "usage: scripts/fuzz.sh save CRASH NAME" >&2; exit 2; }
    mkdir -p fixtures/ptx/fuzz
    out=fixtures/ptx/fuzz/$3.ptx
    # -minimize_crash exits 0 once it stops shrinking; the result is checked to still crash.
    "$bin" -minimize_crash=1 -runs="${FUZZ_MINIMIZE_RUNS:-20000}" -exact_artifact_path="$out" \
        "$2" >/dev/null 2>&1 || true
    [ -s "$out" ] || cp "$2" "$out"
    if "$bin" "$out" >/dev/null 2>&1; then
        echo "fuzz.sh: $out does not crash the harness (flaky input?)" >&2
        exit 1
    fi
    if grep -q '//@' "$out"; then
        echo "fuzz.sh: warning: $out contains '//@', which tests/fixtures.t reads as" \
            "expectations: edit it (keeping the crash) before committing" >&2
    fi
    echo "fuzz.sh: saved $out ($(wc -c <"$out") bytes)"
    exit 0
    ;;
fuzz) ;;
*)
    echo "usage: scripts/fuzz.sh [regress | save CRASH NAME]" >&2
    exit 2
    ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus=${FUZZ_CORPUS:-$work/corpus}
mkdir -p "$corpus" "$work/seeds" "$crashes"

# Seeds: the fixtures, named by path so equal base names do not collide.
while IFS= read -r -d '' f; do
    cp "$f" "$work/seeds/$(echo "${f#fixtures/}" | tr / _)"
done < <(find fixtures -type f \( -name '*.ptx' -o -path 'fixtures/ptx/fuzz/*' \) -print0)

# Dictionary: the hand-kept part, then mnemonics and modifiers from the opcode tables.
dict=$work/ptx.dict
{
    cat tests/fuzz/ptx.dict
    echo "# generated from frontend/ops.def and frontend/mods.def"
    sed -n 's/^OP([A-Z0-9_]*, *"\([^"]*\)".*/"\1"/p' frontend/ops.def
    sed -n 's/^MOD([A-Z0-9_]*, *"\([^"]*\)".*/".\1"/p' frontend/mods.def
} | awk '!seen[$0]++' >"$dict"

jobs=${FUZZ_JOBS:-1}
args=(-max_total_time="${FUZZ_SECONDS:-60}" -dict="$dict" -artifact_prefix="$crashes/"
    -timeout=20 -rss_limit_mb=2048 -print_final_stats=1)
[ "$jobs" -gt 1 ] && args+=(-jobs="$jobs" -workers="$jobs")
echo "fuzz.sh: $(ls "$work/seeds" | wc -l) seeds, $(grep -c '^"' "$dict") dictionary entries," \
    "${FUZZ_SECONDS:-60} s, $jobs job(s); crashes go to $crashes/"

# What libFuzzer leaves in $crashes/ when a run fails (slow-unit-* files are only notes).
count_failures() { find "$crashes" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' \
    -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l; }
before=$(count_failures)
status=0
# shellcheck disable=SC2086
"$bin" "${args[@]}" ${FUZZ_ARGS:-} "$corpus" "$work/seeds" || status=$?
after=$(count_failures)

if [ "$status" -ne 0 ] || [ "$after" -ne "$before" ]; then
    echo "fuzz.sh: FAILED (status $status); inputs in $crashes/:"
    ls -t "$crashes" | head -n 5 | sed "s|^|  $crashes/|"
    echo "fuzz.sh: reproduce: PTXEMU_FUZZ_DIAG=1 $bin CRASH"
    echo "fuzz.sh: keep as a regression fixture: scripts/fuzz.sh save CRASH NAME"
    exit 1
fi
echo "fuzz.sh: no crash in ${FUZZ_SECONDS:-60} s"
