#!/usr/bin/env bash
# tests/bench/launch.sh [--build DIR] [N] - launch overhead of libcudart.so.13 (issue 7): builds
# tests/bench/launch.cu with nvcc into DIR/bench/launch and runs it on DIR/lib five times per
# configuration, printing the median microseconds per launch:
#   queued    launches go to the device work queue (the default)
#   inline    PTXEMU_SYNC=1: every launch runs on the calling thread
#   4 streams launches spread over 4 non-blocking streams
# A measurement, never a test; without nvcc it says so and exits 0. `ninja bench-launch`.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build
if [ "${1:-}" = --build ]; then build=$2; shift 2; fi
n=${1:-100000}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
if [ ! -x "$nvcc" ]; then
    echo "bench-launch: skipped: nvcc not found"
    exit 0
fi
mkdir -p "$build/bench"
exe=$build/bench/launch
if [ ! -x "$exe" ] || [ tests/bench/launch.cu -nt "$exe" ]; then
    "$nvcc" -O2 -arch=sm_80 -cudart shared -o "$exe" tests/bench/launch.cu
fi

median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

run() { # label, env..., -- args...
    local label=$1; shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    local ts=()
    for _ in 1 2 3 4 5; do
        out=$(env LD_LIBRARY_PATH="$build/lib" "${envs[@]}" "$exe" "$@")
        ts+=("$(sed -n 's/.*, \([0-9.]*\) us\/launch/\1/p' <<<"$out")")
    done
    printf '%-10s %10s us/launch  (median of 5: %s)\n' "$label" \
        "$(printf '%s\n' "${ts[@]}" | median)" "${ts[*]}"
}

echo "launch overhead, $n launches of a 1-CTA kernel, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
run queued PTXEMU_SYNC=0 -- "$n"
run inline PTXEMU_SYNC=1 -- "$n"
run "4 streams" PTXEMU_SYNC=0 -- "$n" 4
