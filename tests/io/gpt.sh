#!/bin/sh
# tests/io/gpt.sh - a whole-disk image with a GPT written by sfdisk and an
# XFS filesystem in partition 2: the partition is found, listed as sfdisk
# lists it, and read byte for byte as dd reads it - raw, through the block
# cache, and zstd-compressed.  Then the damaged cases: primary header
# damaged (the backup is used), both damaged, the disk cut short, and
# 4 KiB logical sectors (through a loop device, when one can be had).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/io/io-lib.sh"
need_tool sfdisk

fs="$TMPD/fs.img"
disk="$TMPD/disk.img"
make_fs "$fs"
fs_size=$(stat -c %s "$fs")
fs_sha=$(file_sha "$fs")
truncate -s $((fs_size + 12 * 1048576)) "$disk"
sfdisk -q "$disk" >/dev/null <<END || fail "sfdisk"
label: gpt
start=2048, size=8192, name=boot
start=10240, size=$((fs_size / 512)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=data
size=4096, name=tail
END
set -- $(sfdisk_part "$disk" 2)
p2_start=$(($1 * 512)) p2_size=$(($2 * 512))
[ "$p2_size" -eq "$fs_size" ] || fail "sfdisk made partition 2 of $p2_size bytes"
dd if="$fs" of="$disk" bs=1M oflag=seek_bytes seek="$p2_start" conv=notrunc,sparse 2>/dev/null
pattern 4096 | dd of="$disk" bs=1M oflag=seek_bytes seek=$((2048 * 512 + 100000)) conv=notrunc 2>/dev/null

# The table, as sfdisk sees it.
"$IMGCAT" --list "$disk" > "$TMPD/list" || fail "imgcat --list"
grep -qx "table gpt sector 512 anomalies 0x0 count 3" "$TMPD/list" || fail "table: $(cat "$TMPD/list")"
for n in 1 2 3; do
	set -- $(sfdisk_part "$disk" $n)
	grep -q "^$n start $(($1 * 512)) length $(($2 * 512)) flags 0x0 " "$TMPD/list" ||
		fail "partition $n (sfdisk: $*) listed as: $(grep "^$n " "$TMPD/list")"
done
grep -q "^2 .* type 0FC63DAF-8483-4772-8E79-3D69D8477DE4 name data$" "$TMPD/list" ||
	fail "partition 2 type/name: $(cat "$TMPD/list")"

# The XFS partition, found by itself.
info=$("$IMGCAT" --info "$disk") || fail "imgcat --info"
expect_info "$info" kind slice
expect_info "$info" size "$fs_size"
[ "$("$IMGCAT" --sha256 "$disk")" = "$fs_sha" ] || fail "sha256 of partition 2"
[ "$(range_sha "$disk" "$p2_start" "$p2_size")" = "$fs_sha" ] || fail "dd of partition 2"
[ "$("$IMGCAT" --cache --sha256 "$disk")" = "$fs_sha" ] || fail "sha256 through the cache"
check_ranges "$disk" "$p2_start" "$disk"
check_ranges "$disk" "$p2_start" --cache "$disk"

# Chosen by number and by offset.
set -- $(sfdisk_part "$disk" 1)
[ "$("$IMGCAT" --partition 1 --sha256 "$disk")" = "$(range_sha "$disk" $(($1 * 512)) $(($2 * 512)))" ] ||
	fail "sha256 of partition 1"
set -- $(sfdisk_part "$disk" 3)
[ "$("$IMGCAT" --partition 3 --sha256 "$disk")" = "$(range_sha "$disk" $(($1 * 512)) $(($2 * 512)))" ] ||
	fail "sha256 of partition 3"
"$IMGCAT" --partition 4 --info "$disk" 2> "$TMPD/err" && fail "partition 4 opened"
grep -q "partition 4 does not exist" "$TMPD/err" || fail "partition 4: $(cat "$TMPD/err")"
info=$("$IMGCAT" --offset "$p2_start" --info "$disk") || fail "--offset"
expect_info "$info" size $(($(stat -c %s "$disk") - p2_start))
check_ranges "$disk" "$p2_start" --offset "$p2_start" "$disk"

# Compressed whole disk: plain zstd and seekable.
zstd -q -f "$disk" -o "$disk.zst" || fail "zstd"
[ "$("$IMGCAT" --sha256 "$disk.zst")" = "$fs_sha" ] || fail "sha256 via plain zstd"
"$MKSEEKABLE" -c "$disk" "$disk.szst" || fail "mkseekable"
[ "$("$IMGCAT" --sha256 "$disk.szst")" = "$fs_sha" ] || fail "sha256 via seekable zstd"
check_ranges "$disk" "$p2_start" "$disk.szst"
rm -f "$disk.zst" "$disk.szst"

# Primary header damaged: the backup at the end of the disk is used.
cp --sparse=always "$disk" "$TMPD/d1.img"
printf '\377' | dd of="$TMPD/d1.img" bs=1 seek=$((512 + 40)) conv=notrunc 2>/dev/null
"$IMGCAT" --list "$TMPD/d1.img" | grep -qx "table gpt sector 512 anomalies 0x1 count 3" ||
	fail "backup GPT not used: $("$IMGCAT" --list "$TMPD/d1.img" 2>&1)"
[ "$("$IMGCAT" --sha256 "$TMPD/d1.img")" = "$fs_sha" ] || fail "sha256 via the backup GPT"
# ... and the backup too: the table is reported damaged.
size=$(stat -c %s "$TMPD/d1.img")
printf '\377' | dd of="$TMPD/d1.img" bs=1 seek=$((size - 512 + 40)) conv=notrunc 2>/dev/null
"$IMGCAT" --info "$TMPD/d1.img" 2> "$TMPD/err"
[ $? -eq 8 ] || fail "both GPT headers damaged: exit status"
grep -q "damaged GPT" "$TMPD/err" || fail "both damaged: $(cat "$TMPD/err")"
rm -f "$TMPD/d1.img"

# The disk cut in the middle of partition 2.
cp --sparse=always "$disk" "$TMPD/cut.img"
truncate -s $((p2_start + fs_size / 2)) "$TMPD/cut.img"
"$IMGCAT" --info "$TMPD/cut.img" 2> "$TMPD/err"
[ $? -eq 8 ] || fail "cut disk: exit status"
grep -q "partition 2 extends beyond the end of the image" "$TMPD/err" || fail "cut: $(cat "$TMPD/err")"
rm -f "$TMPD/cut.img"

# 4 KiB logical sectors: let sfdisk write the table through a loop device
# with 4096-byte sectors.
disk4k="$TMPD/disk4k.img"
truncate -s $((fs_size + 16 * 1048576)) "$disk4k"
loop=$(losetup --sector-size 4096 -f --show "$disk4k" 2>/dev/null) || loop=""
if [ -n "$loop" ]; then
	sfdisk -q "$loop" >/dev/null 2>&1 <<END
label: gpt
start=256, size=1024, name=a
start=2048, size=$((fs_size / 4096)), name=xfs
END
	rc=$?
	losetup -d "$loop"
	[ $rc -eq 0 ] || fail "sfdisk on a 4k loop device"
	dd if="$fs" of="$disk4k" bs=1M oflag=seek_bytes seek=$((2048 * 4096)) conv=notrunc,sparse 2>/dev/null
	"$IMGCAT" --list "$disk4k" | grep -qx "table gpt sector 4096 anomalies 0x0 count 2" ||
		fail "4k GPT: $("$IMGCAT" --list "$disk4k" 2>&1)"
	[ "$("$IMGCAT" --sha256 "$disk4k")" = "$fs_sha" ] || fail "sha256 of the 4k partition"
else
	echo "note: no loop device; 4 KiB-sector GPT not tested" >&2
fi
exit 0
