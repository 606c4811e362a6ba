#!/bin/sh
# tests/repair/pptr_dirs.sh - on a filesystem with parent pointers, whole
# directories destroyed (inode core and every block) come back with every
# child at its original path, from the children's parent pointers.
#
# A filesystem made by mkfs.xfs 6.13 -n parent=1 (tests/tools/
# xfsprogs-current.sh) and populated by the kernel: a short-form, a block, a
# leaf and a node directory, a hard link, a subdirectory.  Its log is then
# formatted by xfs_db, so that no copy of a directory block survives there:
# the parent pointers are the only evidence left.  For each directory in
# turn, its inode core and every block its fork maps are zeroed, and
# `repair -o OUT --report R` must:
#   - give an OUT that xfs_repair 6.13 -n and our check find clean;
#   - list, once mounted by the kernel, exactly the clean image's tree
#     (path, inode number, link count, size of every name);
#   - name each restored entry in R's <reattached> with source
#     "parent-pointer", and R must validate.
# Before that, on the clean image: check reports nothing, `show attr` prints
# the parent pointers as xfs_db 6.13 does, `stat` gives them by name; and on
# each damaged one, `ls --orphans -l` names every orphan's former place.
# A last case also spoils one child's parent pointer (a generation its
# directory never had): that child alone goes to lost+found, and its parent
# pointer is written again to say so (xfs_repair 6.13 -n is the judge).
# xfs_repair 6.13's own result on each damage is printed for comparison.
# Needs root, loop mounts and xfsprogs 6.13 (built on first use); skipped
# otherwise.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
need_tool xmllint
LC_ALL=C
export LC_ALL
cur=$(sh "$top_srcdir/tests/tools/xfsprogs-current.sh" 2> "$TMPD/cur.err") &&
	[ -x "$cur/mkfs.xfs" ] || skip "xfsprogs 6.13 cannot be had: $(tail -1 "$TMPD/cur.err")"
X=$XFSRECON
img=$TMPD/clean.img
mnt=$TMPD/mnt
mkdir -p "$mnt"
truncate -s 512M "$img"
"$cur/mkfs.xfs" -q -f -n parent=1 "$img" > "$TMPD/mkfs" 2>&1 || fail "mkfs.xfs 6.13: $(cat "$TMPD/mkfs")"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount"
names() { # PREFIX COUNT LEN: COUNT names PREFIX-N padded to about LEN bytes
	awk -v p="$1" -v n="$2" -v l="$3" 'BEGIN {
		pad = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz0123456789"
		for (i = 1; i <= n; i++) print p "-" i "-" substr(pad, 1, l)
	}'
}
mkdir "$mnt/sf" "$mnt/sf/in" "$mnt/blk" "$mnt/blk/sub" "$mnt/leaf" "$mnt/node"
(cd "$mnt/sf" && names s 3 4 | xargs touch) && echo inner > "$mnt/sf/in/f" &&
(cd "$mnt/blk" && names b 40 6 | while read -r n; do echo "$n" > "$n"; done) &&
(cd "$mnt/blk/sub" && names u 4 2 | xargs touch) &&
(cd "$mnt/leaf" && names l 300 30 | xargs touch) &&
(cd "$mnt/node" && names n 1300 40 | xargs touch) &&
ln "$mnt/blk/b-1-abcdef" "$mnt/hardlink" || fail "populating the filesystem"
umount "$mnt" || fail "umount"
# No copy of any directory block is left in the log.
"$cur/xfs_db" -x -c 'logformat -c 10' "$img" > /dev/null 2>&1 || fail "xfs_db logformat"
"$cur/xfs_repair" -n "$img" > "$TMPD/xrn" 2>&1 || fail "the clean image is not clean: $(tail -3 "$TMPD/xrn")"

# The clean image: nothing to report; parent pointers shown as xfs_db 6.13
# prints them (show attr), and by name in stat.
"$X" check "$img" > "$TMPD/chk" 2>&1 || fail "check of the clean image: $(grep '^error' "$TMPD/chk" | head -3)"
"$X" show "$img" attr /hardlink 2> /dev/null | grep '^a\.sfattr\.' | grep -v '\.flags = ' > "$TMPD/ours.attr"
"$cur/xfs_db" -r -c 'path /hardlink' -c 'print a.sfattr' "$img" > "$TMPD/theirs.attr"
diff "$TMPD/theirs.attr" "$TMPD/ours.attr" > /dev/null ||
	fail "show attr differs from xfs_db 6.13: $(diff "$TMPD/theirs.attr" "$TMPD/ours.attr" | head -4)"
