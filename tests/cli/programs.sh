# The CUDA programs of tests/programs (docs/programs.md) through `gpurf exec` on the platforms
# named after the source root: each is built with nvcc (`-cudart shared`, PTX embedded) into
# $BUILD/tests/programs when missing or older than its source, runs to PASS with exit 0,
# every launch verified (the assert program: its one launch fails with the assert; the
# memory-error programs: theirs stop with the memory check's message), launches and totals
# written; printf's lines appear; vector_add's first launch and every launch of
# stencil_reduce have the statistics of the same launches from a launch / application file;
# statistics are identical on a second run. Without nvcc: skipped (77) with the reason.
#   programs.sh GPURF SOURCE_DIR [PLATFORM...]   (no platform: build the programs only)
source "$(dirname "$0")/lib.sh" "$1" "$2"
shift 2
PLATFORMS=("$@")
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -x "$NVCC" ]; then
  echo "SKIP: no nvcc on the PATH or in /usr/local/cuda/bin: the CUDA programs cannot be built"
  exit 77
fi
BIN=$(dirname "$GPURF")/tests/programs
mkdir -p "$BIN"
PROGRAMS=(vector_add gaussian symbols printf assert streams device managed out_of_bounds use_after_free
  bfs stencil_reduce histogram scan_scatter misaligned)
