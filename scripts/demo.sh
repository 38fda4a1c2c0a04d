#!/usr/bin/env bash
# scripts/demo.sh - build ptxemu and run a bundled PTX kernel on it.
#
# vecadd from fixtures/cuda/vecadd.cu, as nvcc compiled it to PTX for sm_80
# (fixtures/ptx/sm_80/vecadd.ptx): c[i] = a[i] + b[i] for 1000 floats with
# a = b = 0, 1, 2, ...  on a 4 x 256-thread grid; prints the first 8 of c.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/deps.sh
ninja </dev/null

run() {
    echo "+ $*"
    "$@"
}

echo
echo "== vecadd kernel from PTX; expect 0 2 4 6 8 10 12 14, one per line"
run build/ptxemu exec fixtures/ptx/sm_80/vecadd.ptx --kernel _Z6vecaddPKfS0_Pfi \
    --grid 4 --block 256 \
    --arg buf:iota.f32=1000 --arg buf:iota.f32=1000 --arg buf:zero=4000 --arg u32:1000 \
    --print 2:f32:8 --stats

# The same kernel inside a real CUDA program, through ptxemu's libcudart.so.13
# (needs nvcc to build the program).
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    echo
    echo "== fixtures/cuda/vecadd.cu built with nvcc -cudart shared, run on ptxemu; expect PASS"
    scripts/gen-fixtures.sh --exe --variants '' vecadd
    run build/ptxemu run -- build/fixtures/vecadd ||
        echo "(not working yet: the CUDA runtime is in progress)"
fi