"$X" stat "$img" /hardlink | sed -n 's/^  parent\.\([^ ]*\) -> directory \([0-9]*\), generation \([0-9]*\)$/\1 \2 \3/p' |
	sort > "$TMPD/ours.pptr"
awk '/\.name = / { gsub(/"/, "", $3); n = $3 } /parent_dir.inumber/ { i = $3 }
     /parent_dir.gen/ { print n, i, $3 }' "$TMPD/theirs.attr" | sort > "$TMPD/theirs.pptr"
[ "$(wc -l < "$TMPD/ours.pptr")" -eq 2 ] && diff "$TMPD/theirs.pptr" "$TMPD/ours.pptr" > /dev/null ||
	fail "stat's parent pointers: $(cat "$TMPD/ours.pptr"), xfs_db: $(cat "$TMPD/theirs.pptr")"

tree() { # IMAGE OUT: every name of the mounted IMAGE with inode, links, size
	mount -o ro,loop,nouuid "$1" "$mnt" || fail "cannot mount $1"
	(cd "$mnt" && find . -printf '%p %i %n %s\n') | sort > "$2"
	umount "$mnt"
}
tree "$img" "$TMPD/clean.tree"
agblocks=$("$cur/xfs_db" -r -c 'sb 0' -c 'print agblocks' "$img" | awk '{ print $3 }')
bsize=$("$cur/xfs_db" -r -c 'sb 0' -c 'print blocksize' "$img" | awk '{ print $3 }')

# destroy IMAGE DIR: zero DIR's inode core and every block its fork maps
destroy() {
	ino=$("$cur/xfs_db" -r -c "path $2" -c inode "$1" | awk '/current inode number/ { print $NF }')
	[ -n "$ino" ] || fail "no inode for $2"
	byte=$("$cur/xfs_db" -r -c "convert inode $ino byte" "$1" | sed 's/.*(\([0-9]*\)).*/\1/')
	"$cur/xfs_db" -r -c "path $2" -c bmap "$1" |
		sed -n 's/.*startblock [0-9]* (\([0-9]*\)\/\([0-9]*\)) count \([0-9]*\).*/\1 \2 \3/p' > "$TMPD/ext"
	fmt=$("$cur/xfs_db" -r -c "path $2" -c 'print core.format' "$1" | awk '{ print $3 }')
	[ -s "$TMPD/ext" ] || [ "$fmt" = 1 ] || fail "no blocks mapped for $2 (format $fmt)"
	while read -r ag bno len; do
		dd if=/dev/zero of="$1" bs="$bsize" seek=$((ag * agblocks + bno)) count="$len" \
			conv=notrunc 2>/dev/null || fail "dd"
	done < "$TMPD/ext"
	dd if=/dev/zero of="$1" bs=1 seek="$byte" count=512 conv=notrunc 2>/dev/null || fail "dd"
	echo "$ino"
}

