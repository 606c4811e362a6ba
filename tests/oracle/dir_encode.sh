#!/bin/sh
# tests/oracle/dir_encode.sh - the directory encoder (formats/dir2_build.h)
# judged by xfs_repair, xfs_db and the kernel.
#
# On a scratch copy of v5-files (short form, block, leaf and node
# directories, btree data forks, 30000 entries), v4 (no CRC, no ftype) and
# v5-1k (1 KiB blocks), tests/tools/dirrewrite re-encodes every directory
# from its own entries and writes it back in place.  Then:
#   - every directory was rewritten (none skipped), and on v5-files every
#     form was met;
#   - `xfs_repair -n` exits 0 and our own checker finds nothing;
#   - `xfs_db ls` of every directory gives the same names and inode numbers
#     as on the original image, every entry "(good)";
#   - the kernel (loop mount, read-only, as root; skipped per image when it
#     cannot mount it) lists every directory, "." and ".." included, with the
#     same names and inode numbers as the original (`ls -1aRi`).
# Blocks that come out byte-identical to what the kernel wrote are counted
# and printed, not required (data block 0 of a directory that was once in
# block form keeps stale bytes of its old leaf in the kernel's copy).
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_REPAIR"
need_tool "$XFS_DB"
tool="$top_builddir/tests/tools/dirrewrite"
[ -x "$tool" ] || fail "$tool is not built"

# Raw images are sparse 400 MB files: keep them in memory when possible.
work="$TMPD"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	work=$(mktemp -d /dev/shm/xfsrecon-dir_encode.XXXXXX) || work="$TMPD"
fi
mnt="$TMPD/mnt"
mkdir -p "$mnt"
cleanup() {
	umount "$mnt" 2>/dev/null
	[ "$work" = "$TMPD" ] || rm -rf "$work"
}
trap 'rc=$?; cleanup; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

# kernel_list IMG OUT: `ls -1aRi` of the whole tree as the kernel reads it;
# returns 1 when the image cannot be mounted.
kernel_list() {
	[ "$(id -u)" -eq 0 ] || return 1
	mount -o ro,loop "$1" "$mnt" 2>/dev/null || return 1
	(cd "$mnt" && LC_ALL=C ls -1aRi --quoting-style=escape .) > "$2"
	_rc=$?
	umount "$mnt" || fail "cannot unmount $mnt"
	[ $_rc -eq 0 ] || fail "ls -R failed on the mounted $1"
	return 0
}

# db_list IMG INO: "inode name" of every entry xfs_db lists, sorted; an
# entry xfs_db does not call (good) is printed as BAD.
db_list() {
	"$XFS_DB" -r -c "inode $2" -c ls "$1" 2>&1 |
		awk '{ n = $5; for (i = 6; i < NF; i++) n = n " " $i;
		       print ($NF == "(good)" ? "" : "BAD ") $2, n }' | LC_ALL=C sort
}

kernel_checked=0
for name in v5-files v4 v5-1k; do
	src="$top_srcdir/corpus/images/$name.img.zst"
	[ -f "$src" ] || fail "corpus image $src is missing"
	orig="$work/$name.orig.img"
	new="$work/$name.new.img"
	zstd -q -d -f -o "$orig" "$src" || fail "cannot decompress $src"
	cp --sparse=always "$orig" "$new" || fail "cannot copy $orig"

	"$tool" "$new" > "$TMPD/$name.out" 2> "$TMPD/$name.err" ||
		fail "$name: dirrewrite failed: $(cat "$TMPD/$name.err")"
	summary=$(tail -n 1 "$TMPD/$name.out")
	set -- $summary
	[ "$1" = dirs ] && [ "$2" -gt 0 ] || fail "$name: no summary: $summary"
	[ "$6" -eq 0 ] || fail "$name: directories skipped: $(grep '^skipped' "$TMPD/$name.out")"
	[ "$4" -eq "$2" ] || fail "$name: $4 of $2 directories rewritten"
	echo "ok: $name: $summary"

	if [ "$name" = v5-files ]; then
		for form in sf block leaf node; do
			grep -q "^rewrote [0-9]* $form " "$TMPD/$name.out" ||
				fail "$name: no $form directory was rewritten"
		done
		# /big: 30000 entries over 179 data blocks, 96 leaves under one node
		grep -q '^rewrote [0-9]* node data=179 leaf=96 node=1 free=1 ' "$TMPD/$name.out" ||
			fail "$name: the 30000-entry directory was not rewritten as expected"
	fi

	"$XFS_REPAIR" -n "$new" > "$TMPD/$name.repair" 2>&1 ||
		fail "$name: xfs_repair -n rejects the rewritten directories: $(grep -v -e '^Phase' -e '^        - ' -e 'host filesystem' -e '^Repair may fail' -e '^the image and' "$TMPD/$name.repair" | head -20)"
	"$XFSRECON" check "$new" > "$TMPD/$name.check" 2>&1 ||
		fail "$name: xfsrecon check finds problems: $(head -20 "$TMPD/$name.check")"

	for ino in $(awk '$1 == "rewrote" {print $2}' "$TMPD/$name.out"); do
		db_list "$orig" "$ino" > "$TMPD/db.orig"
		db_list "$new" "$ino" > "$TMPD/db.new"
		[ -s "$TMPD/db.orig" ] || fail "$name: xfs_db lists nothing in directory $ino"
		! grep -q '^BAD' "$TMPD/db.new" || fail "$name: xfs_db: bad entries in $ino: $(grep '^BAD' "$TMPD/db.new" | head -5)"
		diff "$TMPD/db.orig" "$TMPD/db.new" > "$TMPD/db.diff" ||
			fail "$name: directory $ino lists differently in xfs_db: $(head -10 "$TMPD/db.diff")"
	done
	echo "ok: $name: xfs_repair -n clean, xfs_db lists every directory as before"

	if kernel_list "$orig" "$TMPD/k.orig"; then
		kernel_list "$new" "$TMPD/k.new" || fail "$name: the kernel cannot mount the rewritten image"
		cmp -s "$TMPD/k.orig" "$TMPD/k.new" ||
			fail "$name: the kernel lists the tree differently: $(diff "$TMPD/k.orig" "$TMPD/k.new" | head -10)"
		kernel_checked=$((kernel_checked + 1))
		echo "ok: $name: the kernel lists $(grep -c . "$TMPD/k.new") lines as before"
	else
		echo "note: $name: not mounted (not root, or the kernel does not mount it)"
	fi
	rm -f "$orig" "$new"
done
[ $kernel_checked -gt 0 ] || echo "note: the kernel checked no image"
exit 0
