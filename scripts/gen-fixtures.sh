#!/usr/bin/env bash
# scripts/gen-fixtures.sh - regenerate the committed PTX of fixtures/cuda/*.cu
#
#   scripts/gen-fixtures.sh [--exe] [--out DIR] [--variants "sm_80 ..."] [NAME...]
#
# For every fixtures/cuda/NAME.cu (or just the NAMEs given) writes
#   fixtures/ptx/sm_75/NAME.ptx    nvcc -arch=sm_75 -ptx -O3
#   fixtures/ptx/sm_80/NAME.ptx    nvcc -arch=sm_80 -ptx -O3
#   fixtures/ptx/sm_90/NAME.ptx    nvcc -arch=sm_90 -ptx -O3
#   fixtures/ptx/sm_100/NAME.ptx   nvcc -arch=sm_100a -ptx -O3 (only the sources that need
#                                  sm_100 or later: `// fixtures: sm_100a`)
#   fixtures/ptx/sm_120/NAME.ptx   nvcc -arch=sm_120a -ptx -O3 (only the sources that need
#                                  sm_120a: `// fixtures: sm_120a`)
#   fixtures/ptx/sm_80_G/NAME.ptx  nvcc -arch=sm_80 -ptx -O3 -G   (device debug)
#   fixtures/ptx/sm_90_L/NAME.ptx  nvcc -arch=sm_90 -ptx -O3 -lineinfo   (source lines,
#                                  inlining chains: .loc … inlined_at)
# A source whose first line is `// fixtures: sm_NN` needs that architecture (thread-block
# clusters need sm_90): only the variants of sm_NN and later are generated for it, and its
# program embeds PTX for compute_NN instead of compute_80. `// fixtures: sm_NNa` (wgmma needs
# sm_90a) generates only the variants of sm_NN itself, compiled for the arch-specific target
# sm_NNa (its features run on no later architecture), and the program embeds compute_NNa.
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
#   --variants   which of the seven directories to generate (default: all)
#
# Needs nvcc (PATH, $NVCC or /usr/local/cuda/bin/nvcc).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

exe=0
out=fixtures/ptx
variants="sm_75 sm_80 sm_90 sm_100 sm_120 sm_80_G sm_90_L"
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

# The architecture a source needs (its `// fixtures: sm_NN` first line), as NN; 0 for any.
min_sm() {
    local l
    IFS= read -r l < "fixtures/cuda/$1.cu" || true
    case $l in
    "// fixtures: sm_"*) echo "${l#// fixtures: sm_}" ;;
    *) echo 0 ;;
    esac
}
export -f min_sm

# One job: "VARIANT NAME", run in $GEN.
gen_one() {
    local variant=$1 name=$2 arch=${1%_[GL]} flags=()
    local need
    need=$(min_sm "$name")
    # variants of sm_100 and later hold only the sources that need them
    [ "${arch#sm_}" -lt 100 ] || [ "${need%a}" -ge 100 ] || return 0
    case $need in
    *a) [ "${arch#sm_}" = "${need%a}" ] || return 0
        arch=${arch}a ;;
    *) [ "${arch#sm_}" -ge "$need" ] || return 0 ;;
    esac
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
        cc=$(min_sm "$n")
        case $cc in *a) ;; *) [ "$cc" -gt 80 ] || cc=80 ;; esac
        echo "$n $cc"
    done | xargs -r -P2 -n2 bash -c '"$0" -cudart shared -O3 \
        -gencode arch=compute_$2,code=sm_$2 -gencode arch=compute_$2,code=compute_$2 \
        -o "build/fixtures/$1" "fixtures/cuda/$1.cu"' "$nvcc"
fi
