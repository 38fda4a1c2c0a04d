#!/usr/bin/env bash
# scripts/gen-fixtures.sh - regenerate the committed PTX of fixtures/cuda/*.cu
#
#   scripts/gen-fixtures.sh [--exe] [--out DIR] [--variants "sm_80 ..."] [NAME...]
#
# For every fixtures/cuda/NAME.cu (or just the NAMEs given) writes
#   fixtures/ptx/sm_75/NAME.ptx    nvcc -arch=sm_75 -ptx -O3
#   fixtures/ptx/sm_80/NAME.ptx    nvcc -arch=sm_80 -ptx -O3
#   fixtures/ptx/sm_90/NAME.ptx    nvcc -arch=sm_90 -ptx -O3
#   fixtures/ptx/sm_80_G/NAME.ptx  nvcc -arch=sm_80 -ptx -O3 -G   (device debug)
#   fixtures/ptx/sm_90_L/NAME.ptx  nvcc -arch=sm_90 -ptx -O3 -lineinfo   (source lines,
#                                  inlining chains: .loc … inlined_at)
# Two nvcc jobs at a time.  nvcc -G output depends on the source's absolute
# path (debug strings, the hash in _INTERNAL_ names), so the sources are
# compiled from a copy in a fixed directory, $GEN_DIR (default
# /tmp/ptxemu-gen-fixtures, guarded by a lock), and that prefix is stripped
# from `.file` directives: the output does not depend on the checkout's path.
#
#   --exe        also build the programs: build/fixtures/NAME, linked against
#                the shared CUDA runtime (so ptxemu's libcudart.so.13 can stand
#                in) and embedding PTX for compute_80; skipped when newer
#                than the source.
#   --out DIR    write DIR/sm_XX/NAME.ptx instead (tests/fixtures_uptodate.t)
#   --variants   which of the five directories to generate (default: all)
#
# Needs nvcc (PATH, $NVCC or /usr/local/cuda/bin/nvcc).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

exe=0
out=fixtures/ptx
variants="sm_75 sm_80 sm_90 sm_80_G sm_90_L"
names=()
while [ $# -gt 0 ]; do
    case $1 in
    --exe) exe=1 ;;
    --out) out=$2; shift ;;
    --variants) variants=$2; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed 's/^# \{0,1\}//;/^set -e/d'; exit 0 ;;
    -*) echo "gen-fixtures.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1") ;;
    esac
    shift
done

nvcc=${NVCC:-}
if [ -z "$nvcc" ]; then
    if command -v nvcc >/dev/null 2>&1; then
        nvcc=nvcc
    elif [ -x /usr/local/cuda/bin/nvcc ]; then
        nvcc=/usr/local/cuda/bin/nvcc
    else
        echo "gen-fixtures.sh: nvcc not found (set NVCC or install CUDA)" >&2
        exit 1
    fi
fi
case $out in /*) ;; *) out=$root/$out ;; esac
gen=${GEN_DIR:-/tmp/ptxemu-gen-fixtures}
export NVCC_BIN=$nvcc GEN=$gen OUT=$out

if [ ${#names[@]} -eq 0 ]; then
    for f in fixtures/cuda/*.cu; do
        n=${f##*/}
        names+=("${n%.cu}")
    done
fi

# One job: "VARIANT NAME", run in $GEN.
gen_one() {
    local variant=$1 name=$2 arch=${1%_[GL]} flags=()
    case $variant in
    *_G) flags=(-G) ;;
    *_L) flags=(-lineinfo) ;;
    esac
    local dst=$OUT/$variant/$name.ptx
    mkdir -p "$OUT/$variant"
    if ! (cd "$GEN" && "$NVCC_BIN" -arch="$arch" -ptx -O3 "${flags[@]}" -o "$dst.tmp" \
        "fixtures/cuda/$name.cu"); then
        rm -f "$dst.tmp"
        echo "gen-fixtures.sh: FAILED $variant/$name" >&2
        return 1
    fi
    sed -i "s|$GEN/||g" "$dst.tmp"
    mv -f "$dst.tmp" "$dst"
}
export -f gen_one

mkdir -p "$gen"
exec 9>"$gen.lock"
flock 9
rm -rf "$gen/fixtures"
mkdir -p "$gen/fixtures/cuda"
cp fixtures/cuda/*.cu fixtures/cuda/*.h "$gen/fixtures/cuda/"

for v in $variants; do
    for n in "${names[@]}"; do
        echo "$v $n"
    done
done | xargs -r -P2 -n2 bash -c 'gen_one "$@"' gen_one

if [ $exe -eq 1 ]; then
    mkdir -p build/fixtures
    for n in "${names[@]}"; do
        src=fixtures/cuda/$n.cu dst=build/fixtures/$n
        [ "$dst" -nt "$src" ] && continue
        echo "$n"
    done | xargs -r -P2 -I{} "$nvcc" -cudart shared -O3 \
        -gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80 \
        -o build/fixtures/{} fixtures/cuda/{}.cu
fi
