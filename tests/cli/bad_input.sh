# Bad input exits 2 with a message naming the file, line, key path, bad value and choices.
source "$(dirname "$0")/lib.sh" "$@"
FERMI="$SRC/configs/fermi.yaml"

# Malformed YAML: file and line (3) of the error.
printf 'sm:\n  warps: [1, 2\nbank: {count: 4}\n' >"$TMP/malformed.yaml"
expect_exit 2 "$TMP/malformed.yaml:3:" -- run --platform "$TMP/malformed.yaml"
expect_exit 2 "$TMP/malformed.yaml:3:" -- --dump-config --platform "$TMP/malformed.yaml"

# Unknown implementation: file:line, key path, the value, a suggestion, the registered names.
printf 'include: %s\nbank:\n  impl: slicd\n' "$FERMI" >"$TMP/impl.yaml"
expect_exit 2 "$TMP/impl.yaml:3" "bank.impl" "'slicd'" "did you mean 'sliced'" "sliced" \
  -- run --platform "$TMP/impl.yaml"
printf 'include: %s\nregister_mapping:\n  impl: nosuch\n' "$FERMI" >"$TMP/map.yaml"
expect_exit 2 "$TMP/map.yaml:3" "register_mapping.impl" "'nosuch'" "gpgpusim" "wid" "wshift" \
  "striped" -- run --platform "$TMP/map.yaml"
expect_exit 2 "command line" "scheduler.policy" "'lru'" "gto" "lrr" "oldest" \
  -- run -p scheduler.policy=lru

# Unknown key: did-you-mean and the valid keys.
printf 'include: %s\nbank:\n  entires: 64\n' "$FERMI" >"$TMP/key.yaml"
expect_exit 2 "$TMP/key.yaml:3" "bank.entires" "unknown key" "did you mean 'entries'" \
  -- run --platform "$TMP/key.yaml"
expect_exit 2 "command line" "arbiter.colector_ports" "did you mean 'collector_ports'" \
  -- run -p arbiter.colector_ports=2
expect_exit 2 "arbiter.collector_ports" "one 32 B write port per slice" "valid: 1" \
  -- run --platform "$SRC/configs/cmrc-wid.yaml" -p arbiter.collector_ports=2
printf 'include: %s\nbnak:\n  count: 4\n' "$FERMI" >"$TMP/slot.yaml"
expect_exit 2 "$TMP/slot.yaml:2" "bnak" "did you mean 'bank'" -- run --platform "$TMP/slot.yaml"

# Wrong type: the value and what was expected.
printf 'include: %s\nbank:\n  latency: fast\n' "$FERMI" >"$TMP/type.yaml"
expect_exit 2 "$TMP/type.yaml:3" "bank.latency" "'fast'" "integer" "[0, 1000]" \
  -- run --platform "$TMP/type.yaml"
expect_exit 2 "bank.ports" "'2rw'" "1rw" "1r1w" -- run -p bank.ports=2rw

# Zero count: out of range, with the range.
expect_exit 2 "command line" "bank.count" "'0'" "[1, 4096]" -- run -p bank.count=0

# Counts that do not divide over the sub-cores: 48 warps split over 3, 2 schedulers do not.
# The key the user changed (sm.subcores) is named at its place, the count with its file:line;
# the count is named when it is the one given last.
expect_exit 2 "command line: sm.subcores: 3 sub-cores do not divide scheduler.count = 2 (" \
  "gpgpusim-gtx480.yaml:" -- run -p sm.subcores=3
printf 'include: %s\nsm:\n  warps: 48\n  subcores: 3\n' "$FERMI" >"$TMP/sub3.yaml"
expect_exit 2 "$TMP/sub3.yaml:4: sm.subcores: 3 sub-cores do not divide scheduler.count = 2" \
  -- run --platform "$TMP/sub3.yaml"
expect_exit 2 "command line: scheduler.count: 3 does not divide over sm.subcores = 2 (" \
  -- run --platform "$SRC/configs/turing-subcore.yaml" -p sm.subcores=2 -p scheduler.count=3
# The key the user gave is the one named, with the other key's value and where it came from.
expect_exit 2 "command line: sm.subcores" "5 sub-cores do not divide sm.warps = 48 (" \
  -- run -p sm.subcores=5
