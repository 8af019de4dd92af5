# The timing checker and identities hold on parameter choices no shipped platform makes
# (issue width, sub-cores, port structures, pipe counts, arbitration order, allocation,
# RFC options, predicates in the banks, multi-line L1 requests): scan and sgemm verified.
source "$(dirname "$0")/lib.sh" "$@"

check() {
  local platform=$1
  shift
  "$GPURF" suite --platform "$SRC/configs/$platform.yaml" --kernels scan,sgemm "$@" \
    --force --out "$TMP/out" >"$TMP/stdout" 2>"$TMP/err"
  local rc=$?
  [ $rc -eq 0 ] || fail "$platform $*: exit $rc: $(tail -c 800 "$TMP/stdout") $(tail -c 400 "$TMP/err")"
  grep -q "2 passed, 0 failed" "$TMP/stdout" || fail "$platform $*: $(tail -c 800 "$TMP/stdout")"
}

check fermi -p scheduler.issue_width=2
check fermi -p sm.subcores=2 -p scheduler.count=2 -p collector.count=4 -p bank.count=4
check fermi -p bank.ports=1r1w -p arbiter.collector_ports=2
check fermi -p exec.sp.count=2 -p exec.sp.ii=3
check fermi -p arbiter.order=head_only -p allocator.impl=random
check fermi -p allocator.impl=first_free -p l1.line_bytes=64
check cmrc-wshift -p bank.ports=1r1w -p arbiter.order=head_only
check gebhart-rfc-twolevel -p rfc.allocate_sources=true -p scheduler.suspend=always
check gebhart-rfc-twolevel -p rfc.bypass_unread=true -p rfc.evict_first=true -p rfc.replacement=lru
check gebhart-rfc -p rfc.read_ports=1 -p rfc.tag_latency=0 -p rfc.hit_latency=0 -p sm.predicates=banks
# A VSB candidate whose write had not landed was verified against the register's previous
# value (equal by chance) and shared: the renaming check failed on sobel with 64 VSB entries.
"$GPURF" run --platform "$SRC/configs/wir-rlpv.yaml" -p allocator.vsb_entries=64 --workload sobel \
  >"$TMP/stdout" 2>&1 || fail "wir-rlpv vsb_entries=64 sobel: $(tail -c 600 "$TMP/stdout")"
grep -q "verified" "$TMP/stdout" || fail "wir-rlpv vsb_entries=64 sobel: not verified"

finish
