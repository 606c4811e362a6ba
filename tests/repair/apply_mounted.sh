#!/bin/sh
# tests/repair/apply_mounted.sh - apply refuses a mounted filesystem.
#
# A corrupted image C (repair case agi3-unlinked, which the kernel still
# mounts) is planned, then loop-mounted read-only.  While it is mounted:
#   - `apply P C` (the image file behind the mounted loop device) and
#     `apply P /dev/loopN` (the device, opened O_EXCL) both exit 4, saying
#     it is mounted or in use, and write nothing (C's SHA-256 unchanged);
#   - `apply --dry-run` is refused the same way.
# After the unmount, `apply P C` exits 0 (the refusal was the mount's).
# Needs root, losetup and a kernel that mounts the image: skipped (77)
# otherwise.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool sha256sum
need_tool losetup
need_tool mount
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_DB"
export XFS_DB XFS_REPAIR
[ "$(id -u)" -eq 0 ] || skip "not root: cannot mount"
here=$top_srcdir/tests/repair
X=$XFSRECON

SCR=$TMPD
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	SCR=$(mktemp -d /dev/shm/xfsrecon-apply_mounted.XXXXXX) || SCR=$TMPD
fi
mnt=$SCR/m
trap 'rc=$?; mountpoint -q "$mnt" 2> /dev/null && umount "$mnt"
	[ "$SCR" = "$TMPD" ] || rm -rf "$SCR"
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

zstd -q -d -f -o "$SCR/base.img" "$top_srcdir/corpus/images/v5-rmap-reflink.img.zst" ||
	fail "cannot decompress the corpus image"
sh "$here/make-case.sh" agi3-unlinked "$SCR/base.img" "$SCR/c.img" < /dev/null > "$SCR/mk" 2>&1 ||
	fail "cannot make the case: $(cat "$SCR/mk")"
rm -f "$SCR/base.img"
"$X" plan "$SCR/c.img" -o "$SCR/p.plan" > /dev/null 2>&1
rc=$?
[ $rc -eq 1 ] || fail "plan exits $rc"

mkdir -p "$mnt"
mount -o loop,ro,nouuid "$SCR/c.img" "$mnt" > /dev/null 2>&1 || skip "the kernel does not mount the image here"
loop=$(findmnt -n -o SOURCE "$mnt" 2> /dev/null)
h=$(sha256sum "$SCR/c.img" | cut -c 1-64)
nfail=0
for target in "$SCR/c.img" $loop; do
	for dry in "" --dry-run; do
		# shellcheck disable=SC2086
		"$X" apply $dry "$SCR/p.plan" "$target" > "$SCR/out" 2>&1
		rc=$?
		if [ $rc -ne 4 ]; then
			echo "FAIL: apply $dry on the mounted $target exits $rc: $(cat "$SCR/out")" >&2
			nfail=$((nfail + 1))
		elif ! grep -q 'mounted or in use' "$SCR/out"; then
			echo "FAIL: apply $dry on the mounted $target does not say it is mounted: $(cat "$SCR/out")" >&2
			nfail=$((nfail + 1))
		fi
	done
done
[ -n "$loop" ] || echo "note: the loop device was not found; only the image file was tried"
umount "$mnt" || fail "cannot unmount"
[ "$(sha256sum "$SCR/c.img" | cut -c 1-64)" = "$h" ] || fail "the mounted filesystem's image was written"
[ $nfail -eq 0 ] || fail "$nfail refusals missing"

"$X" apply "$SCR/p.plan" "$SCR/c.img" > "$SCR/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "apply after the unmount exits $rc: $(cat "$SCR/out")"
exit 0
