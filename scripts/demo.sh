#!/usr/bin/env bash
# scripts/demo.sh - build ptxemu and run a bundled CUDA program on it, unmodified.
#
# With nvcc (PATH or /usr/local/cuda/bin): builds fixtures/cuda/matmul_tiled.cu (shared-memory
# tiled matrix multiply checked against the CPU) and fixtures/cuda/rt_graphs.cu (streams,
# events, fork/join stream capture, CUDA graphs) with `nvcc -cudart shared` into
# build/fixtures/, then runs them with `ptxemu run --stats`: each prints PASS, and --stats
# prints one line per kernel launch on stderr.
#
# Without nvcc no CUDA program can be built (the repository commits no binaries), so it says
# so and runs the vecadd kernel from its bundled PTX (fixtures/ptx/sm_80/vecadd.ptx, what nvcc
# made of fixtures/cuda/vecadd.cu) with `ptxemu exec` instead.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
ninja </dev/null

run() {
    echo "+ $*"
    "$@"
}

nvcc=${NVCC:-}
if [ -z "$nvcc" ]; then
    if command -v nvcc >/dev/null 2>&1; then
        nvcc=nvcc
    elif [ -x /usr/local/cuda/bin/nvcc ]; then
        nvcc=/usr/local/cuda/bin/nvcc
    fi
fi

if [ -n "$nvcc" ]; then
    echo
    echo "== CUDA programs built with nvcc -cudart shared, run unmodified on ptxemu"
    NVCC=$nvcc scripts/gen-fixtures.sh --exe --variants '' matmul_tiled rt_graphs
    echo
    echo "-- matmul_tiled: expect PASS (stdout) and one 'kernel ...' line (stderr)"
    run build/ptxemu run --stats -- build/fixtures/matmul_tiled
    echo
    echo "-- rt_graphs: expect PASS"
    run build/ptxemu run -- build/fixtures/rt_graphs
else
    echo
    echo "== nvcc not found: cannot build a CUDA program to run with 'ptxemu run' (no binaries"
    echo "   are committed). Running the vecadd kernel from its bundled PTX with 'ptxemu exec'"
    echo "   instead; expect 0 2 4 6 8 10 12 14, one per line"
    run build/ptxemu exec fixtures/ptx/sm_80/vecadd.ptx --kernel _Z6vecaddPKfS0_Pfi \
        --grid 4 --block 256 \
        --arg buf:iota.f32=1000 --arg buf:iota.f32=1000 --arg buf:zero=4000 --arg u32:1000 \
        --print 2:f32:8 --stats
fi