# A platform file that sets nothing would run an all-default SM: refused, empty or a comment.
: >"$TMP/empty.yaml"
printf '# only a comment\n' >"$TMP/comment.yaml"
expect_exit 2 "empty.yaml: the platform file sets nothing" -- run --platform "$TMP/empty.yaml"
expect_exit 2 "comment.yaml: the platform file sets nothing" "include: fermi.yaml" \
  -- micro --platform "$TMP/comment.yaml"
# An empty list entry in --kernels names --kernels, not --workload.
expect_exit 2 "--kernels: ',,' has an empty kernel name" -- suite --kernels ,,
expect_exit 2 "--kernels" "'sgem'" "did you mean 'sgemm'" -- suite --kernels sgem

# Bad -p (no '='), unknown argument, missing platform file, missing option value.
expect_exit 2 "override 'bank.count'" "missing '='" -- run -p bank.count
expect_exit 2 "unknown argument '--bogus'" "usage:" -- run --bogus
expect_exit 2 "cannot open platform file" "$TMP/nosuch.yaml" -- run --platform "$TMP/nosuch.yaml"
expect_exit 2 "needs a value" -- run --platform
expect_exit 2 "no command given" --

# --describe of an unknown implementation: a suggestion when one is close.
expect_exit 2 "unknown implementation 'nosuch'" "gpurf --list" -- --describe nosuch
expect_exit 2 "unknown implementation 'slicd'" "did you mean 'sliced'" -- --describe slicd
expect_exit 2 "did you mean 'write_first'" -- --describe write_frist

# An energy event the platform's table does not price (docs/energy.md, "Unpriced events and
# the energy identity"): fermi's table has no RFC, so adding one fails at load time, naming
# the platform key, the unit, its events, the table and what to add to it.
expect_exit 2 "command line: rfc:" "unit sm.sub0.rfc" "'reads', 'writes', 'writebacks'" \
  "configs/energy/warped-compression.yaml" "energy.table" "add structures: {rfc:" \
  -- run --platform "$FERMI" -p rfc.entries=4 --workload scan --out "$TMP/unpriced"
[ -e "$TMP/unpriced" ] && fail "an unpriced RFC still ran and wrote $TMP/unpriced"
# A suite reports it as a failed job (exit 1) with the same message.
expect_exit 1 "command line: rfc:" "warped-compression.yaml" -- suite --platform "$FERMI" \
  -p rfc.entries=4 --kernels scan --out "$TMP/unpriced-suite" -j 1
# The same platform with a table that prices the RFC runs.
expect_exit 0 "verified" -- run --platform "$FERMI" -p rfc.entries=4 \
  -p energy.table="$SRC/configs/energy/gebhart.yaml" --workload scan

# Units that only work together: Malekeh's caching collectors need the arbiter that feeds
# their port D, and no RFC hiding results from the banks; both keys named, before any run.
MALEKEH="$SRC/configs/malekeh.yaml"
expect_exit 2 "arbiter.impl" "write_first" "collector.impl: ccu" "arbiter.impl: malekeh" -- \
  run --platform "$MALEKEH" -p arbiter.impl=write_first --workload sgemm
expect_exit 2 "rfc.impl" "collector.impl: ccu" -- \
  run --platform "$MALEKEH" -p rfc.entries=6 --workload sgemm

# Units that state what they need of their neighbours (Unit::need), checked at load: W-C's
# BDI-storing writeback without the decompressing crossbar (wc.yaml without its crossbar
# section), that crossbar without a BDI store, Malekeh's allocator without caching collectors.
sed '/^crossbar:/,$d' "$SRC/configs/wc.yaml" | sed "s|^include: warped-compression.yaml|include: $SRC/configs/warped-compression.yaml|" >"$TMP/wc-noxb.yaml"
expect_exit 2 "$TMP/wc-noxb.yaml:12: writeback.impl: 'warped_compression' stores registers" \
  "it needs crossbar.impl: warped_compression" "crossbar.impl = full (" -- \
  run --platform "$TMP/wc-noxb.yaml" --workload sgemm
expect_exit 2 "command line: crossbar.impl: 'warped_compression' rebuilds" \
  "it needs writeback.impl: warped_compression or arbiter.impl: warped_compression_mrf" \
  "writeback.impl = priority (" "arbiter.impl = write_first (" -- \
  run --platform "$SRC/configs/fermi.yaml" -p crossbar.impl=warped_compression --workload sgemm
