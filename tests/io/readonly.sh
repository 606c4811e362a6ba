#!/bin/sh
# tests/io/readonly.sh - rule 1: the evidence is never written.  Images
# (a bare filesystem, a whole disk with a GPT, its zstd and seekable
# forms) are made read-only (mode 0444), read completely through ximg_open
# - directly and through the block cache - and must keep their SHA-256 and
# modification time.  As root, mode 0444 stops nothing, so the reads are
# also done as an unprivileged user (where an O_RDWR open would fail) and
# from a read-only loop device (where any write fails), when possible.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/io/io-lib.sh"
need_tool sfdisk

loops=""
trap 'rc=$?; for l in $loops; do losetup -d "$l" 2>/dev/null; done
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then chmod -R u+w "$TMPD"; rm -rf "$TMPD"; fi; exit $rc' EXIT

fs="$TMPD/fs.img"
disk="$TMPD/disk.img"
make_fs "$fs"
fs_size=$(stat -c %s "$fs")
fs_sha=$(file_sha "$fs")
truncate -s $((fs_size + 8 * 1048576)) "$disk"
sfdisk -q "$disk" >/dev/null <<END || fail "sfdisk"
label: gpt
start=4096, size=$((fs_size / 512)), name=xfs
END
dd if="$fs" of="$disk" bs=1M oflag=seek_bytes seek=$((4096 * 512)) conv=notrunc,sparse 2>/dev/null
zstd -q -f "$disk" -o "$disk.zst" || fail "zstd"
"$MKSEEKABLE" -c "$disk" "$disk.szst" || fail "mkseekable"

images="$fs $disk $disk.zst $disk.szst"
for f in $images; do
	chmod 0444 "$f"
	printf '%s %s %s\n' "$f" "$(file_sha "$f")" "$(stat -c %Y.%y "$f")"
done > "$TMPD/before"

for f in $images; do
	[ "$("$IMGCAT" --sha256 "$f")" = "$fs_sha" ] || fail "sha256 through $f"
	[ "$("$IMGCAT" --cache --sha256 "$f")" = "$fs_sha" ] || fail "cached sha256 through $f"
	"$IMGCAT" --list "$f" > /dev/null || fail "imgcat --list $f"
done

# As an unprivileged user, a write open of a 0444 file fails.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$fs"; then
	for f in $images; do
		got=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$IMGCAT" --sha256 "$f") ||
			fail "imgcat as nobody on $f"
		[ "$got" = "$fs_sha" ] || fail "sha256 as nobody through $f"
	done
else
	echo "note: cannot run as an unprivileged user here" >&2
fi

# A read-only loop device: the block device backend, and a partition on it.
if [ "$(id -u)" -eq 0 ] && l=$(losetup -r -f --show "$disk" 2>/dev/null); then
	loops="$loops $l"
	info=$("$IMGCAT" --partition 1 --info "$l") || fail "imgcat on $l"
	expect_info "$info" size "$fs_size"
	[ "$("$IMGCAT" --sha256 "$l")" = "$fs_sha" ] || fail "sha256 through $l"
	if l2=$(losetup -r -f --show "$fs" 2>/dev/null); then
		loops="$loops $l2"
		info=$("$IMGCAT" --info "$l2") || fail "imgcat on $l2"
		expect_info "$info" kind blockdev
		expect_info "$info" size "$fs_size"
		[ "$("$IMGCAT" --cache --sha256 "$l2")" = "$fs_sha" ] || fail "sha256 through $l2"
	fi
else
	echo "note: no read-only loop device here" >&2
fi

for f in $images; do
	printf '%s %s %s\n' "$f" "$(file_sha "$f")" "$(stat -c %Y.%y "$f")"
done > "$TMPD/after"
cmp -s "$TMPD/before" "$TMPD/after" || fail "an image changed: $(diff "$TMPD/before" "$TMPD/after")"
exit 0
