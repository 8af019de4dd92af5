# gpurf --list names every slot with at least one implementation; --describe prints an
# implementation's parameters with their defaults.
source "$(dirname "$0")/lib.sh" "$@"

"$GPURF" --list >"$TMP/list" 2>"$TMP/err" || fail "--list exited $?: $(cat "$TMP/err")"
for slot in scheduler allocator collector arbiter bank crossbar exec writeback lsu l1 memory \
  register_mapping warp_policy; do
  # The slot line, then at least one indented implementation line right after it.
  if ! awk -v s="$slot" '
      found && /^  [a-z_0-9]+ / { ok = 1; exit }
      found { exit }
      index($0, s ": ") == 1 { found = 1 }
      END { exit ok ? 0 : 1 }' "$TMP/list"; then
    fail "--list: no slot '$slot' with an implementation"
  fi
done
for impl in standard round_robin ocu write_first sliced full pipes priority coalescing set_assoc \
  simple gpgpusim wid wshift striped gto lrr oldest; do
  grep -qE "^  $impl " "$TMP/list" || fail "--list: implementation '$impl' missing"
done

"$GPURF" --describe sliced >"$TMP/sliced" 2>"$TMP/err" || fail "--describe sliced exited $?"
grep -q "^bank impl: sliced" "$TMP/sliced" || fail "--describe sliced: no header: $(cat "$TMP/sliced")"
check_param() { # file name type default
  grep -qE "^  $2 +$3 +default $4 " "$1" || fail "$1: no parameter '$2' ($3, default $4): $(cat "$1")"
}
check_param "$TMP/sliced" entries uint 256
check_param "$TMP/sliced" slices uint 1
check_param "$TMP/sliced" latency uint 1
check_param "$TMP/sliced" ports choice 1rw
grep -q "1rw, 1r1w" "$TMP/sliced" || fail "--describe sliced: the port choices are missing"
# Its statistics, each with unit, description and energy role, and its sockets (issue 34).
grep -qE "^  slice_reads +slices +slices activated by reads" "$TMP/sliced" ||
  fail "--describe sliced: no statistic slice_reads: $(cat "$TMP/sliced")"
grep -qE "^ +energy priced: bank_read_pj_per_16B" "$TMP/sliced" ||
  fail "--describe sliced: slice_reads' energy role missing: $(cat "$TMP/sliced")"
grep -qE "^ +energy not_event: accesses" "$TMP/sliced" ||
  fail "--describe sliced: reads' energy role missing"
grep -q "^sockets:" "$TMP/sliced" && grep -qE "^  in +tlm_target_socket" "$TMP/sliced" ||
  fail "--describe sliced: sockets missing: $(cat "$TMP/sliced")"
# A group beside the unit's own: W-C's compressors.
"$GPURF" --describe warped_compression_mrf >"$TMP/wc" 2>"$TMP/err" ||
  fail "--describe warped_compression_mrf exited $?"
grep -q "^statistics of the group beside it, compressor:" "$TMP/wc" ||
  fail "--describe warped_compression_mrf: the compressor group is missing: $(cat "$TMP/wc")"
grep -qE "^ +energy structure: W-C: a compressor activation" "$TMP/wc" ||
  fail "--describe warped_compression_mrf: compressions' role missing"

"$GPURF" --describe pipes >"$TMP/pipes" 2>"$TMP/err" || fail "--describe pipes exited $?"
check_param "$TMP/pipes" sp.count uint 1
check_param "$TMP/pipes" sfu.latency uint 20

"$GPURF" --describe write_first >"$TMP/arb" 2>"$TMP/err" || fail "--describe write_first exited $?"
check_param "$TMP/arb" collector_ports uint 1

# --version; a platform named by its name under configs/ runs that platform.
"$GPURF" --version | grep -qE '^gpurf [0-9]+\.[0-9]+\.[0-9]+ \(SystemC ' || fail "--version"
"$GPURF" run --platform gebhart --workload nn --quiet --out "$TMP/named" >/dev/null 2>&1 ||
  fail "--platform gebhart did not run"
grep -q '"platform": "gebhart"' "$TMP/named/result.json" || fail "--platform gebhart ran another platform"

# --list platforms: every platform file with its description.
"$GPURF" --list platforms >"$TMP/plat" 2>&1 || fail "--list platforms failed"
[ "$(wc -l <"$TMP/plat")" -eq "$(ls "$SRC"/configs/*.yaml | wc -l)" ] || fail "--list platforms count"
grep -q "^fermi  *." "$TMP/plat" || fail "--list platforms lacks fermi: $(head -3 "$TMP/plat")"
finish