expect_exit 2 "command line: allocator.impl: 'malekeh' allocates Malekeh's caching collectors" \
  "it needs collector.impl: ccu" "collector.impl = ocu (" -- \
  run --platform "$SRC/configs/turing-subcore.yaml" -p allocator.impl=malekeh --workload sgemm
expect_exit 2 "scheduler.impl: 'standard' (policy: malekeh)" "it needs collector.impl: ccu" -- \
  run --platform "$SRC/configs/turing-subcore.yaml" -p scheduler.policy=malekeh --workload sgemm

expect_exit 2 "command line: bank.impl: 'affine' stores affine registers" \
  "it needs writeback.impl other than warped_compression" \
  -- run --platform "$SRC/configs/wc.yaml" -p bank.impl=affine --workload daxpy_dot
# WIR's rename and reuse stages with a fixed forwarding read stage (a RAW check failure while
# running before), and WIR with CMRC's coalescing arbiter, which now counts WIR's verify-reads
# apart (a broken conservation identity before): refused, and verified.
expect_exit 2 "command line: collector.impl: 'fixed_stage' forwards results" \
  "writeback.impl = wir (" "use collector.impl: ocu with WIR" \
  -- run --platform "$SRC/configs/wir-r.yaml" -p collector.impl=fixed_stage --workload daxpy_dot
expect_exit 0 "verified" \
  -- run --platform "$SRC/configs/wir-r.yaml" -p arbiter.impl=coalescing --workload daxpy_dot

# The memory must hold what the launch places in it: checked at load with both keys, the
# launch file and the range needed (it failed at the first functional write, exit 1).
expect_exit 2 "command line: memory.size_bytes: the memory answers [0x0, 0x10)" \
  "memory.base_address = 0x0 (default), memory.size_bytes = 16 (command line)" \
  "the launch file's buffers of" "sgemm.yaml need [0x10000000," \
  "valid: a memory that holds [0x10000000, 0x1000c000)" \
  -- run --workload sgemm -p memory.size_bytes=16
# The windows count where a kernel keeps .local arrays (and not elsewhere: tests/cli/vp.sh).
expect_exit 2 "command line: memory.size_bytes: the memory answers [0x0, 0x20000000)" \
  "the timing-only windows of $SRC/tests/cli/data/runaway_local.yaml need [0xa0000000," \
  -- run --workload "$SRC/tests/cli/data/runaway_local.yaml" -p memory.size_bytes=0x20000000
expect_exit 2 "command line: memory.base_address: the memory answers [0x7ffffffffffffc00," \
  "sgemm.yaml need [0x10000000," -- run --workload sgemm -p memory.base_address=0x7ffffffffffffc00

# A request the next memory level could never serve fails at load naming both sides' keys
# (it was TLM_BURST_ERROR_RESPONSE at the first fill): an L1 line of 64 KiB against the L2's
# 128 B lines and 32 MSHRs, a segment of 4 KiB against an L1 of 128 B lines and 4 MSHRs.
expect_exit 2 "l1.line_bytes = 65536 (command line): a request of 65536 bytes" \
  "l2.line_bytes = 128 (" "x l2.mshrs = " "valid: requests of at most" \
  -- run --workload sgemm -p lsu.segment_bytes=4 -p l1.line_bytes=65536
expect_exit 2 "lsu.segment_bytes = 4096 (command line): a request of 4096 bytes" \
  "l1.line_bytes = 128 (" "l1.mshrs = 4 (command line) = 512 bytes" \
  -- run --workload sgemm -p lsu.segment_bytes=4096 -p l1.mshrs=4

# Resource bombs end at load in milliseconds (they ran out of memory after up to 21 s): every
# integer parameter has a bound, every unit's storage is claimed before it is allocated and
# summed against 1 GiB, a launch's buffers against 512 MiB.
expect_exit 2 "command line: l1.sets: '4294967295' is out of range" "[1, 1048576]" \
  -- run --workload sgemm -p l1.sets=4294967295
expect_exit 2 "command line: l1.ways: '4294967295' is out of range" "[1, 1024]" \
  -- run --workload sgemm -p l1.ways=4294967295
expect_exit 2 "command line: lsu.shared_banks: '4294967295' is out of range" "[1, 1024]" \
  -- run --workload sgemm -p lsu.shared_banks=4294967295
