#!/bin/sh
# tests/fuzz/field_sweep_current.sh - a fixed sample of the field sweep on a
# filesystem of today (corpus/current/v6-parent: mkfs.xfs 6.13's defaults
# with parent pointers), judged by xfsprogs 6.13 (tests/tools/
# xfsprogs-current.sh): check must see what its xfs_repair -n sees, and
# repair's output must be as clean for it as its own xfs_repair's and keep
# as many paths.  The cases are tests/fuzz/field-sweep-sample-current.tsv
# (how they were drawn is at its top); no known failure is allowed.
# Skipped where xfsprogs 6.13 cannot be had.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool timeout
cur=$(sh "$top_srcdir/tests/tools/xfsprogs-current.sh" 2> "$TMPD/cur.err") &&
	[ -x "$cur/xfs_db" ] || skip "xfsprogs 6.13 cannot be had: $(tail -1 "$TMPD/cur.err")"
cases=$top_srcdir/tests/fuzz/field-sweep-sample-current.tsv
[ -f "$cases" ] || fail "missing $cases"
grep -v '^#' "$cases" > "$TMPD/cases.tsv"
n=$(wc -l < "$TMPD/cases.tsv")
XFS_DB=$cur/xfs_db XFS_REPAIR=$cur/xfs_repair \
	sh "$top_srcdir/tests/fuzz/field-sweep.sh" --cases "$TMPD/cases.tsv" --out "$TMPD/out" \
	-j "${FIELD_SWEEP_JOBS:-2}" > "$TMPD/log" 2>&1
rc=$?
cat "$TMPD/log"
[ $rc -le 1 ] || fail "field-sweep.sh exited $rc"
m=$TMPD/out/matrix.tsv
ran=$(awk 'END { print NR - 1 }' "$m")
[ "$ran" -eq "$n" ] || fail "$ran of the $n cases ran"
awk -F '\t' 'NR > 1 && $7 == "fail" { printf "FAIL %s: %s: %s\n", $1, $8, $17 }' "$m" > "$TMPD/bad"
if [ -s "$TMPD/bad" ]; then
	cat "$TMPD/bad"
	awk '{ print $2 }' "$TMPD/bad" | sed 's/:$//' | tr '/[]' '~()' |
		while read -r f; do cat "$TMPD/out/cases/$f.txt"; done
	fail "$(wc -l < "$TMPD/bad") case(s) fail"
fi
noop=$(awk -F '\t' 'NR > 1 && $7 == "noop"' "$m" | wc -l)
[ "$noop" -eq 0 ] || fail "$noop cases changed nothing: the image is not the one the list was drawn on"
echo "field sweep on v6-parent: $n cases, judged by xfsprogs 6.13, none fails"
