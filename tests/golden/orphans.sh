#!/bin/sh
# tests/golden/orphans.sh - a root-less image: check says the tree was not
# walked, and `ls --orphans` / `extract --orphans` show every inode anyway.
#
# On a copy of v5-files whose root inode's mode is zeroed (xfs_db -x):
#   - check reports nsRootNotDir and nsWalkSkipped, with the count of
#     allocated inodes the superblock gives (icount - ifree, less the root
#     and the two realtime inodes);
#   - `ls -R --orphans`, each "orphan:INODE" replaced by the path xfs_db
#     ncheck gives INODE on the clean image (and our escapes decoded), holds
#     every path xfs_db ncheck prints there, and as many lines as `ls -R` of
#     the clean image;
#   - `extract --orphans` writes each top as DIR/INODE.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool perl
LC_ALL=C
export LC_ALL
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"

img=$(corpus_image v5-files)
cp "$img" "$TMPD/nr.img"
root=$("$XFS_DB" -r -c 'sb 0' -c 'p rootino' "$img" | sed -n 's/^rootino = //p')
"$XFS_DB" -x -c "inode $root" -c 'write core.mode 0' "$TMPD/nr.img" > /dev/null 2>&1 ||
	fail "xfs_db write failed"

"$XFSRECON" check "$TMPD/nr.img" > "$TMPD/check" 2>&1
grep -q '\[nsRootNotDir\]' "$TMPD/check" || fail "check does not report nsRootNotDir"
n=$(sed -n 's/.*\[nsWalkSkipped\].* and the \([0-9]*\) allocated inodes.*/\1/p' "$TMPD/check")
icount=$("$XFS_DB" -r -c 'sb 0' -c 'p icount' "$img" | sed -n 's/^icount = //p')
ifree=$("$XFS_DB" -r -c 'sb 0' -c 'p ifree' "$img" | sed -n 's/^ifree = //p')
[ "$n" = "$((icount - ifree - 3))" ] ||
	fail "nsWalkSkipped counts '$n' inodes; the superblock gives $((icount - ifree - 3))"

"$XFSRECON" ls -R --orphans "$TMPD/nr.img" > "$TMPD/orph" 2> "$TMPD/orph.err" ||
	fail "ls --orphans exited $?: $(head -3 "$TMPD/orph.err")"
"$XFSRECON" ls -R "$img" > "$TMPD/clean" 2> /dev/null || fail "ls -R of the clean image failed"
[ "$(wc -l < "$TMPD/orph")" -eq "$(wc -l < "$TMPD/clean")" ] ||
	fail "ls -R --orphans has $(wc -l < "$TMPD/orph") lines, ls -R of the clean image $(wc -l < "$TMPD/clean")"
# xfs_db's names of the tops, on the clean image
"$XFS_DB" -r -c 'blockget -n' -c ncheck "$img" 2> /dev/null |
	sed -n 's/^ *\([0-9][0-9]*\) \([ -~]*\)$/\1 \/\2/p' | sed 's|/\.$||' > "$TMPD/db.pairs"
grep '^orphan:[0-9]*$' "$TMPD/orph" | cut -d: -f2 | while read -r t; do
	p=$(awk -v i="$t" '$1 == i { print $2; exit }' "$TMPD/db.pairs")
	[ -n "$p" ] || { echo "top $t: xfs_db names no path for it" >&2; exit 1; }
	echo "orphan:$t $p"
done > "$TMPD/tops" || fail "a top has no xfs_db path"
[ -s "$TMPD/tops" ] || fail "no orphan listed"
awk 'NR == FNR { map[$1] = $2; next }
	{ split($0, a, "/"); top = a[1]
	  if (top in map) { rest = substr($0, length(top) + 1); print map[top] rest } else print }' \
	"$TMPD/tops" "$TMPD/orph" |
	perl -pe 's/\\(\\|x([0-9A-Fa-f]{2}))/defined $2 ? chr(hex $2) : "\\"/ge' | sort > "$TMPD/mapped"
cut -d' ' -f2- "$TMPD/db.pairs" | sort -u > "$TMPD/dbpaths"
missing=$(comm -23 "$TMPD/dbpaths" "$TMPD/mapped" | wc -l)
[ "$missing" -eq 0 ] ||
	fail "$missing of xfs_db's paths are not under the orphans: $(comm -23 "$TMPD/dbpaths" "$TMPD/mapped" | head -3)"

mkdir "$TMPD/ex"
"$XFSRECON" extract --orphans "$TMPD/nr.img" -C "$TMPD/ex" > "$TMPD/ex.out" 2> /dev/null
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 8 ] || fail "extract --orphans exited $rc"
for t in $(cut -d' ' -f1 "$TMPD/tops" | cut -d: -f2); do
	[ -e "$TMPD/ex/$t" ] || fail "extract --orphans did not write $t"
done
echo "orphans: $(wc -l < "$TMPD/tops") tops, $(wc -l < "$TMPD/orph") paths, every xfs_db path among them"
exit 0