expect_exit 2 "command line: l1.sets: the platform's units would hold more than gpurf's limit of 1.0 GiB" \
  "sets x ways x 32 B of tags" -- run --workload sgemm -p l1.sets=1048576 -p l1.ways=1024
expect_exit 2 "command line: bank.entries: the platform's units would hold more than gpurf's limit of 1.0 GiB" \
  "entries x (128 B + a version tag per slice)" "docs/design.md" \
  -- run --workload sgemm -p sm.warps=4096 -p bank.entries=1048576 -p bank.count=4096
sed "s|ptx: ptx/sgemm.ptx|ptx: $SRC/workloads/ptx/sgemm.ptx|; s|^buffers:|buffers:\n  X: {type: u8, count: 1610612736, init: {constant: 0}}|" \
  "$SRC/workloads/sgemm.yaml" >"$TMP/bigbuf.yaml"
expect_exit 2 "$TMP/bigbuf.yaml:11: buffers.X.count" "over gpurf's limit of 536870912 bytes" \
  -- run --workload "$TMP/bigbuf.yaml"

# Nothing is simulated for bad input: no output directory is made.
expect_exit 2 "bank.count" -- run -p bank.count=0 --out "$TMP/never"
[ -e "$TMP/never" ] && fail "a bad platform still wrote $TMP/never"

# Folders where files belong, files where folders belong, folders that do not exist (issue 18):
# exit 2 naming the option or key.
mkdir -p "$TMP/adir"
expect_exit 2 "'$TMP/adir' is a folder, not a platform file" -- run --platform "$TMP/adir"
printf 'include: %s\nname: x\n' "$TMP/adir" >"$TMP/incdir.yaml"
expect_exit 2 "$TMP/incdir.yaml:1" "include" "is a folder" -- run --platform "$TMP/incdir.yaml"
sed "s|ptx: ptx/sgemm.ptx|ptx: $SRC/workloads/ptx/sgemm.ptx|; s|init: {constant: 0}|init: {file: $TMP/adir}|" \
  "$SRC/workloads/sgemm.yaml" >"$TMP/initdir.yaml"
expect_exit 2 "$TMP/initdir.yaml:13" "buffers.C.init.file" "it is a folder" \
  -- run --workload "$TMP/initdir.yaml"
touch "$TMP/afile"
expect_exit 2 "--out '$TMP/afile'" "cannot make a folder" -- run --workload sgemm --out "$TMP/afile"
expect_exit 2 "--vcd" "$TMP/none/x.vcd" "the folder must exist" -- run --workload sgemm --vcd "$TMP/none/x.vcd"
expect_exit 2 "--trace" "$TMP/none/x.json" "the folder must exist" \
  -- run --workload sgemm --trace "$TMP/none/x.json"

# Expression nesting is bounded (a deep one overflowed the parser's stack); the message clips
# the expression.
deep="$(python3 -c 'print("(" * 5000 + "n" + ")" * 5000)')"
sed "s|ptx: ptx/sgemm.ptx|ptx: $SRC/workloads/ptx/sgemm.ptx|; s|grid: \[\"n/16\"|grid: [\"$deep/16\"|" \
  "$SRC/workloads/sgemm.yaml" >"$TMP/deep.yaml"
expect_exit 2 "$TMP/deep.yaml:7" "grid.x" "nesting deeper than 256" "characters)" \
  -- run --workload "$TMP/deep.yaml"

# Shared memory beyond the platform's (static + dynamic over sm.shared_bytes) or beyond
# gpurf's 1 GiB per CTA: the launch file, the key, both parts and the limit (exit 2).
for b in 60000 1073741824; do
  sed "s|ptx: ptx/sgemm.ptx|ptx: $SRC/workloads/ptx/sgemm.ptx|; s|^shared_bytes: 0|shared_bytes: $b|" \
    "$SRC/workloads/sgemm.yaml" >"$TMP/shared$b.yaml"
done
expect_exit 2 "$TMP/shared60000.yaml:9: kernel 'sgemm': a CTA needs 62048 bytes of shared memory" \
  "2048 static" "60000 dynamic, \`shared_bytes\`" "sm.shared_bytes is 49152 bytes" \
  "give shared_bytes at most 47104" -- run --workload "$TMP/shared60000.yaml"
expect_exit 2 "$TMP/shared1073741824.yaml:9" "1073741824 dynamic" \
  "gpurf's limit per CTA is 1073741824 bytes" "give shared_bytes at most 1073739776" \
  -- run --workload "$TMP/shared1073741824.yaml"
