#!/bin/sh
# tests/io/mbr.sh - a whole-disk image with an MBR written by sfdisk: a
# primary partition, an extended one holding two logical partitions, and the
# XFS filesystem in logical partition 6.  The table is listed as sfdisk lists
# it (fdisk numbering, logicals from 5), the filesystem is found in the
# logical partition and read as dd reads it, and partitions are chosen by
# number.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/io/io-lib.sh"
need_tool sfdisk

fs="$TMPD/fs.img"
disk="$TMPD/disk.img"
make_fs "$fs"
fs_size=$(stat -c %s "$fs")
fs_sha=$(file_sha "$fs")
truncate -s $((fs_size + 16 * 1048576)) "$disk"
sfdisk -q "$disk" >/dev/null <<END || fail "sfdisk"
label: dos
start=2048, size=8192, type=83
start=10240, type=5
start=12288, size=4096, type=83
start=18432, size=$((fs_size / 512)), type=83
END
set -- $(sfdisk_part "$disk" 6)
p6_start=$(($1 * 512)) p6_size=$(($2 * 512))
[ "$p6_size" -eq "$fs_size" ] || fail "sfdisk made partition 6 of $p6_size bytes"
dd if="$fs" of="$disk" bs=1M oflag=seek_bytes seek="$p6_start" conv=notrunc,sparse 2>/dev/null
pattern 8192 | dd of="$disk" bs=1M oflag=seek_bytes seek=$((12288 * 512 + 5000)) conv=notrunc 2>/dev/null

"$IMGCAT" --list "$disk" > "$TMPD/list" || fail "imgcat --list"
grep -qx "table mbr sector 512 anomalies 0x0 count 4" "$TMPD/list" || fail "table: $(cat "$TMPD/list")"
# flags: 0x8 the extended container, 0x4 logical partitions
for nf in 1:0x0:0x83 2:0x8:0x05 5:0x4:0x83 6:0x4:0x83; do
	n=${nf%%:*} rest=${nf#*:}
	flags=${rest%:*} type=${rest#*:}
	set -- $(sfdisk_part "$disk" "$n")
	[ $# -eq 2 ] || fail "sfdisk does not list partition $n"
	grep -qx "$n start $(($1 * 512)) length $(($2 * 512)) flags $flags type $type name -" "$TMPD/list" ||
		fail "partition $n (sfdisk: $*) listed as: $(grep "^$n " "$TMPD/list")"
done

info=$("$IMGCAT" --info "$disk") || fail "imgcat --info"
expect_info "$info" kind slice
expect_info "$info" size "$fs_size"
[ "$("$IMGCAT" --sha256 "$disk")" = "$fs_sha" ] || fail "sha256 of partition 6"
[ "$("$IMGCAT" --partition 6 --sha256 "$disk")" = "$fs_sha" ] || fail "sha256 of --partition 6"
[ "$(range_sha "$disk" "$p6_start" "$p6_size")" = "$fs_sha" ] || fail "dd of partition 6"
check_ranges "$disk" "$p6_start" "$disk"
check_ranges "$disk" "$p6_start" --cache "$disk"

set -- $(sfdisk_part "$disk" 5)
[ "$("$IMGCAT" --partition 5 --sha256 "$disk")" = "$(range_sha "$disk" $(($1 * 512)) $(($2 * 512)))" ] ||
	fail "sha256 of partition 5"
set -- $(sfdisk_part "$disk" 1)
[ "$("$IMGCAT" --partition 1 --sha256 "$disk")" = "$(range_sha "$disk" $(($1 * 512)) $(($2 * 512)))" ] ||
	fail "sha256 of partition 1"
for n in 3 4 7; do
	"$IMGCAT" --partition $n --info "$disk" 2> "$TMPD/err"
	[ $? -eq 16 ] || fail "partition $n: exit status"
	grep -q "partition $n does not exist" "$TMPD/err" || fail "partition $n: $(cat "$TMPD/err")"
done

# The chain of extended boot records made into a loop: the second EBR's
# link points back at the first.  Partition 5 is still listed once, and the
# loop is reported rather than followed.
cp --sparse=always "$disk" "$TMPD/loop.img"
ext_start=10240
set -- $(sfdisk_part "$disk" 6)
ebr2=$(( $1 - 2048 ))   # sfdisk leaves the EBR 1 MiB before its logical partition
dd if="$TMPD/loop.img" bs=1 skip=$((ebr2 * 512 + 510)) count=2 2>/dev/null | od -An -tx1 |
	grep -q "55 aa" || fail "no EBR at sector $ebr2"
# link entry (second slot): type 5, start relative to the extended partition = 0
printf '\000\000\000\000\005\000\000\000\000\000\000\000\001\000\000\000' |
	dd of="$TMPD/loop.img" bs=1 seek=$((ebr2 * 512 + 446 + 16)) conv=notrunc 2>/dev/null
"$IMGCAT" --list "$TMPD/loop.img" > "$TMPD/list2" || fail "list of the looped chain"
grep -qx "table mbr sector 512 anomalies 0x2 count 4" "$TMPD/list2" ||
	fail "looped chain: $(cat "$TMPD/list2")"
[ "$(grep -c '^5 ' "$TMPD/list2")" -eq 1 ] || fail "partition 5 listed twice"
exit 0
