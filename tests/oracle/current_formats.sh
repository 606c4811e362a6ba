#!/bin/sh
# tests/oracle/current_formats.sh - filesystems made by mkfs.xfs 6.13 and
# populated by the kernel read as the kernel and xfs_db 6.13 read them.
#
# Three images (tests/tools/xfsprogs-current.sh builds xfsprogs 6.13):
# mkfs 6.13's defaults (rmapbt, reflink, nrext64, bigtime, inobtcount,
# exchange-range); parent pointers (-n parent=1); a metadata directory tree
# (-m metadir=1).  Each is populated through a loop mount (directories of
# every form, a hard link, symlinks, a sparse file, an xattr), then:
#   - xfs_repair 6.13 -n and our check find nothing;
#   - ls -R gives the kernel's names, and extract the kernel's bytes
#     (SHA-256 of every regular file);
#   - fsmap --xfs-db equals xfs_db 6.13's fsmap;
#   - on the metadir image, repair finds nothing to do and OUT is its copy;
#   - realtime sections made by mkfs.xfs 6.13 (classic, and realtime groups
#     under a metadir tree): xfs_repair 6.13 -n and our check find nothing.
# Needs root and loop mounts; skipped without them or without xfsprogs 6.13.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
LC_ALL=C
export LC_ALL
cur=$(sh "$top_srcdir/tests/tools/xfsprogs-current.sh" 2> "$TMPD/cur.err") &&
	[ -x "$cur/mkfs.xfs" ] || skip "xfsprogs 6.13 cannot be had: $(tail -1 "$TMPD/cur.err")"
X=$XFSRECON
mnt=$TMPD/mnt
mkdir -p "$mnt"

populate() {
	mkdir -p "$mnt/sf" "$mnt/blk" "$mnt/leaf/deep/er"
	for i in 1 2 3; do echo "short $i" > "$mnt/sf/s$i"; done
	i=0
	while [ $i -lt 40 ]; do echo "block $i" > "$mnt/blk/entry-$i"; i=$((i + 1)); done
	(cd "$mnt/leaf" && awk 'BEGIN { for (i = 0; i < 300; i++) print "a-leaf-directory-entry-" i }' | xargs touch)
	head -c 300000 /dev/urandom > "$mnt/leaf/deep/er/random"
	ln "$mnt/blk/entry-1" "$mnt/sf/hardlink"
	ln -s ../blk/entry-2 "$mnt/sf/symlink"
	truncate -s 10M "$mnt/sparse" && echo tail >> "$mnt/sparse"
	if command -v setfattr > /dev/null 2>&1; then
		setfattr -n user.colour -v blue "$mnt/blk/entry-3"
	fi
}

for kind in defaults parent metadir; do
	img=$TMPD/$kind.img
	case $kind in
	defaults) opts="" ;;
	parent) opts="-n parent=1" ;;
	metadir) opts="-m metadir=1" ;;
	esac
	truncate -s 512M "$img"
	# shellcheck disable=SC2086
	"$cur/mkfs.xfs" -q -f $opts "$img" > "$TMPD/mkfs" 2>&1 || fail "$kind: mkfs.xfs 6.13 $opts: $(cat "$TMPD/mkfs")"
	mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount a $kind image"
	populate
	umount "$mnt" || fail "umount"
	"$cur/xfs_repair" -n "$img" > "$TMPD/xrn" 2>&1 || fail "$kind: xfs_repair 6.13 -n: $(tail -3 "$TMPD/xrn")"
	"$X" check "$img" > "$TMPD/chk" 2>&1 ||
		fail "$kind: check reports: $(grep -v '^info' "$TMPD/chk" | head -5)"

	mount -o ro,loop,nouuid "$img" "$mnt" || fail "$kind: cannot mount read-only"
	(cd "$mnt" && find . -mindepth 1 | sed 's|^\.||' | sort) > "$TMPD/k.names"
	(cd "$mnt" && find . -type f -exec sha256sum {} + | sed 's| \./| /|' | sort -k2) > "$TMPD/k.sums"
	umount "$mnt"
	"$X" ls -R "$img" / | sort > "$TMPD/o.names" || fail "$kind: ls -R"
	diff "$TMPD/k.names" "$TMPD/o.names" > "$TMPD/d" || fail "$kind: ls -R differs from the kernel: $(head -5 "$TMPD/d")"
	rm -rf "$TMPD/x" && mkdir "$TMPD/x"
	"$X" extract "$img" / -C "$TMPD/x" > "$TMPD/ext" 2>&1 || fail "$kind: extract: $(tail -3 "$TMPD/ext")"
	(cd "$TMPD/x" && find . -type f -exec sha256sum {} + | sed 's| \./| /|' | sort -k2) > "$TMPD/o.sums"
	diff "$TMPD/k.sums" "$TMPD/o.sums" > "$TMPD/d" ||
		fail "$kind: extracted bytes differ from the kernel's: $(head -5 "$TMPD/d")"

	"$X" fsmap --xfs-db "$img" > "$TMPD/o.fsmap" 2>&1 || fail "$kind: fsmap"
	"$cur/xfs_db" -r -c fsmap "$img" > "$TMPD/t.fsmap" 2>&1 || fail "$kind: xfs_db fsmap"
	diff "$TMPD/t.fsmap" "$TMPD/o.fsmap" > "$TMPD/d" ||
		fail "$kind: fsmap differs from xfs_db 6.13: $(head -5 "$TMPD/d")"
	echo "$kind: $(wc -l < "$TMPD/k.names") names, $(wc -l < "$TMPD/k.sums") files, $(wc -l < "$TMPD/t.fsmap") fsmap records agree"
done

# Realtime sections (this kernel mounts none: made by mkfs.xfs 6.13 alone):
# classic, and realtime groups under a metadir tree.  Both tools find
# nothing; the realtime files' data and metadata are not read yet.
for kind in rt-classic rt-groups; do
	img=$TMPD/$kind.img
	rt=$TMPD/$kind.rt
	truncate -s 512M "$img"
	truncate -s 256M "$rt"
	case $kind in
	rt-classic) opts="-r rtdev=$rt" ;;
	rt-groups) opts="-m metadir=1 -r rtdev=$rt,rgcount=4" ;;
	esac
	# shellcheck disable=SC2086
	"$cur/mkfs.xfs" -q -f $opts "$img" > "$TMPD/mkfs" 2>&1 || fail "$kind: mkfs.xfs 6.13 $opts: $(cat "$TMPD/mkfs")"
	"$cur/xfs_repair" -n -r "$rt" "$img" > "$TMPD/xrn" 2>&1 ||
		fail "$kind: xfs_repair 6.13 -n: $(tail -3 "$TMPD/xrn")"
	"$X" check "$img" > "$TMPD/chk" 2>&1 ||
		fail "$kind: check reports: $(grep -v '^info' "$TMPD/chk" | head -5)"
	echo "$kind: clean for both"
done

# metadir: nothing to repair, so OUT is the image byte for byte (the damaged
# cases are tests/repair/metadir_repair.sh's)
"$X" repair "$TMPD/metadir.img" -o "$TMPD/out.img" > "$TMPD/rep" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "repair of the clean metadir image exits $rc: $(tail -2 "$TMPD/rep")"
cmp -s "$TMPD/metadir.img" "$TMPD/out.img" || fail "repair of the clean metadir image changed it"
exit 0