expect_exit 2 "$SRC/workloads/sgemm.yaml:9: kernel 'sgemm': a CTA needs 2048 bytes" \
  "sm.shared_bytes is 1000 bytes: the static part alone does not fit, or raise sm.shared_bytes" \
  -- run --workload "$SRC/workloads/sgemm.yaml" -p sm.shared_bytes=1000

# Resource bombs stop with a named limit: nested YAML aliases (10^7 nodes here), a register
# range beyond the 16-bit register ids.
python3 - "$TMP/bomb.yaml" <<'PY'
import sys
lines = ['a0: &a0 [' + ', '.join(['"x"'] * 10) + ']']
for i in range(1, 8):
    lines.append(f'a{i}: &a{i} [' + ', '.join([f'*a{i-1}'] * 10) + ']')
open(sys.argv[1], 'w').write('\n'.join(lines) + '\n')
PY
expect_exit 2 "$TMP/bomb.yaml" "more than 1000000 YAML nodes" -- run --platform "$TMP/bomb.yaml"
sed 's/\.reg \.b32 \t%r<[0-9]*>;/.reg .b32 \t%r<1000000>;/' "$SRC/workloads/ptx/sgemm.ptx" >"$TMP/regs.ptx"
sed "s|ptx: ptx/sgemm.ptx|ptx: $TMP/regs.ptx|" "$SRC/workloads/sgemm.yaml" >"$TMP/regs.yaml"
expect_exit 2 "$TMP/regs.ptx:26" "register range <1000000>" "limit of 65535" \
  -- run --workload "$TMP/regs.yaml"

# Predicates are held to the rules registers are: a data register where the ISA wants a .pred
# (a setp destination, selp's selector) is refused, not read as a predicate nothing wrote.
sed 's/setp.lt.s32 \t%p1, %r20, 1;/setp.lt.s32 \t%r1, %r20, 1;/' "$SRC/workloads/ptx/sgemm.ptx" >"$TMP/setp.ptx"
sed "s|ptx: ptx/sgemm.ptx|ptx: $TMP/setp.ptx|" "$SRC/workloads/sgemm.yaml" >"$TMP/setp.yaml"
expect_exit 2 "$TMP/setp.ptx:45" "destination of 'setp.lt.s32' must be a .pred register" "'%r1' is .b32" \
  -- run --workload "$TMP/setp.yaml"
sed 's/selp.u16 \t%rs4, 1, 0, %p12;/selp.u16 \t%rs4, 1, 0, %r30;/' "$SRC/workloads/ptx/bfs.ptx" >"$TMP/selp.ptx"
sed "s|ptx: ptx/bfs.ptx|ptx: $TMP/selp.ptx|; s|file: data/|file: $SRC/workloads/data/|" "$SRC/workloads/bfs.yaml" >"$TMP/selp.yaml"
expect_exit 2 "$TMP/selp.ptx:50" "selector c of 'selp.u16' must be a .pred register" \
  -- run --workload "$TMP/selp.yaml"

# A special register is read-only: named as such, with the line.
sed 's/mov.u32 \t%r35, %tid.x;/mov.u32 \t%tid.y, %r33;/' "$SRC/workloads/ptx/sgemm.ptx" >"$TMP/tid.ptx"
sed "s|ptx: ptx/sgemm.ptx|ptx: $TMP/tid.ptx|" "$SRC/workloads/sgemm.yaml" >"$TMP/tid.yaml"
expect_exit 2 "$TMP/tid.ptx:43" "%tid.y is a read-only special register" -- run --workload "$TMP/tid.yaml"

# Calls and local memory checked at load (exit 2, PTX file:line): a call with the wrong number
# or sizes of arguments (found while running before), .local arrays over the 16 KiB per thread
# of the local window (the CTA and warp, at run time). A recursion without end runs until it
# overflows the stack (CUDA's default 1 KiB per thread): a run-time error (exit 1) naming the
# function, the call depth and the frames.
call_case() { # NAME PYTHON-REPLACEMENT: a copy of debug_call with its PTX edited
  mkdir -p "$TMP/$1"
  cp "$SRC"/tests/cli/data/debug_call.yaml "$SRC"/tests/cli/data/debug_call_*.bin "$TMP/$1/"
  python3 - "$SRC/tests/cli/data/debug_call.ptx" "$TMP/$1/debug_call.ptx" "$2" <<'PY'
import sys
s = open(sys.argv[1]).read()
old, new = eval(sys.argv[3])
assert old in s, old
open(sys.argv[2], 'w').write(s.replace(old, new, 1))
PY
}
call_case arity '("param0, \n\tparam1\n\t);", "param0\n\t);")'
expect_exit 2 "$TMP/arity/debug_call.ptx:198: call of '_Z3mixii' (declared at" \
  "debug_call.ptx:15) with 1 arguments; it takes 2" -- run --workload "$TMP/arity/debug_call.yaml"
