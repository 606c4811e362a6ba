#!/bin/sh
# tests/oracle/log_dirty.sh - clearing a dirty log, as xfs_repair -L does,
# judged by xfs_repair -n and the kernel.  Needs root and loop mounts (skips
# otherwise).
#
# A copy of a corpus image is mounted, given a few files, synced and frozen
# (so every change so far is in place), then touched (a transaction only the
# log holds) and shut down with the log flushed: a dirty log.  xfs_repair -n
# and our analyzer must call it dirty.  The log is cleared (and, as a repair
# dropping a log must, the primary's summary counters rewritten); then
# xfs_repair -n exits 0, the kernel mounts the result read-only with the
# files' contents intact, and a read-write mount that writes and unmounts
# leaves it clean (the kernel continued from our cycle).
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool xfs_io
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_REPAIR"
XRWRITE="$top_builddir/tests/tools/xrwrite"
[ -x "$XRWRITE" ] || fail "$XRWRITE is not built"
[ "$(id -u)" = 0 ] || skip "mounting needs root"

mnt="$TMPD/mnt"
mkdir -p "$mnt"
trap 'rc=$?; umount "$mnt" 2>/dev/null
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

for name in v5-normap v5-4ksect; do
	img=$(corpus_image "$name")
	dirty="$TMPD/$name.dirty.img"
	mv "$img" "$dirty"
	mount -o loop "$dirty" "$mnt" 2> "$TMPD/mount.txt" ||
		skip "cannot loop-mount here: $(cat "$TMPD/mount.txt")"
	for i in 1 2 3; do
		echo "$name file $i" > "$mnt/xr$i" || fail "$name: cannot write"
	done
	sync
	xfs_io -x -c freeze -c thaw "$mnt" || fail "$name: freeze/thaw failed"
	touch "$mnt/xr1" "$mnt/xr2"
	xfs_io -x -c 'shutdown -f' "$mnt" || fail "$name: shutdown failed"
	umount "$mnt" || fail "$name: umount failed"

	if "$XFS_REPAIR" -n "$dirty" > /dev/null 2>&1; then
		fail "$name: xfs_repair -n accepts the log we made dirty"
	fi
	out="$TMPD/$name.clean.img"
	"$XRWRITE" log "$dirty" "$out" auto counters > "$TMPD/xr.txt" || fail "$name: log clear failed"
	grep -q '^log_dirty 1$' "$TMPD/xr.txt" || fail "$name: our analyzer calls the log clean"
	"$XFS_REPAIR" -n "$out" > "$TMPD/repair.txt" 2>&1 || {
		cat "$TMPD/xr.txt" "$TMPD/repair.txt" >&2
		fail "$name: xfs_repair -n exits $? after the dirty log was cleared"
	}
	mount -o ro,loop "$out" "$mnt" || fail "$name: the kernel refuses the cleared image"
	for i in 1 2 3; do
		[ "$(cat "$mnt/xr$i")" = "$name file $i" ] || fail "$name: xr$i lost its content"
	done
	umount "$mnt" || fail "$name: umount failed"
	mount -o loop "$out" "$mnt" || fail "$name: read-write mount refused"
	echo more > "$mnt/xr4"
	umount "$mnt" || fail "$name: umount failed"
	"$XFS_REPAIR" -n "$out" > "$TMPD/repair.txt" 2>&1 || {
		cat "$TMPD/repair.txt" >&2
		fail "$name: xfs_repair -n exits $? after the kernel wrote to the cleared log"
	}
	rm -f "$dirty" "$out"
done
exit 0
