#!/bin/sh
# tests/oracle/sb_write.sh - superblock writers (reconstruct/sb_write.c),
# judged by xfs_repair -n, xfs_db and the kernel.
#
# (a) The primary superblock of a corpus image copy is zeroed; the analyzer
#     must fall back to the vote of the secondaries, and the primary rebuilt
#     from it must pass xfs_repair -n, print the same geometry, identity,
#     features, root and realtime inodes and counters as the original
#     (versionnum but the ATTR bit, which mkfs's copies lack), pass our own
#     check, and mount read-only (as root, where loop mounts work).
# (b) A secondary's geometry is damaged with xfs_db; rewriting the
#     secondaries from the primary makes xfs_repair -n clean again.
# (c) Rewriting every superblock of a clean image keeps it clean.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_DB"
need_tool "$XFS_REPAIR"
XRWRITE="$top_builddir/tests/tools/xrwrite"
[ -x "$XRWRITE" ] || fail "$XRWRITE is not built"

mnt="$TMPD/mnt"
trap 'rc=$?; if [ -d "$mnt" ]; then umount "$mnt" 2>/dev/null; fi
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

repair_clean() {
	"$XFS_REPAIR" -n "$1" > "$TMPD/repair.txt" 2>&1 || {
		cat "$TMPD/repair.txt" >&2
		fail "$2: xfs_repair -n exits $?"
	}
}

# sb_fields IMG AG: the fields that must survive a rebuild, one a line
sb_fields() {
	"$XFS_DB" -r -c "sb $2" -c 'p uuid meta_uuid blocksize dblocks rblocks rextents
		logstart rootino rbmino rsumino rextsize agblocks agcount rbmblocks logblocks
		sectsize inodesize inopblock fname blocklog sectlog inodelog inopblog agblklog
		imax_pct icount ifree fdblocks frextents inoalignmt unit width dirblklog
		logsectlog logsectsize logsunit features2 bad_features2 features_compat
		features_ro_compat features_incompat features_log_incompat spino_align' "$1"
	_v=$("$XFS_DB" -r -c "sb $2" -c 'p versionnum' "$1" | sed 's/.* = //')
	printf 'versionnum w/o ATTR = 0x%x\n' $((_v & 0xffef))
}

can_mount=0
if [ "$(id -u)" = 0 ] && command -v mount >/dev/null 2>&1; then
	mkdir -p "$mnt"
	can_mount=1
fi

for name in v5-normap v4 v5-4ksect v5-1k; do
	img=$(corpus_image "$name")
	sectsize=$("$XFS_DB" -r -c 'sb 0' -c 'p sectsize' "$img" | sed 's/.* = //')

	# (a) primary destroyed, rebuilt from the vote
	dmg="$TMPD/$name.nosb.img"
	cp --sparse=always "$img" "$dmg"
	dd if=/dev/zero of="$dmg" bs="$sectsize" count=1 conv=notrunc status=none
	if "$XFS_REPAIR" -n "$dmg" > /dev/null 2>&1; then
		fail "$name: xfs_repair -n accepts a zeroed primary superblock"
	fi
	out="$TMPD/$name.sb.img"
	"$XRWRITE" sb "$dmg" "$out" primary > "$TMPD/xr.txt" || fail "$name: sb primary failed"
	grep -q '^geom_source vote$' "$TMPD/xr.txt" || fail "$name: geometry not from the vote"
	repair_clean "$out" "$name: rebuilt primary"
	sb_fields "$img" 0 > "$TMPD/want.txt"
	sb_fields "$out" 0 > "$TMPD/got.txt"
	diff "$TMPD/want.txt" "$TMPD/got.txt" || fail "$name: rebuilt primary differs (want got)"
	"$XFSRECON" check "$out" > "$TMPD/check.txt" 2>&1 || {
		cat "$TMPD/check.txt" >&2
		fail "$name: our check finds problems in the rebuilt image"
	}
	if [ $can_mount = 1 ] && [ "$name" != v4 ]; then
		if mount -o ro,loop "$out" "$mnt" 2> "$TMPD/mount.txt"; then
			ls "$mnt" > /dev/null || fail "$name: cannot list the mounted root"
			umount "$mnt" || fail "$name: umount failed"
		else
			echo "note: $name: cannot loop-mount here: $(cat "$TMPD/mount.txt")" >&2
			can_mount=0
		fi
	fi
	rm -f "$dmg" "$out"

	# (b) a secondary's geometry damaged, secondaries rewritten
	dmg="$TMPD/$name.badsec.img"
	cp --sparse=always "$img" "$dmg"
	"$XFS_DB" -x -c 'sb 2' -c 'write -d agblocks 12345' -c 'sb 3' \
		-c 'write -d dblocks 1' "$dmg" > /dev/null 2>&1 || fail "$name: xfs_db write failed"
	if "$XFS_REPAIR" -n "$dmg" > /dev/null 2>&1; then
		fail "$name: xfs_repair -n accepts damaged secondaries"
	fi
	"$XRWRITE" sb "$dmg" "$out" secondaries > "$TMPD/xr.txt" ||
		fail "$name: sb secondaries failed"
	grep -q '^geom_source primary$' "$TMPD/xr.txt" || fail "$name: geometry not from the primary"
	repair_clean "$out" "$name: rewritten secondaries"
	for ag in 2 3; do
		for f in agblocks dblocks; do
			a=$("$XFS_DB" -r -c "sb $ag" -c "p $f" "$img")
			b=$("$XFS_DB" -r -c "sb $ag" -c "p $f" "$out")
			[ "$a" = "$b" ] || fail "$name: sb $ag: $b, want $a"
		done
	done
	rm -f "$dmg" "$out"

	# (c) every superblock rewritten on a clean image
	"$XRWRITE" sb "$img" "$out" all > "$TMPD/xr.txt" || fail "$name: sb all failed"
	repair_clean "$out" "$name: all superblocks rewritten"
	sb_fields "$img" 0 > "$TMPD/want.txt"
	sb_fields "$out" 0 > "$TMPD/got.txt"
	diff "$TMPD/want.txt" "$TMPD/got.txt" || fail "$name: rewritten primary differs (want got)"
	rm -f "$out" "$img"
done
exit 0