call_case size '(".param .b32 param1;", ".param .b64 param1;")'
expect_exit 2 "$TMP/size/debug_call.ptx:198: call of '_Z3mixii'" \
  "passes 8 bytes as its parameter 2 ('_Z3mixii_param_1'), which has 4 bytes" \
  -- run --workload "$TMP/size/debug_call.yaml"
call_case recursion '("\tst.param.b32 \t[func_retval0+0], %r10;", "\t{\n\t.param .b32 p0;\n\tst.param.b32 [p0+0], %r10;\n\t.param .b32 p1;\n\tst.param.b32 [p1+0], %r10;\n\t.param .b32 rv;\n\tcall.uni (rv), _Z3mixii, (p0, p1);\n\tld.param.b32 %r10, [rv+0];\n\t}\n\tst.param.b32 \t[func_retval0+0], %r10;")'
expect_exit 1 "stack overflow: the call of '_Z3mixii' at call depth" "(frames: debug_call, _Z3mixii x" \
  "over the limit of 1024 bytes (the stack per thread: cudaLimitStackSize" \
  -- run --workload "$TMP/recursion/debug_call.yaml"
call_case local '("$L__func_begin1:", ".local .align 4 .b8 big[600000];\n$L__func_begin1:")'
expect_exit 2 "$TMP/local/debug_call.ptx:145: .local 'big' of 'debug_call' (600000 bytes)" \
  "needs 600000 bytes of local memory per thread (call path debug_call)" \
  "over the limit of 524288 bytes per thread (CUDA's" -- run --workload "$TMP/local/debug_call.yaml"
# Above gpurf's 16 KiB slice (nvcc -G keeps whole objects on the stack) and within CUDA's
# limit: the slice grows to the kernel's need and the run verifies.
call_case local_big '("$L__func_begin1:", ".local .align 4 .b8 big[20000];\n$L__func_begin1:")'
expect_exit 0 "verified" -- run --workload "$TMP/local_big/debug_call.yaml"
# ... unless the SMs' warp slots cannot all have that slice of the 512 MiB window.
expect_exit 2 "needs 20000 bytes of local memory per thread" "do not fit the 512 MiB local window" \
  -- run --workload "$TMP/local_big/debug_call.yaml" -p gpu.sm_count=64

# Text without .version is not PTX (the ISA: every module begins with it).
sed '/^\.version/d' "$SRC/workloads/ptx/sgemm.ptx" >"$TMP/nover.ptx"
sed "s|ptx: ptx/sgemm.ptx|ptx: $TMP/nover.ptx|" "$SRC/workloads/sgemm.yaml" >"$TMP/nover.yaml"
expect_exit 2 "$TMP/nover.ptx:1" "no .version directive" -- run --workload "$TMP/nover.yaml"

# Units that only work together are checked together at load, naming both keys: a register
# form written by one and read by another, a pipe no collector serves.
CMRC="$SRC/configs/cmrc-wid.yaml"
expect_exit 2 "$CMRC" "writeback.impl" "CMRC's narrow form" "collector.impl 'ocu'" \
  "needs collector.impl: cmrc" -- run --platform "$CMRC" -p collector.impl=ocu
expect_exit 2 "$CMRC" "collector.impl" "writeback.impl 'priority'" "needs writeback.impl: cmrc" \
  -- run --platform "$CMRC" -p writeback.impl=priority
expect_exit 2 "writeback.impl" "BDI form" "arbiter.impl 'write_first'" \
  "needs arbiter.impl: warped_compression" \
  -- run --platform "$SRC/configs/wc.yaml" -p arbiter.impl=write_first
expect_exit 2 "collector.sets.mem" "no collector serves the mem pipe" \
  -- run --platform "$SRC/configs/wir.yaml" -p collector.sets.mem=0

