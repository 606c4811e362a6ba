#!/bin/sh
# tests/fuzz/field_sweep_sample.sh - a fixed, stratified sample of the field
# sweep (tests/fuzz/field-sweep.sh), judged against the known failures.
#
# The cases are tests/fuzz/field-sweep-sample.tsv: single-field corruptions
# of the corpus images made by xfs_db's fuzz command, spread over structures,
# fuzz verbs and CRC modes (how the list was drawn is at its top).  Each is
# judged the way the sweep judges it: xfs_repair -n on the corrupted image
# against `xfsrecon check`, and `xfsrecon repair`'s output against
# xfs_repair's (xfs_repair -n on both, paths kept).  Repair does not hold on
# every case yet, so tests/fuzz/field-sweep-known.txt lists the failures we
# know of (KEY CLASS a line).  The test fails on
#   - any failure not on that list (or of another class than listed),
#   - any crash or hang (never allowed on the list),
#   - a case that did not run;
# a listed case that now passes is printed, so that its line can go.
#
# Every case of the list changes its field: one that changes nothing (noop)
# means the image is not the one the list was drawn on.
#
# Environment: FIELD_SWEEP_JOBS (parallel cases, default 2); FIELD_SWEEP_CASES
# and FIELD_SWEEP_KNOWN_LIST, another list and its known failures, with
# XFS_DB and XFS_REPAIR the judges (field_sweep_current.sh runs the
# xfsprogs 6.13 sample so).
# Cost: about 0.3 s per case whose fuzz changes nothing, several seconds
# for the others (the repair under sanitizers dominates).
. "$top_srcdir/tests/lib.sh"

need_tool "${XFS_DB:-xfs_db}"
need_tool "${XFS_REPAIR:-xfs_repair}"
need_tool zstd
need_tool timeout

cases=${FIELD_SWEEP_CASES:-$top_srcdir/tests/fuzz/field-sweep-sample.tsv}
known=${FIELD_SWEEP_KNOWN_LIST:-$top_srcdir/tests/fuzz/field-sweep-known.txt}
[ -f "$cases" ] || fail "missing $cases"
[ -f "$known" ] || fail "missing $known"
if grep -E '^[^#].* (crash|hang)$' "$known"; then
	fail "crashes and hangs may not be listed as known failures"
fi

grep -v '^#' "$cases" > "$TMPD/cases.tsv"
n=$(wc -l < "$TMPD/cases.tsv")
grep -v '^#' "$known" > "$TMPD/known.txt"
FIELD_SWEEP_KNOWN=$TMPD/known.txt XFS_DB=${XFS_DB:-xfs_db} XFS_REPAIR=${XFS_REPAIR:-xfs_repair} \
	sh "$top_srcdir/tests/fuzz/field-sweep.sh" --cases "$TMPD/cases.tsv" --out "$TMPD/out" \
	-j "${FIELD_SWEEP_JOBS:-2}" > "$TMPD/log" 2>&1
rc=$?
cat "$TMPD/log"
[ $rc -le 1 ] || fail "field-sweep.sh exited $rc"
m=$TMPD/out/matrix.tsv
ran=$(awk 'END { print NR - 1 }' "$m")
[ "$ran" -eq "$n" ] || fail "$ran of the $n cases ran"

# Listed failures that no longer happen (the case passes, or changed nothing).
awk -F '\t' 'NR == FNR { split($0, k, " "); want[k[1]] = k[2]; next }
	FNR > 1 && ($1 in want) && $7 != "known" && $7 != "fail" {
		printf "now %s (listed as %s; the line can go): %s\n", $7, want[$1], $1
	}' "$TMPD/known.txt" "$m"

awk -F '\t' 'NR > 1 && $7 == "fail" { printf "FAIL %s: %s: %s\n", $1, $8, $17 }' "$m" > "$TMPD/bad"
if [ -s "$TMPD/bad" ]; then
	cat "$TMPD/bad"
	# what each tool said on those cases (file names as field-sweep.sh makes them)
	awk '{ print $2 }' "$TMPD/bad" | sed 's/:$//' | tr '/[]' '~()' |
		while read -r f; do cat "$TMPD/out/cases/$f.txt"; done
	fail "$(wc -l < "$TMPD/bad") case(s) fail and are not known failures"
fi
noop=$(awk -F '\t' 'NR > 1 && $7 == "noop"' "$m" | wc -l)
[ "$noop" -eq 0 ] || fail "$noop cases changed nothing: the image is not the one the list was drawn on"
echo "field sweep sample: $n cases, $(awk -F '\t' 'NR > 1 && $7 == "known"' "$m" | wc -l) known failures, no new one"
