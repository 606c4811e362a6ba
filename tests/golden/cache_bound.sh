#!/bin/sh
# tests/golden/cache_bound.sh - the block cache's bound (--cache-mb) changes
# memory, never a result.
#
# check prints the same findings with a 4 MiB cache as with a 1 GiB one, on
# a clean image and on a copy of v5-rmap-reflink with AG 3's inobt root and
# AG 1's bnobt root zeroed; repair of that copy writes the same bytes with
# either bound, and xfs_repair -n finds that output clean.  A bound below
# 4 MiB is a usage error (exit 16).
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_REPAIR"

"$XFSRECON" check --cache-mb 3 "$(corpus_image v5-normap)" > /dev/null 2> "$TMPD/err"
rc=$?
[ $rc -eq 16 ] || fail "--cache-mb 3 exits $rc, expected 16"
grep -q -- '--cache-mb needs' "$TMPD/err" || fail "--cache-mb 3: $(cat "$TMPD/err")"

clean=$(corpus_image v5-files)
"$XFSRECON" check --cache-mb 4 "$clean" > "$TMPD/c4" 2>&1
"$XFSRECON" check --cache-mb 1024 "$clean" > "$TMPD/c1024" 2>&1
cmp -s "$TMPD/c4" "$TMPD/c1024" || fail "check of a clean image differs with a 4 MiB cache"

img=$(corpus_image v5-rmap-reflink)
"$XFS_DB" -x -c 'agi 3' -c 'addr root' -c 'type data' -c 'write fill 0' \
	-c 'agf 1' -c 'addr bnoroot' -c 'type data' -c 'write fill 0' "$img" > /dev/null 2>&1 ||
	fail "xfs_db cannot damage the image"
"$XFSRECON" check --cache-mb 4 "$img" > "$TMPD/d4" 2>&1
"$XFSRECON" check --cache-mb 1024 "$img" > "$TMPD/d1024" 2>&1
cmp -s "$TMPD/d4" "$TMPD/d1024" || fail "check of a damaged image differs with a 4 MiB cache"
errors=$(grep -c '^error ' "$TMPD/d4")
[ "$errors" -gt 0 ] || fail "the damaged image shows no error: $(tail -n 3 "$TMPD/d4")"

"$XFSRECON" repair --cache-mb 4 --no-hash "$img" -o "$TMPD/o4.img" > "$TMPD/r4" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "repair --cache-mb 4 exits $rc: $(tail -n 3 "$TMPD/r4")"
"$XFSRECON" repair --no-hash "$img" -o "$TMPD/o.img" > "$TMPD/r" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "repair exits $rc: $(tail -n 3 "$TMPD/r")"
cmp -s "$TMPD/o4.img" "$TMPD/o.img" || fail "repair wrote other bytes with a 4 MiB cache"
"$XFS_REPAIR" -n "$TMPD/o.img" > "$TMPD/xr" 2>&1 || fail "xfs_repair -n finds the output damaged: $(head -n 5 "$TMPD/xr")"
echo "cache bound: same findings ($errors errors) and the same output with 4 MiB and the default"
