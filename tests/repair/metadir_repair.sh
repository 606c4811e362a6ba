#!/bin/sh
# tests/repair/metadir_repair.sh - repair of a filesystem with a metadata
# directory tree (mkfs.xfs 6.13 -m metadir=1), judged by xfsprogs 6.13 and
# the kernel.
#
# The filesystem is made by mkfs.xfs 6.13 (tests/tools/xfsprogs-current.sh)
# and populated by the kernel: directories of every form, files with data, a
# hard link.  Its superblock names no realtime inode (rbmino and rsumino are
# 0 on disk: the tree holds them), which a repair must write back as 0.
# Each damage, on its own copy: the primary's free-block counter, AG 1's
# bnobt root, AG 0's inobt root, the whole AGI of AG 0, the root inode, and
# a block directory's inode core (its blocks stay), a quota inode named in
# the superblock, a secondary's realtime group size, the realtime bitmap
# flag on a file, the metadata flag on a file (with and without DAX), the
# tree's root with an owner, a DMAPI state or without its immutable flag,
# the tree's root lost (its inode zeroed), its entry naming a user's file,
# its ".." naming the user's root, its link count wrong, the superblock's
# metadirino naming the user's root (with the tree's root lost too, and
# not); on a filesystem with parent pointers too, the tree's root lost or its
# entry bad, rebuilt with the generation and name those give.  For each,
# `repair -o` must exit 1 and give an OUT that xfs_repair 6.13 -n and our
# check find clean, that the kernel mounts, in which every name of the clean
# image is at its path with its inode, link count, size and (for a file)
# SHA-256, and whose metadata tree's root names what the clean one names
# (xfs_repair 6.13 empties it); xfs_repair 6.13's result on another copy is
# printed beside ours.  With a realtime section (realtime groups: read, not
# rebuilt) repair is refused: exit 8, a message naming the reason, no OUT.
# Needs root, loop mounts and xfsprogs 6.13 (built on first use); skipped
# otherwise.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
LC_ALL=C
export LC_ALL
cur=$(sh "$top_srcdir/tests/tools/xfsprogs-current.sh" 2> "$TMPD/cur.err") &&
	[ -x "$cur/mkfs.xfs" ] || skip "xfsprogs 6.13 cannot be had: $(tail -1 "$TMPD/cur.err")"
X=$XFSRECON
img=$TMPD/clean.img
mnt=$TMPD/mnt
mkdir -p "$mnt"
truncate -s 512M "$img"
"$cur/mkfs.xfs" -q -f -m metadir=1 -d agcount=4 "$img" > "$TMPD/mkfs" 2>&1 ||
	fail "mkfs.xfs 6.13 -m metadir=1: $(cat "$TMPD/mkfs")"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount"
mkdir "$mnt/sf" "$mnt/blk" "$mnt/leaf" "$mnt/node" "$mnt/data" &&
(cd "$mnt/sf" && touch a b c) &&
(cd "$mnt/blk" && awk 'BEGIN { for (i = 0; i < 40; i++) print "block-" i }' |
	while read -r n; do echo "$n" > "$n"; done) &&
(cd "$mnt/leaf" && awk 'BEGIN { for (i = 0; i < 300; i++) print "a-leaf-entry-name-" i }' | xargs touch) &&
(cd "$mnt/node" && awk 'BEGIN { for (i = 0; i < 1300; i++) print "a-node-entry-with-a-longer-name-" i }' |
	xargs touch) &&
for i in 1 2 3 4 5 6; do
	head -c $((i * 300000)) /dev/urandom > "$mnt/data/f$i" || exit 1
done &&
ln "$mnt/data/f1" "$mnt/blk/link-to-f1" || { umount "$mnt"; fail "populating the filesystem"; }
umount "$mnt" || fail "umount"
"$cur/xfs_repair" -n "$img" > "$TMPD/xrn" 2>&1 || fail "the clean image is not clean: $(tail -3 "$TMPD/xrn")"
[ "$("$cur/xfs_db" -r -c 'sb 0' -c 'print rbmino' "$img" | awk '{ print $3 }')" = 0 ] ||
	fail "mkfs.xfs 6.13 -m metadir=1 wrote a realtime bitmap inode into the superblock"