# run_case NAME DIR [PATH XFS_DB-COMMAND]: the command is run on PATH first
run_case() {
	c=$TMPD/$1
	cp --sparse=always "$img" "$c.img" || fail "cp"
	kids=$(grep -c "^\.$2/[^/]* " "$TMPD/clean.tree")
	if [ $# -gt 2 ]; then
		"$cur/xfs_db" -x -c "path $3" -c "$4" "$c.img" > /dev/null 2>&1 || fail "xfs_db $4"
	fi
	dino=$(destroy "$c.img" "$2")
	case $dino in ''|*[!0-9]*) fail "$1: could not destroy $2: $dino" ;; esac
	# before the repair: every orphan says where its parent pointer put it
	"$X" ls --orphans -l "$c.img" > "$c.orph" 2>/dev/null
	tops=$(wc -l < "$c.orph")
	placed=$(grep -c "(parent pointers: <inode $dino>/[^/]*)\$" "$c.orph")
	[ "$tops" -gt 0 ] && [ "$placed" -eq "$tops" ] ||
		fail "$1: ls --orphans -l places $placed of its $tops orphans under inode $dino"
	# and each name it gives is one the kernel showed in that directory
	sed -n "s|.*(parent pointers: <inode $dino>/\([^/]*\))\$|.$2/\1|p" "$c.orph" | sort > "$c.onames"
	awk '{ print $1 }' "$TMPD/clean.tree" | sort | comm -23 "$c.onames" - > "$c.stray"
	[ ! -s "$c.stray" ] || fail "$1: ls --orphans -l gives names the directory never had: $(head -3 "$c.stray")"
	"$X" repair "$c.img" -o "$c.out" --report "$c.xml" > "$c.rep" 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "$1: repair exits $rc: $(tail -3 "$c.rep")"
	"$cur/xfs_repair" -n "$c.out" > "$c.xrn" 2>&1 ||
		fail "$1: xfs_repair 6.13 -n finds OUT unclean: $(grep -i 'would\|parent' "$c.xrn" | head -5)"
	"$X" check "$c.out" > "$c.chk" 2>&1 || fail "$1: our check of OUT: $(grep '^error' "$c.chk" | head -3)"
	xmllint --noout --schema "$top_srcdir/doc/repair-report.xsd" "$c.xml" 2> "$c.xl" ||
		fail "$1: the report does not validate: $(head -3 "$c.xl")"
	got=$(grep -c "<entry dir=\"$dino\" ino=\"[0-9]*\" name=\"[^\"]*\" source=\"parent-pointer\"" "$c.xml")
	tree "$c.out" "$c.tree"
	# xfs_repair 6.13 on the same damage, for the record
	cp --sparse=always "$c.img" "$c.theirs" && "$cur/xfs_repair" "$c.theirs" > /dev/null 2>&1
	tree "$c.theirs" "$c.ttree"
	theirs=$(grep -c "^\.$2/[^/]* " "$c.ttree")
	echo "$1: $2 ($kids names): ours $got restored from parent pointers; xfs_repair 6.13 keeps $theirs at their paths"
}

for d in sf blk leaf node; do
	run_case "$d" "/$d"
	diff "$TMPD/clean.tree" "$TMPD/$d.tree" > "$TMPD/$d.diff" ||
		fail "$d: the repaired tree differs from the clean one: $(head -5 "$TMPD/$d.diff")"
	[ "$got" -eq "$kids" ] || fail "$d: $got of $kids entries reported from parent pointers"
	[ "$theirs" -lt "$kids" ] || fail "$d: xfs_repair kept every name too: the damage is not what it should be"
done
# /blk/sub is a directory revived from its children too, under a revived /blk
run_case sub /blk/sub
diff "$TMPD/clean.tree" "$TMPD/sub.tree" > "$TMPD/sub.diff" ||
	fail "sub: the repaired tree differs from the clean one: $(head -5 "$TMPD/sub.diff")"

# One child's parent pointer gives a generation /blk never had: it cannot be
# trusted, so that child alone is an orphan, and its parent pointer now names
# lost+found.
run_case spoiled /blk /blk/b-7-abcdef 'write a.sfattr.list[0].parent_dir.gen 5'
lost=$(awk '$1 ~ /^\.\/lost\+found\/[0-9]+$/' "$TMPD/spoiled.tree" | wc -l)
[ "$lost" -eq 1 ] || fail "spoiled: $lost names in lost+found, expected 1"
# (the root's link count grows by lost+found's)
grep -v '^\. \|^\./lost+found\|^\./blk/b-7-abcdef ' "$TMPD/spoiled.tree" > "$TMPD/spoiled.kept"
grep -v '^\. \|^\./blk/b-7-abcdef ' "$TMPD/clean.tree" > "$TMPD/spoiled.want"
diff "$TMPD/spoiled.want" "$TMPD/spoiled.kept" > /dev/null ||
	fail "spoiled: the other names moved: $(diff "$TMPD/spoiled.want" "$TMPD/spoiled.kept" | head -5)"
grep -q 'kind="write-parent-pointers"' "$TMPD/spoiled.xml" ||
	fail "spoiled: no write-parent-pointers action"
exit 0
