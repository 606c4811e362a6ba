#!/bin/sh
# tests/repair/bigblock_start_zeroed.sh - the first MiB of a filesystem with
# 64 KiB blocks zeroed.
#
# A block of 64 KiB holds 128 inodes of 512 bytes: two inode chunks share
# it, and the kernel verifies all 128 together.  The root's block lies in
# the zeroed MiB with the chunk beside it.  The image is made by the kernel
# (mkfs.xfs -b size=65536, populated through a loop mount), so its log
# still holds the transactions that made the tree.  repair -o OUT must:
#   - exit 1 with OUT clean for xfs_repair -n and mounted by the kernel,
#     every path of it readable (the taken-back block's two chunks written
#     whole: the other chunk's slots as free inodes);
#   - keep strictly more paths at their place than xfs_repair does on a copy
#     (which moves everything to lost+found), and at least 90 % of them.
# Needs root, loop mounts and an XFS kernel that mounts 64 KiB blocks on
# this page size: skipped (77) elsewhere.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
need_tool mkfs.xfs
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_REPAIR"
X=$XFSRECON
S=$TMPD
mnt="$S/mnt"
mkdir -p "$mnt"
trap 'mountpoint -q "$mnt" 2> /dev/null && umount "$mnt"; rm -rf "$TMPD"' EXIT
truncate -s 320M "$S/clean.img"
mkfs.xfs -q -f -b size=65536 "$S/clean.img" || fail "mkfs.xfs failed"
mount -o loop "$S/clean.img" "$mnt" 2> /dev/null || skip "the kernel does not mount 64 KiB blocks here"
mkdir -p "$mnt/short" "$mnt/leaf" "$mnt/node" "$mnt/docs/sub"
i=0
while [ $i -lt 300 ]; do
	echo "$i" > "$mnt/leaf/entry-with-a-longer-name-$i"
	: > "$mnt/node/n$i"
	i=$((i + 1))
done
for i in 1 2 3; do echo "short $i" > "$mnt/short/f$i"; done
dd if=/dev/urandom of="$mnt/docs/sub/blob" bs=64k count=8 status=none
ln -s /etc/passwd "$mnt/docs/link"
umount "$mnt"
"$X" ls -R "$S/clean.img" | sort > "$S/clean.paths" || fail "ls -R of the clean image"

cp --sparse=always "$S/clean.img" "$S/c.img"
dd if=/dev/zero of="$S/c.img" bs=1M count=1 conv=notrunc 2> /dev/null || fail "dd"
"$X" repair "$S/c.img" -o "$S/out.img" > "$S/rep" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "repair exits $rc: $(tail -5 "$S/rep")"
"$XFS_REPAIR" -n "$S/out.img" > "$S/xrn" 2>&1 ||
	fail "xfs_repair -n on OUT: $(grep -v '^ ' "$S/xrn" | grep -v '^Phase' | head -5)"
mount -o loop,ro,nouuid "$S/out.img" "$mnt" 2> "$S/mnt.err" ||
	fail "the kernel does not mount OUT: $(cat "$S/mnt.err")"
find "$mnt" > /dev/null 2> "$S/find.err"
umount "$mnt"
[ ! -s "$S/find.err" ] || fail "walking OUT: $(head -3 "$S/find.err")"

"$X" ls -R "$S/out.img" | sort > "$S/out.paths" || fail "ls -R of OUT"
ours=$(comm -12 "$S/out.paths" "$S/clean.paths" | wc -l)
all=$(wc -l < "$S/clean.paths")
cp --sparse=always "$S/c.img" "$S/x.img"
"$XFS_REPAIR" "$S/x.img" > "$S/xr" 2>&1 || "$XFS_REPAIR" -L "$S/x.img" > "$S/xr" 2>&1
"$X" ls -R "$S/x.img" 2> /dev/null | sort > "$S/x.paths"
theirs=$(comm -12 "$S/x.paths" "$S/clean.paths" | wc -l)
[ "$ours" -gt "$theirs" ] || fail "we keep $ours paths at their place, xfs_repair $theirs"
[ $((ours * 10)) -ge $((all * 9)) ] || fail "only $ours of $all paths at their place"
echo "64 KiB blocks, first MiB zeroed: $ours of $all paths at their place (xfs_repair: $theirs)"