# A platform named by a typo, an option misspelt: did-you-mean.
expect_exit 2 "no platform file or platform named 'fermy'" "did you mean 'fermi'?" -- run \
  --platform fermy
expect_exit 2 "unknown argument '--platfrom'" "did you mean '--platform'?" -- run --platfrom fermi
expect_exit 2 "did you mean 'gebhart'?" -- micro --platform gebhar
# A spin loop no thread can leave stops in seconds (not at sm.max_cycles, hours later) with
# a message and partial statistics.
expect_exit 1 "the kernel can never end" "spin.ptx:22" "a spin loop" \
  -- run --workload "$SRC/tests/cli/data/spin.yaml" --out "$TMP/spin"
[ -s "$TMP/spin/stats.json" ] || fail "the stopped spin loop wrote no statistics"
# A sum loop whose counter increment is gone: its sum changes, the registers its branch depends
# on do not: stopped in seconds. The same loop keeping its sum in local memory (a debug build)
# changes memory every iteration: the progress bound stops it, naming the lines.
expect_exit 1 "the kernel can never end" "runaway.ptx:33" "counter never changes" \
  -- run --workload "$SRC/tests/cli/data/runaway.yaml" --out "$TMP/runaway"
expect_exit 1 "frontend.progress_bound = 200000 per SM" "runaway.ptx line 63" \
  "-p frontend.progress_bound=N" \
  -- run --workload "$SRC/tests/cli/data/runaway_local.yaml" -p frontend.progress_bound=200000
# A loop bumping a shared counter for ever: the progress bound stops it, in the timed run and in
# the reuse-profile pass Malekeh runs before it (which once ran, unbounded, for ever).
for p in fermi malekeh; do
  expect_exit 1 "frontend.progress_bound = 200000 per SM" "runaway.ptx line 8" \
    -- run --platform $p --workload "$SRC/tests/cli/data/runaway_shared.yaml" \
    -p frontend.progress_bound=200000
done
expect_exit 1 "the profile run of CTA 0" -- run --platform malekeh \
  --workload "$SRC/tests/cli/data/runaway_shared.yaml" -p frontend.progress_bound=200000
expect_exit 2 "frontend.progress_bound" "'-1'" -- run --workload sgemm -p frontend.progress_bound=-1

# A .ptx file with kernels gpurf cannot load (an fp4 conversion; a call of a function using
# alloca) loads its other kernel; each refused one names its line and why when launched.
expect_exit 0 "verified" -- run --workload "$SRC/tests/cli/data/one_bad_kernel.yaml" \
  --out "$TMP/one_bad"
expect_exit 2 "one_bad_kernel_fp4.yaml:4" "kernel 'to_fp4' cannot be loaded" \
  "one_bad_kernel.ptx:23: unsupported modifier '.e2m1x2' in 'cvt.rn.satfinite.e2m1x2.f32'" "(entries: scale)" \
  -- run --workload "$SRC/tests/cli/data/one_bad_kernel_fp4.yaml"
expect_exit 2 "kernel 'uses_dot4' cannot be loaded" "one_bad_kernel.ptx:37: calls 'dot4'" \
  "one_bad_kernel.ptx:13: unsupported PTX instruction 'alloca.u64'" \
  -- run --workload "$SRC/tests/cli/data/one_bad_kernel_dot4.yaml"

# --max-cycles N is sm.max_cycles (checked as the parameter); -jN is -j N.
expect_exit 1 "max_cycles reached at cycle 1000" -- run --workload sgemm --max-cycles 1000
expect_exit 2 "sm.max_cycles" "'x'" "integer" -- run --workload sgemm --max-cycles x
expect_exit 2 "option -j" "'x'" "[1, 1048576]" -- suite -jx
# gpurf exec (docs/programs.md): checked before the program runs.
expect_exit 2 "gpurf exec: no program" "-- PROGRAM ARGS" -- exec --platform fermi
expect_exit 2 "--platform" "'nosuch'" "fermi" -- exec --platform nosuch -- /bin/true
expect_exit 2 "sm.bogus" "unknown key" -- exec -p sm.bogus=3 -- /bin/true
expect_exit 2 "unknown option '--bogus'" -- exec --bogus -- /bin/true
expect_exit 2 "no program '/nonexistent/prog'" -- exec -- /nonexistent/prog

finish
