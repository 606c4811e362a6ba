#!/bin/sh
# tests/repair/apply_deleted_loop.sh - apply refuses a mounted filesystem
# whatever name its image file has now.
#
# A corrupted image (repair case agi3-unlinked, which the kernel still
# mounts) is planned, then:
#   - mounted from M.img; A.img is a second hard link; M.img is removed (the
#     loop device's backing_file now reads "... (deleted)");
#   - mounted from "S.img " (a name ending in a space); B.img is a second
#     hard link;
# and `apply P A.img` and `apply P B.img` must exit 4 saying the image is
# mounted or in use, and leave the images unchanged (SHA-256).  After the
# unmounts, `apply P A.img` exits 0 (the refusal was the mount's).
# Needs root, losetup and a kernel that mounts the image: skipped (77)
# otherwise.  The mounts are released by the exit trap.
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
X=$XFSRECON
SCR=$TMPD
m1=$SCR/m1
m2=$SCR/m2
trap 'rc=$?; for m in "$m1" "$m2"; do mountpoint -q "$m" 2> /dev/null && umount "$m"; done
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

zstd -q -d -f -o "$SCR/base.img" "$top_srcdir/corpus/images/v5-rmap-reflink.img.zst" ||
	fail "cannot decompress the corpus image"
sh "$top_srcdir/tests/repair/make-case.sh" agi3-unlinked "$SCR/base.img" "$SCR/M.img" \
	< /dev/null > "$SCR/mk" 2>&1 || fail "cannot make the case: $(cat "$SCR/mk")"
rm -f "$SCR/base.img"
cp --sparse=always "$SCR/M.img" "$SCR/S.img " || fail "cannot copy the case"
"$X" plan "$SCR/M.img" -o "$SCR/p.plan" > /dev/null 2>&1
rc=$?
[ $rc -eq 1 ] || fail "plan exits $rc"

mkdir -p "$m1" "$m2"
mount -o loop,ro,nouuid "$SCR/M.img" "$m1" > /dev/null 2>&1 || skip "the kernel does not mount the image here"
mount -o loop,ro,nouuid "$SCR/S.img " "$m2" > /dev/null 2>&1 || fail "cannot mount the second image"
ln "$SCR/M.img" "$SCR/A.img" || fail "cannot link"
ln "$SCR/S.img " "$SCR/B.img" || fail "cannot link"
rm -f "$SCR/M.img"
ha=$(file_sha "$SCR/A.img")
hb=$(file_sha "$SCR/B.img")
nfail=0
for t in A B; do
	"$X" apply "$SCR/p.plan" "$SCR/$t.img" > "$SCR/out" 2>&1
	rc=$?
	if [ $rc -ne 4 ] || ! grep -q 'mounted or in use' "$SCR/out"; then
		echo "FAIL: apply on $t.img (behind a mounted loop device) exits $rc: $(cat "$SCR/out")" >&2
		nfail=$((nfail + 1))
	fi
done
umount "$m1" || fail "cannot unmount"
umount "$m2" || fail "cannot unmount"
[ "$(file_sha "$SCR/A.img")" = "$ha" ] || fail "the mounted filesystem behind a deleted name was written"
[ "$(file_sha "$SCR/B.img")" = "$hb" ] || fail "the mounted filesystem behind a name ending in a space was written"
[ $nfail -eq 0 ] || fail "$nfail refusals missing"
"$X" apply "$SCR/p.plan" "$SCR/A.img" > "$SCR/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "apply after the unmount exits $rc: $(cat "$SCR/out")"
exit 0
