#!/bin/sh
# tests/golden/check_clean.sh - every corpus image is clean, and says so.
#
# For each committed image: `xfs_repair -n` exits 0 (the image really is
# clean: a corpus image xfs_repair flags fails this test), and
# `xfsrecon check` exits 0 and names no finding.  The main image is also
# checked straight from its .zst, as the top-level README does.
#
# Only reads the committed images: no root needed.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_REPAIR"

nfail=0
report="$TMPD/report"
: > "$report"

# check_one LABEL IMAGE: xfsrecon check must exit 0 with no finding
check_one() {
	run_limited 600 "$XFSRECON" check "$2" > "$TMPD/check.out" 2> "$TMPD/check.err"
	rc=$?
	ids=$(report_ids "$TMPD/check.out" | tr '\n' ' ')
	if [ $rc -ge 124 ]; then
		echo "$1: xfsrecon check crashed or hung (exit status $rc)" >> "$report"
		sed -n '1,10p' "$TMPD/check.err" >> "$report"
		nfail=$((nfail + 1))
	elif [ $rc -ne 0 ] || [ -n "$ids" ]; then
		echo "$1: xfsrecon check exit status $rc (expected 0), findings: ${ids:-none}" >> "$report"
		sed -n '1,20p' "$TMPD/check.out" "$TMPD/check.err" >> "$report"
		nfail=$((nfail + 1))
	fi
}

n=0
for name in $(corpus_names); do
	n=$((n + 1))
	img=$(corpus_image "$name")
	"$XFS_REPAIR" -n "$img" > "$TMPD/repair.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "$name: xfs_repair -n exit status $rc: the corpus image is not clean" >> "$report"
		grep -v -e '^Phase' -e '^        - ' "$TMPD/repair.out" | sed -n '1,20p' >> "$report"
		nfail=$((nfail + 1))
	fi
	check_one "$name" "$img"
	rm -f "$img"
done
[ $n -gt 0 ] || fail "no corpus image found"

check_one "v5-rmap-reflink.img.zst" "$top_srcdir/corpus/images/v5-rmap-reflink.img.zst"

echo "checked $n images, $nfail failures"
if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