# Cooperative grid sync; two modules, one reading the other's __device__ array through a
# pointer; two host threads.
PROGRAMS+=(grid_sync cross_module threads)
# A module whose only kernel gpurf refuses (a cubemap texture fetch) beside one it runs; a
# program whose every kernel is refused (its memory calls still work).
PROGRAMS+=(refused_module all_refused)
# Texture and surface objects and CUDA arrays made through the runtime API, every sample
# checked against the Programming Guide's formulas; the calls' argument errors.
PROGRAMS+=(textures)
# Thrust and CUB (scans, radix sorts, selections, a histogram, a segmented reduction): 26
# launches from one 50,000-line module of library templates, as ordinary programs use them.
PROGRAMS+=(thrust_cub)
# Every program runs on the baselines and one platform of each design (FULL_PLATFORMS); each
# other platform runs a third of the programs in rotation (program i on the j-th platform of
# configs/ when (i + j) % 3 == 0), so every platform runs programs and every program runs on a
# third of the others, in a default test run that fits CI's time. The programs that take 2.5-12
# CPU-s a platform (thrust_cub compiles 40 kernels; long debug builds; hundreds of launches)
# run on the FULL_PLATFORMS in that rotation only, and on no other.
# GPURF_PROGRAMS_EVERYWHERE=1 runs every program on every platform named (ctest -L coverage:
# programs.everywhere), GPURF_PROGRAMS="a b" the programs named on every platform named.
FULL_PLATFORMS=" $(grep -v '^#' "$SRC/configs/baselines.txt" | tr '\n' ' ') cmrc-wid wc gebhart-rfc-twolevel malekeh wir-rlpvc ampere-modern "
mapfile -t CONFIG_NAMES < <(ls "$SRC"/configs/*.yaml | sed 's|.*/||; s|\.yaml$||' | sort)
runs_all() { [ -n "${GPURF_PROGRAMS_EVERYWHERE:-}" ] || [[ "$FULL_PLATFORMS" == *" $1 "* ]]; }
HEAVY_PROGRAMS=" thrust_cub tile_groups_debug option_pricing dynamic_parallelism alignment sync_mix virtual_calls_debug "
# Whether the default run (no GPURF_PROGRAMS) leaves program $1 (index $2) off platform $3
# (index $4 in configs/).
skipped() {
  [ -z "${GPURF_PROGRAMS:-}" ] && [ -z "${GPURF_PROGRAMS_EVERYWHERE:-}" ] || return 1
  local rotated=$((($2 + $4) % 3 == 0))
  if [[ "$HEAVY_PROGRAMS" == *" $1 "* ]]; then
    ! { runs_all "$3" && [ $rotated = 1 ]; }
  else
    ! { runs_all "$3" || [ $rotated = 1 ]; }
  fi
}
# Indirect calls: a table of __device__ function pointers and virtual functions, built
# optimised and as a debug build (nvcc -G: every value through the stack).
PROGRAMS+=(function_pointers function_pointers_debug)
# In-kernel malloc/free on the device heap.
PROGRAMS+=(device_malloc)
# Separate compilation (nvcc -rdc=true): two units' device code calling and reading each other,
# linked by gpurf from their PTX; also as a debug build.
PROGRAMS+=(separate separate_debug)
# The driver API with NVRTC: a kernel compiled from source at run time, loaded and launched.
PROGRAMS+=(driver_api)
# Atomics on halves and vectors, cuda::pipeline, built with sm_90 PTX too (the one gpurf runs).
PROGRAMS+=(atomics)
# Recursive device functions (direct, mutual, a tree, a quicksort; cudaLimitStackSize raised),
# optimised and as a debug build.
PROGRAMS+=(recursion recursion_debug)
# Dynamic parallelism (kernels launching kernels; -rdc=true and CUDA's device runtime library).
PROGRAMS+=(dynamic_parallelism)
# CUDA Graphs: stream capture, explicit graphs (a diamond, host, child graph nodes), executable
# graph updates, the errors of bad handles, a cycle and captures.
PROGRAMS+=(graphs)
# An application: particles in a box, three kernels a step in a host loop (device functions,
# templates, a switch over math functions, local arrays, double atomics and shuffles).
PROGRAMS+=(particles)
# cuda::barrier (sm_80's mbarrier) with memcpy_async and warps spinning in try_wait while late
# ones arrive.
PROGRAMS+=(block_barrier)
# Applications of the usual shape, each checked against its own host reference: CUDA's math
# library and intrinsics (rounding modes, 64-bit integer division, SIMD bytes, printf of many
# types; also as a debug build), cooperative groups below the grid (tile reductions and scans,
# coalesced and labeled groups, memcpy_async; a radix sort), Monte-Carlo pricing with cuRAND's
# device API (XORWOW's skip tables, Philox, MRG32k3a), a preconditioned conjugate-gradient
# solver (368 launches, two streams; PTX for two architectures).
PROGRAMS+=(math_mix math_mix_debug tile_groups option_pricing conjugate_gradient)
# SHA-256 and bit-manipulation intrinsics (funnel shifts, prmt, brev, clz, popc, dp4a, 64-bit
# multiply-high, division by variables), optimised and as a debug build; zero-copy mapped and
# registered host memory, pinned async and 2D copies, launches sized by the occupancy API and
# the device's limits; a thousand tiny launches then 120,000 one-warp CTAs.
PROGRAMS+=(hash_bits hash_bits_debug host_memory many_launches)
# Command-line arguments: many_launches' own default (1,000 launches, 120,000 CTAs) takes
# 10-60 s a platform on this machine, hash_bits_debug's (1,024 messages) 10-50 s; here 300
# launches and 24,000 CTAs, and 256 messages.
declare -A ARGS_OF=([many_launches]="300 20000" [hash_bits_debug]=256)
declare -A SOURCE_OF=([function_pointers_debug]=function_pointers [separate_debug]=separate
  [recursion_debug]=recursion [math_mix_debug]=math_mix [hash_bits_debug]=hash_bits)
declare -A NVCC_FLAGS=([function_pointers_debug]=-G [hash_bits_debug]=-G [separate]=-rdc=true [separate_debug]="-rdc=true -G"
  [atomics]="-gencode arch=compute_90,code=compute_90"
  [block_barrier]="-gencode arch=compute_80,code=compute_80"
  [recursion_debug]=-G [dynamic_parallelism]=-rdc=true [math_mix_debug]=-G
  [tile_groups]="-gencode arch=compute_80,code=compute_80"
  [conjugate_gradient]="-gencode arch=compute_86,code=compute_86")
# Libraries, after the sources.
declare -A LINK_FLAGS=([dynamic_parallelism]=-lcudadevrt [driver_api]="-lcuda -lnvrtc")
# A program of several translation units (each its own module without -rdc=true): the others.
declare -A MORE_SOURCES=([cross_module]=cross_module_lib.cu [refused_module]=refused_module_lib.cu
  [separate]=separate_lib.cu [separate_debug]=separate_lib.cu)
# tile_groups as a debug build: its memcpy_async stencil gets 70 registers from gpurf's
# allocator where ptxas gives 56 (backing rows beyond the banks on WIR and Affine) while the
# module's largest kernel needs none. 300 elements: the debug build's radix sort of 4,000 takes
# 2-3 minutes a platform.
PROGRAMS+=(tile_groups_debug)
ARGS_OF+=([tile_groups_debug]=300)
SOURCE_OF+=([tile_groups_debug]=tile_groups)
NVCC_FLAGS+=([tile_groups_debug]="-gencode arch=compute_80,code=compute_80 -G")
# Kernels of the usual shapes gpurf had not seen: a power iteration over CSR (a warp per row,
# __shfl_down_sync) and ELL; warp intrinsics with partial masks and widths below 32; n-body with
# float4 tiles built with --use_fast_math; wmma GEMMs beside a plain kernel; packed half and
# bfloat16 arithmetic and half2 shuffles; templates over extended lambdas, __noinline__ calls
# and many live values, with PTX for three architectures and as a debug build.
PROGRAMS+=(spmv_power warp_votes nbody_fast wmma_gemm half_math lambdas_regs lambdas_regs_debug)
SOURCE_OF+=([lambdas_regs_debug]=lambdas_regs)
ARGS_OF+=([lambdas_regs_debug]=512) # 1,024 threads: 10-14 s a platform on the WIR designs
NVCC_FLAGS+=([warp_votes]="-gencode arch=compute_80,code=compute_80" [nbody_fast]=--use_fast_math
  [wmma_gemm]="-gencode arch=compute_90,code=compute_90"
  [half_math]="-gencode arch=compute_80,code=compute_80"
  [lambdas_regs]="-gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=compute_90 --extended-lambda"
  [lambdas_regs_debug]="-gencode arch=compute_80,code=compute_80 -gencode arch=compute_90,code=compute_90 --extended-lambda -G")
# Virtual calls whose lanes in a warp hold different types (serialised as hardware does; also
# as a debug build); __int128 division and carry chains in inline PTX (the carry flag after a
# subtraction, never reused by WIR); pitched/3D allocations, memsets and copies, mapped memory,
# events and a captured graph (also built with --default-stream per-thread: the _ptds and _ptsz
# calls); floating-point corners bit for bit.
PROGRAMS+=(virtual_calls virtual_calls_debug bignum runtime_api runtime_api_ptds fp_corners)
# A program without a kernel (a device query, a bandwidth test; a second translation unit with
# a __constant__ table and no kernel either).
PROGRAMS+=(no_kernels)
# CTAs that wait for each other through memory: spin and ticket locks, a handoff whose consumer
# comes first in grid order, a work queue (also fast-forwarded, below).
PROGRAMS+=(spin_locks)
MORE_SOURCES+=([no_kernels]=no_kernels_lib.cu)
SOURCE_OF+=([virtual_calls_debug]=virtual_calls [runtime_api_ptds]=runtime_api)
NVCC_FLAGS+=([virtual_calls_debug]=-G [runtime_api_ptds]="--default-stream per-thread")
# Scientific applications of the usual multi-kernel shape, each against its host reference:
# global alignment over anti-diagonals of tiles (growing then shrinking launches) whose scoring
# and __constant__ table live in another unit (-rdc=true); anisotropic diffusion (a reduction
# with float atomics, exp/log/division, three kernels an iteration); blocked LU (three kernels
# a step, 34 launches); synchronisation patterns (the last CTA's sum after __threadfence, a CAS
# loop, spin locks between lanes of a warp, __syncthreads_or/count, a 6 KB argument, streams
# ordered by an event, a host function).
PROGRAMS+=(alignment diffusion block_lu sync_mix)
NVCC_FLAGS+=([alignment]=-rdc=true)
MORE_SOURCES+=([alignment]=alignment_lib.cu)
# Built with `nvcc --default-stream per-thread`: every call its _ptds/_ptsz form, stream 0 the
# thread's default stream (copies, memsets, symbols, pitched 3D memory, events, a capture of it).
PROGRAMS+=(per_thread_stream)
NVCC_FLAGS+=([per_thread_stream]="--default-stream per-thread")
# cudaFuncGetAttributes of __launch_bounds__, shared, .local and register-heavy kernels (ptxas's
# count under every allocator), a launch beyond the bounds, cudaLaunchKernelEx's events,
# stream-ordered allocation and other runtime queries.
PROGRAMS+=(launch_config)
NVCC_FLAGS+=([launch_config]="-gencode arch=compute_80,code=compute_80")
# Tensor-core and cache-hint inline PTX (ldmatrix, mma.sync, createpolicy and .L2::cache_hint,
# cuda::annotated_ptr) and a programmatic dependent launch (griddepcontrol), sm_90 PTX.
PROGRAMS+=(tensor_asm)
NVCC_FLAGS+=([tensor_asm]="-gencode arch=compute_90,code=compute_90")
# sm_90 forms of CUDA's headers (compute_90 PTX): programmatic dependent launch, fp8 and tf32
# conversions, DPX min/max with .relu and on packed halfwords (each refused before).
PROGRAMS+=(sm90_convert)
NVCC_FLAGS+=([sm90_convert]="-gencode arch=compute_90,code=compute_90")
# Thrust built for sm_80 only (CUB's policy follows the PTX version cudaFuncGetAttributes reports).
PROGRAMS+=(thrust_sm80)
NVCC_FLAGS+=([thrust_sm80]="-gencode arch=compute_80,code=compute_80")
# Floating-point applications: a small CNN's inference in float, __half2 and bf16 with a GELU
# through h2tanh_approx (tanh.approx on halves, refused before); a 2D FFT, lattice-Boltzmann
# steps and a DGEMM on double wmma fragments (refused before: nvcc's .rn), asking for
# eight-byte shared-memory banks (cudaErrorNotSupported before).
PROGRAMS+=(nn_infer sci_double)
NVCC_FLAGS+=([nn_infer]="-gencode arch=compute_90,code=compute_90"
  [sci_double]="-gencode arch=compute_80,code=compute_80")
# Integer, bit-level and libcu++ code as applications write it, each against its host
# reference: cuda::atomic_ref with memory orders, atomic_flag, a counting semaphore, a latch,
# atomic wait/notify, a barrier with a completion function, a two-stage cuda::pipeline,
# cuda::std bit functions, clock64 and %globaltimer across launches (sm_80 PTX; also as a debug
# build, whose cuda::pipeline arrives with mbarrier.arrive.noComplete); 64-bit number theory
# (a sieve, Montgomery Miller-Rabin, __fns, __mul24); CRC-32/32C, Adler-32, FNV-1a and a 32-bit
# radix sort ranked by __match_any_sync, 64-bit shared atomics; cooperative groups' invoke_one,
# reduce_update_async, tiles of 2, struct shuffles and coalesced-group scans.
PROGRAMS+=(libcuxx_sync libcuxx_sync_debug number_theory radix_crc cg_extras)
SOURCE_OF+=([libcuxx_sync_debug]=libcuxx_sync)
ARGS_OF+=([libcuxx_sync_debug]=300)
NVCC_FLAGS+=([libcuxx_sync]="-gencode arch=compute_80,code=compute_80"
  [libcuxx_sync_debug]="-gencode arch=compute_80,code=compute_80 -G"
  [cg_extras]="-gencode arch=compute_80,code=compute_80")
HEAVY_PROGRAMS+="libcuxx_sync_debug "
# Large kernels: a cardiac-cell RK4 integrator (a 24-float state struct passed and returned by
# value through __noinline__ chains), a bytecode interpreter as a debug build (a switch per
# opcode, a local stack indexed dynamically, recursive calls under a raised cudaLimitStackSize),
# a 3D stencil and 8x8 register tiles under __launch_bounds__ (one of 1,024 threads: refused on
# the Fermi family before, its registers now capped to what fits as a compiler for it would).
PROGRAMS+=(stencil3d_tile cell_ode stack_vm_debug)
SOURCE_OF+=([stack_vm_debug]=stack_vm)
ARGS_OF+=([stack_vm_debug]="64 2")
NVCC_FLAGS+=([stack_vm_debug]=-G)
# Image processing (a 5x5 __constant__ convolution, a separable blur over pitched memory,
# textures of uchar4/ushort/schar arrays with mirror and wrap, tex2Dgather, tex2DLod and
# tex2DGrad, a Sobel pass through surfaces, a layered array of frames, cudaMalloc3D) and the
# SIMD video intrinsics built as compute_90 PTX (add/sub.s16x2, tex.level/tex.grad and layered
# arrays: refused before).
PROGRAMS+=(image_filters)
NVCC_FLAGS+=([image_filters]="-gencode arch=compute_90,code=compute_90")
# A host program of the usual shape (a solver's loop, symbols at offsets, streams, events, host
# functions, host threads, pools) and the runtime's answers as CUDA's: a grid or block beyond a
# dimension's limit, dynamic shared memory beyond the kernel's attribute (48 KB by default),
# the device's current memory pool, every error code's name and text.
PROGRAMS+=(host_runtime)
for p in "${PROGRAMS[@]}"; do
  srcs=("$SRC/tests/programs/${SOURCE_OF[$p]:-$p}.cu")
  for m in ${MORE_SOURCES[$p]:-}; do srcs+=("$SRC/tests/programs/$m"); done
  stale=0
  [ -x "$BIN/$p" ] || stale=1
  for h in "$SRC"/tests/programs/*.h; do [ "$h" -nt "$BIN/$p" ] && stale=1; done
  for src in "${srcs[@]}"; do [ "$src" -nt "$BIN/$p" ] && stale=1; done
  if [ "$stale" = 1 ]; then
    "$NVCC" -cudart shared -gencode arch=compute_75,code=compute_75 ${NVCC_FLAGS[$p]:-} \
      -I"$SRC/tests/programs" -o "$BIN/$p" "${srcs[@]}" ${LINK_FLAGS[$p]:-} 2>"$TMP/nvcc.err" || fail "nvcc $p: $(head -c 400 "$TMP/nvcc.err")"
  fi
done

# The runtime types libgpurf-cudart declares have CUDA 13's layouts (fails to compile if not).
"$NVCC" -cudart shared -I"$SRC" -I"$SRC/tests/programs" -o "$TMP/layout" "$SRC/tests/programs/layout.cu" \
  2>"$TMP/layout.err" || fail "cudart/cuda_types.h differs from CUDA's headers: $(grep -m3 error "$TMP/layout.err")"
# A program without PTX (SASS only), and one with the static runtime: each told why.
if [ ! -x "$BIN/vector_add_sass" ] || [ "$SRC/tests/programs/vector_add.cu" -nt "$BIN/vector_add_sass" ]; then
  "$NVCC" -cudart shared -gencode arch=compute_75,code=sm_75 -I"$SRC/tests/programs" \
    -o "$BIN/vector_add_sass" "$SRC/tests/programs/vector_add.cu" || fail "nvcc vector_add_sass"
  "$NVCC" -cudart static -gencode arch=compute_75,code=compute_75 -I"$SRC/tests/programs" \
    -o "$BIN/vector_add_static" "$SRC/tests/programs/vector_add.cu" || fail "nvcc vector_add_static"
fi
# vector_add's first launch as a launch file, stencil_reduce's launches as an application file
# and grid_sync's kernel as a cooperative launch file need their PTX.
for p in vector_add stencil_reduce grid_sync; do
  if [ ! -s "$BIN/$p.ptx" ] || [ "$SRC/tests/programs/$p.cu" -nt "$BIN/$p.ptx" ]; then
    "$NVCC" -arch=sm_75 -ptx -I"$SRC/tests/programs" -o "$BIN/$p.ptx" \
      "$SRC/tests/programs/$p.cu" || fail "nvcc -ptx $p"
  fi
  # (Written only when it changed: the platforms' tests run at the same time and read it.)
  cmp -s "$SRC/tests/programs/$p.yaml" "$BIN/$p.yaml" || cp "$SRC/tests/programs/$p.yaml" "$BIN/$p.yaml"
done
# grid_sync's expected outputs (grid_sync.cu's host reference for data = 0, 1, 2, ...).
python3 - "$BIN" <<'PY' || fail "grid_sync's expected outputs"
import os, struct, sys
data, totals = list(range(3000)), []
for r in range(3):
    t = sum(data) & 0xffffffff
    totals.append(t)
    data = [(v * 3 + (t >> 4) + i) & 0xffffffff for i, v in enumerate(data)]
for name, vals in (("data", data), ("totals", totals)):
    blob = struct.pack("<%dI" % len(vals), *vals)
    path = os.path.join(sys.argv[1], "grid_sync.%s.bin" % name)
    if not os.path.exists(path) or open(path, "rb").read() != blob:
        open(path + ".tmp", "wb").write(blob)
        os.replace(path + ".tmp", path)
PY
[ ${#PLATFORMS[@]} -gt 0 ] || finish # no platform: build the programs only (the tests' fixture)

for plat in "${PLATFORMS[@]}"; do
  name=$(basename "$plat" .yaml) j=0
  while [ $j -lt ${#CONFIG_NAMES[@]} ] && [ "${CONFIG_NAMES[$j]}" != "$name" ]; do j=$((j + 1)); done
  for i in "${!PROGRAMS[@]}"; do
    p=${PROGRAMS[$i]}
    [ -z "${GPURF_PROGRAMS:-}" ] || [[ " $GPURF_PROGRAMS " == *" $p "* ]] || continue
    skipped "$p" "$i" "$name" "$j" && continue
    out=$TMP/$plat-$p
    "$GPURF" exec --platform "$plat" --out "$out" -- "$BIN/$p" ${ARGS_OF[$p]:-} >"$out.stdout" 2>"$out.stderr"
    rc=$?
    what="$p on $plat"
    # CUB's radix sort for sm_75 needs 33,856 B of static shared memory: a platform with 32 KB
    # (gebhart's) refuses it at launch, naming the key, and Thrust throws, as on such a GPU.
    if [ "$p" = thrust_cub ] && [ "$rc" -ne 0 ] &&
      grep -q "needs 33856 bytes of shared memory .* the platform's sm.shared_bytes is 32768" "$out.stderr"; then
      echo "$what: refused as expected (32 KB of shared memory)"
      continue
    fi
    [ "$rc" -eq 0 ] || fail "$what exited $rc: $(tail -c 600 "$out.stderr")"
    grep -qx PASS "$out.stdout" || fail "$what did not print PASS: $(tail -c 400 "$out.stdout")"
    if [ "$p" = no_kernels ]; then
      # No kernel, no launch: the modules without .entry load (no warning), the results written.
      grep -q "^gpurf: .*\.entry\|no kernel can be loaded" "$out.stderr" &&
        fail "$what: a module without kernels was refused: $(tail -c 600 "$out.stderr")"
      [ -s "$out/result.json" ] || fail "$what wrote no result.json"
      continue
    fi
    if [ "$p" = all_refused ]; then
      # No launch ran: the GPU was built around gpurf's idle kernel, the refused one says why.
      grep -q "warning: .*no kernel can be loaded: kernel '_Z14sample_cubemapyPfi' cannot be loaded" "$out.stderr" &&
        grep -q "launch of '_Z14sample_cubemapyPfi': refused: kernel '_Z14sample_cubemapyPfi' cannot be loaded (.*:[0-9]*: unsupported modifier '.cube'" "$out.stderr" ||
        fail "$what: the refusal does not say why: $(tail -c 600 "$out.stderr")"
      continue
    fi
    [ -s "$out/launches.jsonl" ] || { fail "$what wrote no launches.jsonl"; continue; }
    for f in stats.json result.json provenance.json platform.yaml; do
      [ -s "$out/$f" ] || fail "$what wrote no $f"
    done
    launches=$(wc -l <"$out/launches.jsonl")
    lines=$(grep "^gpurf: launch " "$out.stderr" | grep -vc ": refused: ")
    [ "$launches" -eq "$lines" ] || fail "$what: $launches launch records, $lines lines on stderr"
    if [ "$p" = assert ]; then
      grep -q '"verified":false' "$out/launches.jsonl" || fail "$what: the assert's launch verified"
      grep -q 'assert.cu:8: void check_positive(const int \*, int): block: \[1,0,0\], thread: \[5,0,0\] Assertion `v\[i\] > 0` failed' "$out.stderr" ||
        fail "$what: no assert message naming file, line, function, block and thread: $(tail -c 600 "$out.stderr")"
      grep -q "cudaErrorAssert, then memcpy: cudaErrorAssert" "$out.stdout" || fail "$what: not sticky"
    elif [ "$p" = out_of_bounds ] || [ "$p" = use_after_free ] || [ "$p" = misaligned ]; then
      # The memory check (frontend.memory_check) stops the kernel naming the thread, the PTX
      # line, the address and the allocation with its bounds; a misaligned access likewise.
      grep -q '"verified":false' "$out/launches.jsonl" || fail "$what: the bad launch verified"
      case $p in
      out_of_bounds) want="thread 64, .*global store of 4 bytes at 0x[0-9a-f]* outside every allocation: 0 bytes past the end of cudaMalloc allocation of 256 bytes \[0x" ;;
      use_after_free) want="thread 0, .*global load of 4 bytes at 0x[0-9a-f]*.*access to freed memory: cudaMalloc allocation of 128 bytes \[0x" ;;
      misaligned) want="kernel '_Z9read_keysPiPKhi', CTA (0,0,0), warp 0, thread 1, lane 1, .*: misaligned global load of 4 bytes at 0x[0-9a-f]*6 (needs 4-byte alignment): in cudaMalloc allocation of 192 bytes \[0x" ;;
      esac
      grep -q "$want" "$out.stderr" || fail "$what: no memory-check message /$want/: $(tail -c 600 "$out.stderr")"
      grep -q "\.ptx:[0-9]*\|:[0-9]* '" "$out.stderr" || fail "$what: no PTX line named"
      err=cudaErrorIllegalAddress
      [ "$p" = misaligned ] && err=cudaErrorMisalignedAddress
      grep -q "synchronize: $err" "$out.stdout" || fail "$what: not $err"
    elif [ "$p" = refused_module ]; then
      # The program starts, the loadable module's launch verifies, and the refused kernel's
      # launch names the instruction and line (cudaErrorInvalidDeviceFunction: PASS above).
      grep -q '"verified":true' "$out/launches.jsonl" || fail "$what: the loadable kernel did not verify"
      grep -q "launch of '_Z14sample_cubemapyPfi': refused: kernel '_Z14sample_cubemapyPfi' cannot be loaded (.*:[0-9]*: unsupported modifier '.cube' in 'tex.cube" "$out.stderr" ||
        fail "$what: the refused launch does not say why: $(tail -c 600 "$out.stderr")"
      grep -q "cudaFuncGetAttributes of '_Z14sample_cubemapyPfi': refused: kernel" "$out.stderr" ||
        fail "$what: the refused attribute query does not say why: $(tail -c 600 "$out.stderr")"
    elif [ "$p" = grid_sync ]; then
      # Two cooperative launches verified; one CTA too many refused; the last launch, not
      # cooperative, traps in grid.sync() as on CUDA and is the only one not verified.
      [ "$(grep -c '"verified":true' "$out/launches.jsonl")" -eq 2 ] &&
        [ "$(grep -c '"verified":false' "$out/launches.jsonl")" -eq 1 ] &&
        tail -1 "$out/launches.jsonl" | grep -q '"verified":false' ||
        fail "$what: not 2 verified launches then the failing one: $(cut -c1-300 "$out/launches.jsonl")"
      grep -q "refused: .*cooperative launch of [0-9]* CTAs: at most [0-9]* can be resident" "$out.stderr" ||
        fail "$what: the too-large grid was not refused naming the limit: $(tail -c 600 "$out.stderr")"
      grep -q "CTAs: cudaErrorCooperativeLaunchTooLarge, last error cudaErrorCooperativeLaunchTooLarge, then cudaSuccess" "$out.stdout" ||
        fail "$what: not cudaErrorCooperativeLaunchTooLarge (not sticky): $(head -c 600 "$out.stdout")"
      grep -q "trap: the kernel aborted (.*needs cudaLaunchCooperativeKernel" "$out.stderr" ||
        fail "$what: the non-cooperative launch did not trap naming cudaLaunchCooperativeKernel"
      grep -q "<<<>>>: cudaErrorLaunchFailure, then cudaErrorLaunchFailure" "$out.stdout" ||
        fail "$what: the non-cooperative launch: not a sticky cudaErrorLaunchFailure"
    else
      if grep -q '"verified":false' "$out/launches.jsonl"; then
        fail "$what: a launch not verified: $(grep -m1 '"verified":false' "$out/launches.jsonl" | head -c 500)"
      fi
      if [ "$p" = dynamic_parallelism ]; then
        # Device launches are launches of their own, each naming the launch whose grid made it;
        # the tail launch (made first) runs after its parent's fire-and-forget children.
        [ "$(grep -c 'child(int\*, int) grid (1,1,1) block (32,1,1) (device launch from launch 1): ' "$out.stderr")" -eq 4 ] ||
          fail "$what: not 4 device launches of child from launch 1: $(grep -m3 'device launch' "$out.stderr")"
        [ "$(grep -c '"parent":' "$out/launches.jsonl")" -eq "$(grep -c '(device launch from launch ' "$out.stderr")" ] ||
          fail "$what: launch records without their parent"
        last_produce=$(grep -n '"kernel":"_Z7producePii"' "$out/launches.jsonl" | tail -1 | cut -d: -f1)
        sum_at=$(grep -n '"kernel":"_Z3sumPKiiPi"' "$out/launches.jsonl" | cut -d: -f1)
        [ -n "$last_produce" ] && [ -n "$sum_at" ] && [ "$sum_at" -gt "$last_produce" ] ||
          fail "$what: the tail launch (record $sum_at) did not run after the children (last $last_produce)"
      fi
      if [ "$p" = math_mix ] || [ "$p" = math_mix_debug ]; then
        # printf of many types and formats: the kernel's line as the host's printf formats it.
        dev=$(sed -n 's/^dev: //p' "$out.stdout")
        [ -n "$dev" ] && [ "$dev" = "$(sed -n 's/^host: //p' "$out.stdout")" ] ||
          fail "$what: the device's printf line differs from the host's: $(grep '^dev:\|^host:' "$out.stdout")"
      fi
      if [ "$p" = textures ]; then
        # What gpurf refuses says so, naming the call and what is supported.
        for want in "gpurf: cudaMalloc3DArray: cubemap arrays are not supported (supported: 1D, 2D, 3D and 1D/2D layered arrays" \
          "gpurf: cudaCreateTextureObject: mipmapped arrays are not supported (supported resources: " \
          "gpurf: cudaMallocArray: channel format {32, 32, 32, 0, kind 2}: 3 channels (valid: 1, 2, 4) (cudaErrorInvalidChannelDescriptor)"; do
          grep -qF "$want" "$out.stderr" || fail "$what: no message '$want': $(tail -c 600 "$out.stderr")"
        done
      fi
    fi
  done
  # A chosen set or a third of the programs: the checks below need the others.
  [ -z "${GPURF_PROGRAMS:-}" ] && runs_all "$name" || continue
  # Device facts from the platform; an unimplemented function says so.
  grep -qx "name gpurf $plat" "$TMP/$plat-device.stdout" || fail "device on $plat: no 'name gpurf $plat'"
  grep -q "gpurf: cudaIpcGetMemHandle is not supported by libgpurf-cudart" "$TMP/$plat-device.stderr" ||
    fail "device on $plat: cudaIpcGetMemHandle did not say it is not supported"
  # vector_add's first launch has the statistics of the same launch from a launch file (same
  # addresses, data and cold state).
  "$GPURF" run --platform "$plat" --workload "$BIN/vector_add.yaml" --out "$TMP/$plat-run" \
    >/dev/null 2>"$TMP/$plat-run.err" || fail "gpurf run vector_add.yaml on $plat: $(tail -c 300 "$TMP/$plat-run.err")"
  python3 - "$TMP/$plat-run/result.json" "$TMP/$plat-vector_add/launches.jsonl" <<'PY' ||
import json, sys
run = json.load(open(sys.argv[1]))
launch = json.loads(open(sys.argv[2]).readline())
skip = {"kernel", "verified", "error", "schema", "platform", "host_seconds", "cpu_seconds",
        "warp_instructions_per_second", "cycles_per_second"}
keys = [k for k in launch if k in run and k not in skip]
diff = [f"{k}: program {launch[k]}, launch file {run[k]}" for k in keys if launch[k] != run[k]]
if len(keys) < 15 or diff:
    print("; ".join(diff) or f"only {len(keys)} counters compared")
    sys.exit(1)
PY
    fail "vector_add on $plat: launch 1 differs from the launch file's run"
  # Every launch of stencil_reduce (six stencil steps on ping-pong buffers, then two reduction
  # kernels: warm caches, several kernels) has the statistics of the same launch of the
  # application file that replays the program (tests/programs/stencil_reduce.yaml: same PTX,
  # buffers, addresses, values, launches).
  "$GPURF" run --platform "$plat" --workload "$BIN/stencil_reduce.yaml" --out "$TMP/$plat-app" \
    >/dev/null 2>"$TMP/$plat-app.err" || fail "gpurf run stencil_reduce.yaml on $plat: $(tail -c 300 "$TMP/$plat-app.err")"
  python3 - "$TMP/$plat-app/result.json" "$TMP/$plat-stencil_reduce/launches.jsonl" <<'PY' ||
import json, sys
app = json.load(open(sys.argv[1]))["launches"]
prog = [json.loads(line) for line in open(sys.argv[2])]
skip = {"launch", "label", "kernel", "verified", "error"}
bad = [] if len(app) == len(prog) == 8 else [f"{len(prog)} launches, {len(app)} in the application"]
for i, (p, a) in enumerate(zip(prog, app)):
    keys = [k for k in p if k in a and k not in skip]
    if len(keys) < 15 or p["kernel"] != a["kernel"]:
        bad.append(f"launch {i + 1}: {p['kernel']} / {a['kernel']}, {len(keys)} counters compared")
    bad += [f"launch {i + 1} {p['kernel']}: {k}: program {p[k]}, application {a[k]}"
            for k in keys if p[k] != a[k]]
print("; ".join(bad[:6]))
sys.exit(1 if bad else 0)
PY
    fail "stencil_reduce on $plat: launches differ from the application file's"
  # printf: each of the 4 printing threads' line, before the host's next line.
  out=$TMP/$plat-printf.stdout
  for b in 0 1; do
    for t in 0 16; do
      grep -qx "block $b thread $t: f=1.50 big=1234567890123 ok" "$out" ||
        fail "printf on $plat: no line for block $b thread $t: $(head -c 400 "$out")"
    done
  done
  [ "$(sed -n 5p "$out")" = "after the kernel" ] || fail "printf on $plat: the kernel's lines are not first"
  [ "$(grep -c '^gpurf: launch .*fan[12]' "$TMP/$plat-gaussian.stderr")" -eq 46 ] ||
    fail "gaussian on $plat: not 46 launches (fan1/fan2 x 23)"
  # bfs: the host loop on the device flag ran once per level and once more (depth 11).
  [ "$(grep -c '^gpurf: launch [0-9]* \(expand\|advance\)(' "$TMP/$plat-bfs.stderr")" -eq 24 ] ||
    fail "bfs on $plat: not 24 launches (expand/advance x 12)"
done
[ -z "${GPURF_PROGRAMS:-}" ] || finish

# No PTX: the program's first CUDA call fails and gpurf names the nvcc flags; the static
# runtime: gpurf exec warns before running it.
"$GPURF" exec -- "$BIN/vector_add_sass" >"$TMP/sass.out" 2>"$TMP/sass.err"
[ $? -ne 0 ] || fail "a program without PTX exited 0"
grep -q "carries no PTX (SASS sm_75): build it with PTX embedded, e.g. \`nvcc -cudart shared -gencode arch=compute_75,code=compute_75" "$TMP/sass.err" ||
  fail "a program without PTX: no message naming the nvcc flags: $(head -c 400 "$TMP/sass.err")"
grep -q "FAIL: .*cudaErrorNoKernelImageForDevice" "$TMP/sass.out" || fail "a program without PTX: not cudaErrorNoKernelImageForDevice: $(head -c 300 "$TMP/sass.out")"
"$GPURF" exec -- "$BIN/vector_add_static" >"$TMP/static.out" 2>"$TMP/static.err"
rc=$?
[ "$rc" -eq 2 ] || fail "a program with the static runtime: exit $rc, not 2"
[ ! -s "$TMP/static.out" ] || fail "a program with the static runtime ran: $(head -c 200 "$TMP/static.out")"
grep -q "vector_add_static carries device code but links CUDA's runtime statically.*nvcc -cudart shared" "$TMP/static.err" ||
  fail "a program with the static runtime: no message: $(head -c 300 "$TMP/static.err")"
# A program calling cuRAND's host API (a precompiled library with a runtime of its own): gpurf
# names the library and why its calls fail; the program's own kernel runs.
if [ ! -x "$BIN/vendor_library" ] || [ "$SRC/tests/programs/vendor_library.cu" -nt "$BIN/vendor_library" ]; then
  "$NVCC" -cudart shared -gencode arch=compute_75,code=compute_75 -I"$SRC/tests/programs" \
    -o "$BIN/vendor_library" "$SRC/tests/programs/vendor_library.cu" -lcurand || fail "nvcc vendor_library"
fi
"$GPURF" exec --quiet -- "$BIN/vendor_library" >"$TMP/vendor.out" 2>"$TMP/vendor.err" ||
  fail "vendor_library exited $?: $(tail -c 400 "$TMP/vendor.out")"
grep -q "libcurand.so.* asked for CUDA's private driver interface (cuGetExportTable), which gpurf does not have: CUDA's precompiled libraries" "$TMP/vendor.err" ||
  fail "vendor_library: the library's failure is not explained: $(head -c 400 "$TMP/vendor.err")"
# A program without device code (here the shell) runs, warned that gpurf sees no runtime.
"$GPURF" exec -- /bin/sh -c 'echo ran' >"$TMP/sh.out" 2>"$TMP/sh.err" || fail "gpurf exec -- /bin/sh exited $?"
grep -qx ran "$TMP/sh.out" || fail "gpurf exec -- /bin/sh did not run it"
grep -q "loads neither libcudart.so nor libcuda.so.1: if it runs CUDA kernels" "$TMP/sh.err" ||
  fail "gpurf exec -- /bin/sh: no warning: $(head -c 300 "$TMP/sh.err")"

# The checks below read every program's run on the first platform.
runs_all "$(basename "${PLATFORMS[0]}" .yaml)" || finish
# Determinism: a second run's statistics are those of the first (the host section aside), and
# its launch records (simulated times and counters only) are identical too: every program
# that ends its launches normally (threads aside: its two host threads' launches interleave as
# the host schedules them).
# Each platform reruns a third of them in rotation (the k-th when (k + j) % 3 == 0; every one
# where GPURF_PROGRAMS_EVERYWHERE is set), so that each is rerun on a few platforms.
plat=${PLATFORMS[0]}
j=0
while [ $j -lt ${#CONFIG_NAMES[@]} ] && [ "${CONFIG_NAMES[$j]}" != "$(basename "$plat" .yaml)" ]; do j=$((j + 1)); done
k=0
for p in vector_add gaussian symbols printf streams device managed bfs stencil_reduce histogram \
  scan_scatter grid_sync cross_module; do
  k=$((k + 1))
  [ -n "${GPURF_PROGRAMS_EVERYWHERE:-}" ] || [ $(((k + j) % 3)) -eq 0 ] || [ $p = gaussian ] || continue
  "$GPURF" exec --quiet --platform "$plat" --out "$TMP/again-$p" -- "$BIN/$p" >/dev/null 2>&1
  python3 - "$TMP/$plat-$p/stats.json" "$TMP/again-$p/stats.json" <<'PY' || fail "$p on $plat: statistics differ between two runs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for s in (a, b):
    s.pop("host", None)
sys.exit(0 if a == b else 1)
PY
  cmp -s "$TMP/$plat-$p/launches.jsonl" "$TMP/again-$p/launches.jsonl" ||
    fail "$p on $plat: launch records differ between two runs"
done
# A launch file's `cooperative: true`: grid.sync() runs and the outputs match the reference;
# a grid larger than can be resident is refused (exit 2) naming the limit;
# without the key the kernel traps, as on CUDA.
"$GPURF" run --platform "$plat" --workload "$BIN/grid_sync.yaml" >"$TMP/coop.out" 2>&1 ||
  fail "grid_sync.yaml (cooperative) on $plat: $(tail -c 400 "$TMP/coop.out")"
grep -q "verified" "$TMP/coop.out" || fail "grid_sync.yaml on $plat: not verified: $(tail -c 400 "$TMP/coop.out")"
"$GPURF" run --platform "$plat" --workload "$BIN/grid_sync.yaml" --var ctas=1000 >"$TMP/coop-big.out" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "cooperative launch of 1000 CTAs: at most [0-9]* can be resident" "$TMP/coop-big.out" ||
  fail "grid_sync.yaml with 1000 CTAs: exit $rc, not refused naming the limit: $(tail -c 400 "$TMP/coop-big.out")"
sed -e '/^cooperative:/d' -e "s|grid_sync\.|$BIN/grid_sync.|g" "$BIN/grid_sync.yaml" >"$TMP/plain.yaml"
"$GPURF" run --platform "$plat" --workload "$TMP/plain.yaml" >"$TMP/coop-plain.out" 2>&1 &&
  fail "grid_sync.yaml without cooperative: ran"
grep -q "trap: the kernel aborted" "$TMP/coop-plain.out" ||
  fail "grid_sync.yaml without cooperative: no trap: $(tail -c 400 "$TMP/coop-plain.out")"
# Fast-forwarded (GPURF_TIMED=none), a cooperative launch's CTAs run together: grid_sync
# prints PASS, its two cooperative launches fast-forwarded, the third traps as when timed.
GPURF_TIMED=none "$GPURF" exec --platform "$plat" -- "$BIN/grid_sync" >"$TMP/coop-ff.out" 2>"$TMP/coop-ff.err" ||
  fail "grid_sync fast-forwarded: exit $?: $(tail -c 400 "$TMP/coop-ff.err")"
grep -qx PASS "$TMP/coop-ff.out" || fail "grid_sync fast-forwarded: no PASS: $(tail -c 400 "$TMP/coop-ff.out")"
[ "$(grep -c 'fast-forwarded, [0-9]* warp instructions$' "$TMP/coop-ff.err")" -eq 2 ] &&
  grep -q "fast-forwarded, .*FAILED: .*trap: the kernel aborted" "$TMP/coop-ff.err" ||
  fail "grid_sync fast-forwarded: not 2 launches then the trap: $(grep '^gpurf: launch' "$TMP/coop-ff.err" | cut -c1-200)"
# Fast-forwarded, the CTAs the device holds run together, as when timed: spin_locks' consumer
# CTA, which waits for the CTA after it, ends (run one after another, it spun until the
# progress bound).
GPURF_TIMED=none "$GPURF" exec --platform "$plat" -- "$BIN/spin_locks" >"$TMP/spin-ff.out" 2>"$TMP/spin-ff.err" ||
  fail "spin_locks fast-forwarded: exit $?: $(tail -c 400 "$TMP/spin-ff.err")"
grep -qx PASS "$TMP/spin-ff.out" || fail "spin_locks fast-forwarded: no PASS: $(tail -c 400 "$TMP/spin-ff.out")"
# gpurf compare reads a program's results (summary.json: a row per kernel).
"$GPURF" compare "$TMP/$plat-gaussian" "$TMP/again-gaussian" --stats cycles >"$TMP/compare.out" 2>&1 ||
  fail "gpurf compare of two gaussian results: $(head -c 300 "$TMP/compare.out")"
grep -q "_Z4fan2PKfPfS1_ii" "$TMP/compare.out" || fail "gpurf compare: no row for fan2"

finish
