#!/bin/sh
# tests/golden/repair_output.sh - what `repair` prints: its plan's summary
# first, one line per action, the result last; every write only with -v.
#
# A copy of v5-rmap-reflink with AG 3's inobt root zeroed (a repair of
# hundreds of writes) is repaired twice.  Without -v the first line is the
# plan's summary, no line is a write, the last line is the result, and the
# output is short; with -v there is one "write" line per change the XML
# report lists (xmllint counts its <change> elements), and each action's
# findings.  -q prints the result line alone.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"
need_tool xmllint
img=$(corpus_image v5-rmap-reflink)
"$XFS_DB" -x -c 'agi 3' -c 'addr root' -c 'type data' -c 'write fill 0' "$img" > /dev/null 2>&1 ||
	fail "xfs_db cannot damage the image"

"$XFSRECON" repair "$img" -o "$TMPD/a.img" --report "$TMPD/a.xml" > "$TMPD/a.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "repair exits $rc: $(tail -n 5 "$TMPD/a.out")"
head -n 1 "$TMPD/a.out" | grep -q '^plan: [0-9]* actions, [0-9]* writes' ||
	fail "the first line is not the plan's summary: $(head -n 1 "$TMPD/a.out")"
tail -n 1 "$TMPD/a.out" | grep -q '^repaired: ' || fail "the last line is not the result: $(tail -n 1 "$TMPD/a.out")"
! grep -q '^write ' "$TMPD/a.out" || fail "repair without -v prints writes"
changes=$(xmllint --xpath 'count(//*[local-name()="change"])' "$TMPD/a.xml")
[ "$changes" -gt 20 ] || fail "the report lists only $changes changes: the damage is too small to judge"
lines=$(wc -l < "$TMPD/a.out")
[ "$lines" -lt 40 ] || fail "repair without -v prints $lines lines for $changes changes"

"$XFSRECON" repair -v "$img" -o "$TMPD/b.img" > "$TMPD/b.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "repair -v exits $rc"
writes=$(grep -c '^write [0-9]* bytes at byte ' "$TMPD/b.out")
[ "$writes" -eq "$changes" ] || fail "repair -v prints $writes writes, the report lists $changes changes"
grep -q '^    answers F[0-9]' "$TMPD/b.out" || fail "repair -v names no finding an action answers"
cmp -s "$TMPD/a.img" "$TMPD/b.img" || fail "-v changed the output image"

"$XFSRECON" repair -q "$img" -o "$TMPD/c.img" > "$TMPD/c.out" 2>&1
[ "$(wc -l < "$TMPD/c.out")" -eq 1 ] || fail "repair -q prints $(wc -l < "$TMPD/c.out") lines"
echo "repair: $lines lines without -v, $writes writes with it (the report's $changes changes)"
