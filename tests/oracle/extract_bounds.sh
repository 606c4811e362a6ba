#!/bin/sh
# tests/oracle/extract_bounds.sh - a tiny image cannot make extract or cat
# write without bound.
#
# An image is made through the kernel (files of random bytes, written
# zeros, a file sharing its own blocks through reflink), then altered with
# xfs_db: one file's twelve mappings all point at its one 4 MiB run (48 MiB
# of output from 4 MiB of image), and one inode claims 2^63 bytes.  Then:
#   - extract writes the duplicated run once (the blocks the destination
#     allocates stay near 4 MiB, not 48), says so and counts the file as
#     damaged; the written zeros take no blocks; the self-shared file, which
#     the refcountbt vouches for, comes out as the kernel reads it;
#   - --max-bytes stops the run with a clear message and exit 8, and so does
#     a destination too small for the data (before the write fails);
#   - cat of the 2^63-byte inode ends (under timeout) at its last mapped
#     block with exit 8, and extract cuts the file there.
. "$top_srcdir/tests/lib.sh"

need_tool mkfs.xfs
need_tool xfs_db
need_tool xfs_io
need_tool timeout
[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"

img="$TMPD/bounds.img"
mnt="$TMPD/mnt"
small="$TMPD/small"
mkdir -p "$mnt" "$small"
trap 'rc=$?; umount "$mnt" 2>/dev/null; umount "$small" 2>/dev/null
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT
truncate -s 320M "$img"
mkfs.xfs -q -f -m reflink=1 "$img" || fail "mkfs.xfs failed"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount a scratch image"
head -c 4M /dev/urandom > "$mnt/dup"
dd if=/dev/zero of="$mnt/zeros" bs=1M count=4 status=none
printf 'x' > "$mnt/huge"
head -c 1M /dev/urandom > "$mnt/self"
xfs_io -c "reflink $mnt/self 0 1048576 1048576" "$mnt/self" >/dev/null ||
	fail "reflink inside one file failed"
sync
dup_ino=$(stat -c %i "$mnt/dup")
huge_ino=$(stat -c %i "$mnt/huge")
self_sha=$(file_sha "$mnt/self")
dup_sha=$(file_sha "$mnt/dup")
umount "$mnt" || fail "umount failed"

# The 4 MiB file must be one mapping to start from.
bmap=$(xfs_db -r -c "inode $dup_ino" -c bmap "$img")
[ "$(printf '%s\n' "$bmap" | wc -l)" -eq 1 ] || skip "the 4 MiB file is not one extent: $bmap"
sb=$(printf '%s\n' "$bmap" | sed -n 's/.*startblock \([0-9]*\) .*/\1/p')
set -- -x -c "inode $dup_ino" -c "write core.nextents 12" -c "write core.size 50331648"
i=1
while [ $i -lt 12 ]; do
	set -- "$@" -c "write u3.bmx[$i].startoff $((i * 1024))" -c "write u3.bmx[$i].startblock $sb" \
		-c "write u3.bmx[$i].blockcount 1024"
	i=$((i + 1))
done
xfs_db "$@" "$img" >/dev/null || fail "xfs_db could not write the duplicate mappings"
[ "$(xfs_db -r -c "inode $dup_ino" -c bmap "$img" | grep -c "startblock $sb ")" -eq 12 ] ||
	fail "the crafted inode does not map its run twelve times"
# di_size = 2^63: xfs_db's write clamps to 2^63 - 1, so the byte goes in
# directly and xfs_db recomputes the inode's CRC.
off=$(xfs_db -r -c "convert ino $huge_ino byte" "$img" | sed 's/ .*//')
printf '\200\0\0\0\0\0\0\0' | dd of="$img" bs=1 seek=$((off + 56)) conv=notrunc status=none
xfs_db -x -c "inode $huge_ino" -c "crc -r" "$img" >/dev/null
xfs_db -r -c "inode $huge_ino" -c "print core.size" "$img" | grep -q -- '= -9223372036854775808' ||
	fail "the crafted inode does not claim 2^63 bytes"

# extract: the run once, zeros as holes
dest="$TMPD/dest"
mkdir "$dest"
"$XFSRECON" extract "$img" / -C "$dest" > "$TMPD/out" 2> "$TMPD/err"
rc=$?
[ $rc -eq 8 ] || fail "extract of damaged files exited $rc, not 8: $(cat "$TMPD/err")"
kib=$(du -sk "$dest/dup" | cut -f1)
[ "$kib" -le 4200 ] || fail "the twelve-times-mapped 4 MiB run took $kib KiB on the host"
[ "$(stat -c %s "$dest/dup")" -eq 50331648 ] || fail "dup does not have its 48 MiB size"
[ "$(head -c 4194304 "$dest/dup" | sha256sum | cut -d' ' -f1)" = "$dup_sha" ] ||
	fail "the first mapping of dup does not hold the run's bytes"
[ "$(tail -c +4194305 "$dest/dup" | tr -d '\0' | wc -c)" -eq 0 ] ||
	fail "the later mappings of dup are not holes"
grep -q "dup: 11264 blocks are mapped again" "$TMPD/err" || fail "the duplicates are not named: $(cat "$TMPD/err")"
grep -q "2 damaged" "$TMPD/out" || fail "damaged files not counted: $(cat "$TMPD/out")"
grep -q "11264 blocks mapped twice" "$TMPD/out" || fail "duplicate blocks not counted: $(cat "$TMPD/out")"
[ "$(stat -c %b "$dest/zeros")" -eq 0 ] ||
	fail "4 MiB of written zeros took $(stat -c %b "$dest/zeros") blocks on the host"
[ "$(file_sha "$dest/self")" = "$self_sha" ] ||
	fail "the self-shared file differs from the kernel's (the refcountbt says its blocks are shared)"
[ "$(stat -c %s "$dest/huge")" -eq 4096 ] || fail "the 2^63-byte file was not cut at its last block"
grep -q "huge: the size 9223372036854775808 is past the largest" "$TMPD/err" ||
	fail "the impossible size is not named"

# --max-bytes: stops with a clear error
rm -rf "$dest" && mkdir "$dest"
"$XFSRECON" extract --max-bytes 1000000 "$img" / -C "$dest" > "$TMPD/out" 2> "$TMPD/err"
rc=$?
[ $rc -eq 8 ] || fail "extract past --max-bytes exited $rc, not 8"
grep -q "stopped: writing it would pass --max-bytes 1000000" "$TMPD/err" ||
	fail "no clear --max-bytes message: $(cat "$TMPD/err")"
[ "$(du -sk "$dest" | cut -f1)" -le 1100 ] || fail "more than --max-bytes was written"

# a destination too small: stopped before it is full
if mount -t tmpfs -o size=2m tmpfs "$small" 2>/dev/null; then
	"$XFSRECON" extract "$img" /dup -C "$small" > "$TMPD/out" 2> "$TMPD/err"
	rc=$?
	umount "$small"
	[ $rc -eq 8 ] || fail "extract onto a full destination exited $rc, not 8"
	grep -q "stopped: the destination .* bytes free" "$TMPD/err" ||
		fail "no clear free-space message: $(cat "$TMPD/err")"
fi

# cat of a 2^63-byte file ends
timeout 60 "$XFSRECON" cat "$img" "$huge_ino" > "$TMPD/cat" 2> "$TMPD/err"
rc=$?
[ $rc -ne 124 ] || fail "cat of a 2^63-byte file did not end in 60 s"
[ $rc -eq 8 ] || fail "cat of a 2^63-byte file exited $rc, not 8"
[ "$(stat -c %s "$TMPD/cat")" -eq 4096 ] || fail "cat did not stop at the last mapped block"
[ "$(head -c 1 "$TMPD/cat")" = "x" ] || fail "cat lost the file's byte"
grep -q "past the largest an XFS file can have" "$TMPD/err" || fail "cat does not name the damage"
echo "ok: duplicate run written once ($kib KiB), zeros as holes, bounds stop with exit 8, cat ends"
