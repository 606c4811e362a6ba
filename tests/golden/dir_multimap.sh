#!/bin/sh
# tests/golden/dir_multimap.sh - a directory block mapped at two logical
# offsets (its bmbt rewritten with xfs_db so data block 1 names the
# physical block of data block 0) is read once: ls lists each name of the
# blocks still mapped once, exactly the names xfs_db prints for them.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
need_tool mkfs.xfs
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"
img="$TMPD/mm.img"
mnt="$TMPD/mnt"
mkdir -p "$mnt"
truncate -s 320M "$img"
mkfs.xfs -q -f "$img" || fail "mkfs.xfs failed"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount"
mrc=0
mkdir "$mnt/d" || mrc=1
i=1
while [ $i -le 160 ] && [ $mrc -eq 0 ]; do
	: > "$mnt/d/an_entry_with_a_name_long_enough_to_fill_blocks_$i" || mrc=1
	i=$((i + 1))
done
umount "$mnt" || fail "umount failed"
[ $mrc -eq 0 ] || fail "cannot populate the image"

"$XFS_DB" -r -c 'path /d' -c 'p core.format core.nextents u3.bmx' "$img" > "$TMPD/bmx"
grep -q '^core.format = 2' "$TMPD/bmx" || skip "/d is not in extents format"
# bmx records "N:[startoff,startblock,blockcount,flag]": the block of offset 0.
b0=$(sed -n 's/^[0-9]*:\[0,\([0-9]*\),[0-9]*,0\].*/\1/p' "$TMPD/bmx")
rec1=$(sed -n 's/^\([0-9]*\):\[1,[0-9]*,1,0\].*/\1/p' "$TMPD/bmx")
[ -n "$b0" ] && [ -n "$rec1" ] ||
	skip "/d's data blocks 0 and 1 are not separate one-block extents: $(cat "$TMPD/bmx")"

# The names of every data block but the one at offset 1 (the data segment
# ends below the leaf segment at 32 GiB), as xfs_db prints them.
awk -F'[][,]' '/^[0-9]+:\[/ && $2 < 8388608 { for (k = 0; k < $4; k++) print $2 + k }' \
	"$TMPD/bmx" | grep -vx 1 > "$TMPD/offsets"
: > "$TMPD/want.u"
while read -r off; do
	"$XFS_DB" -r -c 'path /d' -c "dblock $off" -c 'p' "$img" |
		sed -n 's/^du\[[0-9]*\]\.name = "\(.*\)"$/\1/p' | grep -v '^\.\.\?$' >> "$TMPD/want.u"
done < "$TMPD/offsets"
LC_ALL=C sort "$TMPD/want.u" > "$TMPD/want"
[ -s "$TMPD/want" ] || fail "xfs_db printed no names for the data blocks"
"$XFS_DB" -x -c 'path /d' -c "write u3.bmx[$rec1].startblock $b0" "$img" > /dev/null ||
	fail "xfs_db write failed"
"$XFS_DB" -r -c 'path /d' -c "p u3.bmx[$rec1]" "$img" | grep -q "\[1,$b0,1,0\]" ||
	fail "the extent was not rewritten"

"$XFSRECON" ls "$img" /d > "$TMPD/got"
LC_ALL=C sort "$TMPD/got" | uniq -d > "$TMPD/dups"
[ -s "$TMPD/dups" ] && fail "ls lists $(wc -l < "$TMPD/dups") names twice, e.g. $(head -n 1 "$TMPD/dups")"
LC_ALL=C sort "$TMPD/got" > "$TMPD/got.s"
diff "$TMPD/want" "$TMPD/got.s" > "$TMPD/diff" || fail "ls differs from xfs_db: $(head "$TMPD/diff")"
"$XFSRECON" ls -R "$img" /d > "$TMPD/gotR"
[ "$(wc -l < "$TMPD/gotR")" -eq "$(wc -l < "$TMPD/want")" ] ||
	fail "ls -R lists $(wc -l < "$TMPD/gotR") paths, the block holds $(wc -l < "$TMPD/want") names"
"$XFSRECON" ls --deleted "$img" /d > "$TMPD/gotD"
LC_ALL=C sort "$TMPD/gotD" | uniq -d > "$TMPD/dups"
[ -s "$TMPD/dups" ] && fail "ls --deleted lists lines twice, e.g. $(head -n 1 "$TMPD/dups")"
exit 0
