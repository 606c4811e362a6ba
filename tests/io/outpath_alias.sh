#!/bin/sh
# tests/io/outpath_alias.sh - no output lands on the input through a loop
# device or a mount.
#
# A corrupted image C (repair case agi3-unlinked: repair rewrites part of
# it) and its plan P are each bound to a loop device (LC over C, LP over
# P).  Every one of these must be refused (exit 16, "refusing") and leave C
# and P byte for byte as they were (their SHA-256):
#   repair C -o LC --force           (OUT is a loop device backed by C)
#   repair LC -o C --force           (OUT is the file behind input LC)
#   check C --no-hash --xml LC       (a report onto the input's loop device)
#   map C -o LC --force, plan C -o LC --force, repair C -o R --report LC,
#   show-plan P --xml LP, apply P COPY --undo LP
# Then a host filesystem H (mkfs.xfs) is loop-mounted at M, C copied in as
# M/ev.img, and with LH the loop device under M:
#   check M/ev.img --no-hash --xml LH, map M/ev.img -o LH --force,
#   repair M/ev.img -o LH --force
# must be refused, LH must still start with the XFS magic (read through the
# device while mounted) and xfs_repair -n must find H clean after the
# unmount.
# Needs root, losetup, mount and mkfs.xfs: skipped (77) otherwise.  Loop
# devices and the mount are released by the exit trap.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool sha256sum
need_tool losetup
need_tool mount
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_DB"
need_tool "$XFS_REPAIR"
need_tool mkfs.xfs
export XFS_DB XFS_REPAIR
[ "$(id -u)" -eq 0 ] || skip "not root: cannot use loop devices"
X=$XFSRECON
SCR=$TMPD
mnt=$SCR/m
loops=
trap 'rc=$?; mountpoint -q "$mnt" 2> /dev/null && umount "$mnt"
	for l in $loops; do losetup -d "$l" 2> /dev/null; done
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

# attach FILE: bind a loop device to FILE, name it in $L (skips when none).
attach() {
	L=$(losetup -f --show "$1" 2> /dev/null) || skip "no free loop device"
	loops="$loops $L"
}

zstd -q -d -f -o "$SCR/base.img" "$top_srcdir/corpus/images/v5-rmap-reflink.img.zst" ||
	fail "cannot decompress the corpus image"
sh "$top_srcdir/tests/repair/make-case.sh" agi3-unlinked "$SCR/base.img" "$SCR/c.img" \
	< /dev/null > "$SCR/mk" 2>&1 || fail "cannot make the case: $(cat "$SCR/mk")"
rm -f "$SCR/base.img"
"$X" plan "$SCR/c.img" -o "$SCR/p.plan" > /dev/null 2>&1
rc=$?
[ $rc -eq 1 ] || fail "plan exits $rc"
cp --sparse=always "$SCR/c.img" "$SCR/copy.img" || fail "cannot copy the case"
hc=$(file_sha "$SCR/c.img")
hp=$(file_sha "$SCR/p.plan")
attach "$SCR/c.img"
LC=$L
attach "$SCR/p.plan"
LP=$L

nfail=0
# refused WHAT CMD...: CMD must exit 16 saying it refuses.
refused() {
	_what=$1
	shift
	run_limited 300 "$@" > "$SCR/out" 2>&1 < /dev/null
	_rc=$?
	if [ $_rc -ne 16 ] || ! grep -q 'refusing' "$SCR/out"; then
		echo "FAIL: $_what: exit $_rc, not refused: $(head -c 600 "$SCR/out")" >&2
		nfail=$((nfail + 1))
	fi
}

refused "repair -o onto the input's loop device" "$X" repair "$SCR/c.img" -o "$LC" --force
refused "repair of a loop device -o its backing file" "$X" repair "$LC" -o "$SCR/c.img" --force
refused "check --xml onto the input's loop device" "$X" check "$SCR/c.img" --no-hash --xml "$LC"
refused "map -o onto the input's loop device" "$X" map "$SCR/c.img" -o "$LC" --force
refused "plan -o onto the input's loop device" "$X" plan "$SCR/c.img" -o "$LC" --force
refused "repair --report onto the input's loop device" \
	"$X" repair "$SCR/c.img" -o "$SCR/r.img" --report "$LC"
refused "show-plan --xml onto the plan's loop device" "$X" show-plan "$SCR/p.plan" --xml "$LP"
refused "apply --undo onto the plan's loop device" \
	"$X" apply "$SCR/p.plan" "$SCR/copy.img" --undo "$LP"
[ "$(file_sha "$SCR/c.img")" = "$hc" ] || { echo "FAIL: the input image was written" >&2; nfail=$((nfail + 1)); }
[ "$(file_sha "$SCR/p.plan")" = "$hp" ] || { echo "FAIL: the plan was written" >&2; nfail=$((nfail + 1)); }

# The input inside a mounted filesystem; OUT the device under it.
truncate -s 1G "$SCR/host.img" || fail "cannot make the host image"
mkfs.xfs -q -f "$SCR/host.img" > /dev/null 2>&1 || fail "mkfs.xfs fails"
mkdir -p "$mnt"
mount -o loop "$SCR/host.img" "$mnt" > /dev/null 2>&1 || skip "the kernel does not mount the host image"
LH=$(findmnt -n -o SOURCE "$mnt" 2> /dev/null)
[ -b "$LH" ] || fail "the host's loop device is not found"
cp --sparse=always "$SCR/c.img" "$mnt/ev.img" || fail "cannot copy the case into the host"
refused "check --xml onto the device holding the input" "$X" check "$mnt/ev.img" --no-hash --xml "$LH"
refused "map -o onto the device holding the input" "$X" map "$mnt/ev.img" -o "$LH" --force
refused "repair -o onto the device holding the input" "$X" repair "$mnt/ev.img" -o "$LH" --force
[ "$(head -c 4 "$LH")" = XFSB ] || { echo "FAIL: the host filesystem's superblock was overwritten" >&2; nfail=$((nfail + 1)); }
umount "$mnt" || fail "cannot unmount the host"
"$XFS_REPAIR" -n "$SCR/host.img" > "$SCR/xr" 2>&1 || fail "xfs_repair -n finds the host damaged: $(tail -5 "$SCR/xr")"
[ $nfail -eq 0 ] || fail "$nfail refusals missing"
exit 0
