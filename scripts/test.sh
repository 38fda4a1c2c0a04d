#!/usr/bin/env bash
# scripts/test.sh - the whole test suite, as CI runs it.
#
# Installs missing tools (scripts/deps.sh), builds the release and the
# ASan+UBSan variants, then runs every test with prove twice: on build/ and on
# build-asan/ (the tests find the binaries through $PTXEMU_BUILD).  The tests
# are the perl scripts tests/*.t and the compiled unit tests
# $PTXEMU_BUILD/tests/unit/*_test; `prove --exec ''` runs each file directly.
# tests/fixtures_uptodate.t and tests/nvcc_matrix.t do not depend on the build
# variant (their work is nvcc's; the matrix needs only the release ptxemu), so
# they run in the first pass only.  Exits non-zero if anything fails.
# Then runs the three libFuzzer harnesses (front end, execution, fat binary reader) for
# $FUZZ_SECONDS (default 60) seconds in total, a third each (scripts/fuzz.sh).
# Needs no terminal and no stdin.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
ninja release asan </dev/null

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
failed=()
for b in build build-asan; do
    echo
    echo "=== tests on $b/"
    tests=()
    for t in tests/*.t; do
        if [ "$b" != build ]; then
            case $t in tests/fixtures_uptodate.t | tests/nvcc_matrix.t) continue ;; esac
        fi
        tests+=("$t")
    done
    for t in "$b"/tests/unit/*_test; do
        [ -x "$t" ] && tests+=("$t")
    done
    # The log is kept so that the failures can be repeated at the very end (CI shows only
    # the tail of the output, which the fuzzers fill).
    if ! PTXEMU_BUILD=$b prove -j2 --timer --exec '' "${tests[@]}" </dev/null 2>&1 |
        tee "$b/prove.log"; then
        status=1
        failed+=("$b")
    fi
done

# The libFuzzer harnesses for a bounded time (issues 3 and 20): a crash fails the suite.
echo
echo "=== fuzzing (frontend, exec, fatbin) for ${FUZZ_SECONDS:-60} s in total"
if ! FUZZ_SECONDS=${FUZZ_SECONDS:-60} ./scripts/fuzz.sh </dev/null; then
    status=1
    failed+=(fuzzing)
fi

# The verdict last, with what failed, so that the tail of a CI log names it.
echo
if [ ${#failed[@]} -eq 0 ]; then
    echo "=== test.sh: all passed"
else
    for b in "${failed[@]}"; do
        [ "$b" = fuzzing ] && continue
        echo "=== failures on $b/ (from $b/prove.log):"
        grep -E '^(not ok|# +(Failed|got|expected|Looks like))|Wstat|Failed test|Parse errors|^Result' \
            "$b/prove.log" | head -60 || true
        sed -n '/^Test Summary Report/,$p' "$b/prove.log" | head -40
    done
    echo "=== test.sh: FAILED: ${failed[*]}"
fi
exit $status
