#!/bin/sh
# tests/golden/progress.sh - --progress reports the long steps that had no
# progress: the input's SHA-256 (check --xml), the writing of OUT, which
# hashes the input and OUT in the same read (repair), and extract.
#
# Lines go to standard error, one per step, so a script can follow them even
# when it is no terminal: the hash says each tenth done and ends at 100%;
# extract says every 1,000 entries.  Standard output is the same as without
# --progress.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
img=$(corpus_image v5-files)

"$XFSRECON" check --progress --xml "$TMPD/r.xml" "$img" > "$TMPD/out" 2> "$TMPD/err" ||
	fail "check --progress exits $?"
n=$(grep -c '^xfsrecon: hashing the input: [0-9]*% ' "$TMPD/err")
[ "$n" -eq 10 ] || fail "check --xml --progress printed $n hashing lines, not 10: $(head -n 3 "$TMPD/err")"
grep -q '^xfsrecon: hashing the input: 100% ' "$TMPD/err" || fail "the hash never reaches 100%"
"$XFSRECON" check --xml "$TMPD/r2.xml" "$img" > "$TMPD/out2" 2> /dev/null
cmp -s "$TMPD/out" "$TMPD/out2" || fail "--progress changed check's standard output"

"$XFSRECON" repair --progress --report "$TMPD/rep.xml" "$img" -o "$TMPD/o.img" > /dev/null 2> "$TMPD/rerr"
rc=$?
[ $rc -eq 0 ] || fail "repair of the clean image exits $rc"
grep -q '^xfsrecon: writing output: 100%' "$TMPD/rerr" ||
	fail "repair --progress does not report writing and hashing OUT to the end"
[ "$(grep -c '^xfsrecon: writing output: [0-9]*%' "$TMPD/rerr")" -ge 5 ] ||
	fail "repair --progress reports the output in fewer than 5 steps: $(grep writing "$TMPD/rerr" | head -n 3)"
grep -q 'sha256="[0-9a-f]\{64\}"' "$TMPD/rep.xml" || fail "repair --report has no digest"
cp "$TMPD/o.img" "$TMPD/o-report.img"
rm -f "$TMPD/o.img"
# Without --report nothing is hashed: the progress still ends at 100 %, with the same bytes.
"$XFSRECON" repair --progress "$img" -o "$TMPD/o.img" > /dev/null 2> "$TMPD/rerr2" ||
	fail "repair without --report exits $?"
grep -q '^xfsrecon: writing output: 100%' "$TMPD/rerr2" ||
	fail "repair --progress without --report stops short of 100%: $(tail -n 2 "$TMPD/rerr2")"
cmp -s "$TMPD/o.img" "$TMPD/o-report.img" || fail "repair without --report wrote other bytes"
rm -f "$TMPD/o.img" "$TMPD/o-report.img"

mkdir "$TMPD/x"
# /big: 30,000 names (hard links to ten files; the xattr-heavy parts of the image may not fit
# the host's attribute space, which is not what this test is about)
"$XFSRECON" extract --progress -C "$TMPD/x" "$img" /big > "$TMPD/xout" 2> "$TMPD/xerr" ||
	fail "extract --progress exits $?: $(grep -v '^xfsrecon: extracted' "$TMPD/xerr" | head -n 3)"
entries=$(find "$TMPD/x" -mindepth 1 | wc -l)
lines=$(grep -c '^xfsrecon: extracted [0-9]* files, [0-9]* directories' "$TMPD/xerr")
[ "$entries" -ge 2000 ] || fail "only $entries entries extracted"
[ "$lines" -ge $((entries / 1000 - 1)) ] || fail "extract --progress printed $lines lines for $entries entries"
echo "hash: $n lines; extract: $lines lines for $entries entries"