"$X" check "$img" > "$TMPD/check" 2>&1 || fail "check of the clean image: $(tail -n 3 "$TMPD/check")"

tree() { # IMAGE OUT: every name of the mounted IMAGE with inode, links, size, hash
	mount -o ro,loop,nouuid "$1" "$mnt" 2>/dev/null || return 1
	(cd "$mnt" && find . ! -path './lost+found*' -printf '%p %i %n %s\n' | sort |
		while read -r p i n s; do
			h=-
			[ -f "$p" ] && h=$(sha256sum < "$p" | cut -c1-64)
			echo "$p $i $n $s $h"
		done) > "$2"
	umount "$mnt"
}
tree "$img" "$TMPD/clean.tree" || fail "cannot mount the clean image"
total=$(wc -l < "$TMPD/clean.tree")
mdino=$("$cur/xfs_db" -r -c 'sb 0' -c 'print metadirino' "$img" | awk '{ print $3 }')
mdroot() { # IMAGE: the names and inodes the metadata tree's root holds
	"$cur/xfs_db" -r -c "inode $mdino" -c 'print u3' "$1" | grep -E 'name =|inumber|count'
}
mdroot "$img" > "$TMPD/clean.mdroot"
grep -q 'rtgroups' "$TMPD/clean.mdroot" || fail "the clean tree's root names no rtgroups: $(cat "$TMPD/clean.mdroot")"

# damage NAME XFS_DB-COMMANDS...: a copy with that damage, both tools' outputs judged.
n=0
damage() {
	name=$1
	shift
	d=$TMPD/$name.img
	cp "$img" "$d"
	"$cur/xfs_db" -x "$@" "$d" > "$TMPD/$name.db" 2>&1 || fail "$name: xfs_db: $(tail -n 2 "$TMPD/$name.db")"
	cmp -s "$img" "$d" && fail "$name: the damage changed nothing"
	"$X" repair -q "$d" -o "$TMPD/$name.ours" > "$TMPD/$name.out" 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "$name: repair exits $rc: $(tail -n 3 "$TMPD/$name.out")"
	"$cur/xfs_repair" -n "$TMPD/$name.ours" > "$TMPD/$name.xrn" 2>&1 ||
		fail "$name: xfs_repair 6.13 -n finds our output unclean: $(grep -v '^ *-\|^Phase' "$TMPD/$name.xrn" | head -n 4)"
	"$X" check "$TMPD/$name.ours" > "$TMPD/$name.after" 2>&1 ||
		fail "$name: our check of our output: $(tail -n 3 "$TMPD/$name.after")"
	[ "$("$cur/xfs_db" -r -c 'sb 0' -c 'print rbmino rsumino' "$TMPD/$name.ours" | awk '{ s = s $3 } END { print s }')" = 00 ] ||
		fail "$name: the output's superblock names realtime inodes"
	tree "$TMPD/$name.ours" "$TMPD/$name.tree" || fail "$name: the kernel does not mount our output"
	mdroot "$TMPD/$name.ours" | cmp -s - "$TMPD/clean.mdroot" ||
		fail "$name: the metadata tree's root is not as it was: $(mdroot "$TMPD/$name.ours" | tr '\n' ' ')"
	ours=$(comm -12 "$TMPD/clean.tree" "$TMPD/$name.tree" | wc -l)
	cp "$d" "$TMPD/$name.theirs"
	"$cur/xfs_repair" "$TMPD/$name.theirs" > /dev/null 2>&1 ||
		"$cur/xfs_repair" -L "$TMPD/$name.theirs" > /dev/null 2>&1
	theirs=0
	tree "$TMPD/$name.theirs" "$TMPD/$name.ttree" &&
		theirs=$(comm -12 "$TMPD/clean.tree" "$TMPD/$name.ttree" | wc -l)
	echo "$name: ours $ours of $total names as they were, xfs_repair 6.13 $theirs"
	[ "$ours" -eq "$total" ] ||
		fail "$name: $((total - ours)) names not as they were: $(comm -23 "$TMPD/clean.tree" "$TMPD/$name.tree" | head -n 3)"
	rm -f "$d" "$TMPD/$name.ours" "$TMPD/$name.theirs"
	n=$((n + 1))
}

blkino=$("$X" ls -l "$img" / | awk '$NF == "blk" { print $1 }')
[ -n "$blkino" ] || fail "no /blk in the clean image"
damage sb-fdblocks -c 'sb 0' -c 'write fdblocks 5'
damage bnobt-root -c 'agf 1' -c 'addr bnoroot' -c 'type data' -c 'write fill 0'
damage inobt-root -c 'agi 0' -c 'addr root' -c 'type data' -c 'write fill 0'
damage agi0 -c 'agi 0' -c 'type data' -c 'write fill 0'
damage root-inode -c 'inode 128' -c 'type data' -c 'write fill 0'
damage dir-core -c "inode $blkino" -c 'write core.mode 0'
# Fields a metadata directory tree rules otherwise: quota inodes live in the
# tree (the superblock's fields are 0), every copy carries the realtime
# group geometry, and without a realtime section no inode is a bitmap.
fileino=$("$X" ls -l "$img" /data | awk '$NF == "f1" { print $1 }')
[ -n "$fileino" ] || fail "no /data/f1 in the clean image"
damage sb-gquotino -c 'sb 0' -c 'write gquotino 133'
damage sb1-rgextents -c 'sb 1' -c 'fuzz -d rgextents zeroes'
damage newrtbm -c "inode $fileino" -c 'write core.newrtbm 1'
# A file of the user's tree marked as a metadata file (xfs_repair 6.13 clears
# the file; the flag is the damage), and with DAX besides, which no
# metadata file may carry.
flags2=$("$cur/xfs_db" -r -c "inode $fileino" -c 'print v3.flags2' "$img" | awk '{ print $3 }')
damage user-metaflag -c "inode $fileino" -c "write v3.flags2 $(printf '0x%x' $((flags2 | 0x20)))"
damage user-metaflag-dax -c "inode $fileino" -c "write v3.flags2 $(printf '0x%x' $((flags2 | 0x21)))"

# A metadata file's core as the kernel wants it (xfs_repair 6.13 clears the
# tree's root for these and reinitializes it): an owner, a DMAPI state, a
# missing immutable flag on the tree's root.
damage metaroot-gid -c "inode $mdino" -c 'write core.gid 1000'
damage metaroot-dmstate -c "inode $mdino" -c 'write core.dmstate 7'
damage metaroot-immutable -c "inode $mdino" -c 'write core.immutable 0'

# The tree's own namespace (xfs_repair 6.13 reinitializes the root, empty):
# the root lost whole, its entry naming a user's file, its ".." the user's
# root, its link count.  Ours is rebuilt with its entry back.
mdbyte=$("$cur/xfs_db" -r -c "convert inode $mdino byte" "$img" | sed -n 's/.*(\([0-9]*\)).*/\1/p')
[ -n "$mdbyte" ] || fail "xfs_db cannot place inode $mdino"
damage metaroot-lost -c "daddr $((mdbyte / 512))" -c 'type data' -c 'write fill 0'
damage metaroot-entry -c "inode $mdino" -c "write u3.sfdir3.list[0].inumber.i4 $fileino"
damage metaroot-dotdot -c "inode $mdino" -c 'write u3.sfdir3.hdr.parent.i4 128'
damage metaroot-nlink -c "inode $mdino" -c 'write core.nlinkv2 7'
# The superblock's metadirino naming the user's root: the tree is found where
# it is (sbMetadirInoWrong), or made anew after the user's root when its root
# is lost too, never over the user's root.
rootino=$("$cur/xfs_db" -r -c 'sb 0' -c 'print rootino' "$img" | awk '{ print $3 }')
damage sb-metadirino -c 'sb 0' -c "write metadirino $rootino"
damage sb-metadirino-rootlost -c 'sb 0' -c "write metadirino $rootino" \
	-c "daddr $((mdbyte / 512))" -c 'type data' -c 'write fill 0'

# With parent pointers the tree's files carry them too: the tree's root lost,
# or its entry naming a user's file, is rebuilt with the generation and the
# name they give (xfs_repair 6.13 -n checks both).
pp=$TMPD/pp.img
truncate -s 512M "$pp"
"$cur/mkfs.xfs" -q -f -m metadir=1 -n parent=1 "$pp" > "$TMPD/mkfs.pp" 2>&1 ||
	fail "mkfs.xfs 6.13 -m metadir=1 -n parent=1: $(cat "$TMPD/mkfs.pp")"
mount -o loop "$pp" "$mnt" 2>/dev/null || fail "cannot mount the parent-pointer image"
mkdir "$mnt/d" && (cd "$mnt/d" && awk 'BEGIN { for (i = 0; i < 30; i++) print "f" i }' | xargs touch) ||
	{ umount "$mnt"; fail "populating the parent-pointer image"; }
umount "$mnt" || fail "umount"
ppmd=$("$cur/xfs_db" -r -c 'sb 0' -c 'print metadirino' "$pp" | awk '{ print $3 }')
ppfile=$("$X" ls -l "$pp" /d | awk '$NF == "f0" { print $1 }')
ppbyte=$("$cur/xfs_db" -r -c "convert inode $ppmd byte" "$pp" | sed -n 's/.*(\([0-9]*\)).*/\1/p')
pproot() { # IMAGE: the tree's root: its generation, names and inodes
	"$cur/xfs_db" -r -c "inode $ppmd" -c 'print core.gen u3' "$1" | grep -E 'gen|name =|inumber|count'
}
pproot "$pp" > "$TMPD/pp.root"
for what in lost entry; do
	cp "$pp" "$TMPD/pp.$what"
	case $what in
	lost) "$cur/xfs_db" -x -c "daddr $((ppbyte / 512))" -c 'type data' -c 'write fill 0' "$TMPD/pp.$what" ;;
	entry) "$cur/xfs_db" -x -c "inode $ppmd" -c "write u3.sfdir3.list[0].inumber.i4 $ppfile" "$TMPD/pp.$what" ;;
	esac > /dev/null 2>&1
	cmp -s "$pp" "$TMPD/pp.$what" && fail "parent pointers, $what: the damage changed nothing"
	"$X" repair -q "$TMPD/pp.$what" -o "$TMPD/pp.$what.out" > "$TMPD/pp.$what.rep" 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "parent pointers, $what: repair exits $rc: $(tail -n 2 "$TMPD/pp.$what.rep")"
	"$cur/xfs_repair" -n "$TMPD/pp.$what.out" > "$TMPD/pp.$what.xrn" 2>&1 ||
		fail "parent pointers, $what: xfs_repair 6.13 -n: $(grep -v '^ *-\|^Phase' "$TMPD/pp.$what.xrn" | head -n 3)"
	pproot "$TMPD/pp.$what.out" | cmp -s - "$TMPD/pp.root" ||
		fail "parent pointers, $what: the tree's root is not as it was: $(pproot "$TMPD/pp.$what.out" | tr '\n' ' ')"
	echo "parent pointers, $what: the tree's root as it was, xfs_repair 6.13 -n clean"
	rm -f "$TMPD/pp.$what" "$TMPD/pp.$what.out"
done
rm -f "$pp"

# A realtime section under the tree: refused, nothing written.
rt=$TMPD/rt.img
truncate -s 256M "$TMPD/rtdata.img"
truncate -s 512M "$rt"
if "$cur/mkfs.xfs" -q -f -m metadir=1 -r rtdev="$TMPD/rtdata.img" "$rt" > "$TMPD/mkfs.rt" 2>&1; then
	"$X" repair -q --rtdev "$TMPD/rtdata.img" "$rt" -o "$TMPD/rt.out.img" > "$TMPD/rt.out" 2>&1
	rc=$?
	[ $rc -eq 8 ] || fail "repair of a metadir filesystem with a realtime section exits $rc, not 8"
	grep -q 'realtime' "$TMPD/rt.out" || fail "the refusal does not say why: $(cat "$TMPD/rt.out")"
	[ ! -e "$TMPD/rt.out.img" ] || fail "the refused repair wrote OUT"
else
	echo "mkfs.xfs 6.13 made no realtime image here: $(tail -n 1 "$TMPD/mkfs.rt")"
fi
echo "$n damages repaired, each with all $total names as they were"
