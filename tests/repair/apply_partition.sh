#!/bin/sh
# tests/repair/apply_partition.sh - plan and apply on a whole-disk image.
#
# A corrupted filesystem C (repair case agi3-unlinked of v5-rmap-reflink) is
# put in partition 2 of a GPT disk image D (made by sfdisk; partitions 1 and
# 3 hold a byte pattern).  The oracle is `repair C -o R`, the filesystem
# alone:
#   - `plan D -o P` finds the partition by itself; `apply P` on a copy of D
#     (found by itself too) leaves partition 2 byte-identical to R, the rest
#     of the disk untouched, and xfs_repair -n calls the partition clean;
#     `undo` gives D back byte for byte;
#   - `apply --partition 2` and `apply --offset START` do the same;
#   - `apply --partition 1` (no XFS there), `--partition 9` (no such
#     partition) and `--offset 0` (the GPT, not the filesystem) are refused
#     with the copy's SHA-256 unchanged;
#   - the plan of C alone applies to D's partition just the same.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool sha256sum
need_tool sfdisk
need_tool dd
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_DB"
need_tool "$XFS_REPAIR"
export XFS_DB XFS_REPAIR
X=$XFSRECON

SCR=$TMPD
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	SCR=$(mktemp -d /dev/shm/xfsrecon-apply_partition.XXXXXX) || SCR=$TMPD
fi
trap 'rc=$?; [ "$SCR" = "$TMPD" ] || rm -rf "$SCR"
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

zstd -q -d -f -o "$SCR/base.img" "$top_srcdir/corpus/images/v5-rmap-reflink.img.zst" ||
	fail "cannot decompress the corpus image"
sh "$top_srcdir/tests/repair/make-case.sh" agi3-unlinked "$SCR/base.img" "$SCR/c.img" \
	< /dev/null > "$SCR/mk" 2>&1 || fail "cannot make the case: $(cat "$SCR/mk")"
rm -f "$SCR/base.img"
C=$SCR/c.img
fs_size=$(stat -c %s "$C")

# The oracle: the filesystem alone, repaired.
"$X" repair -q "$C" -o "$SCR/r.img" > /dev/null 2>&1
rc=$?
[ $rc -eq 1 ] || fail "repair of the case exited $rc (expected 1: changes made)"
want=$(file_sha "$SCR/r.img")

# D: GPT, partition 2 = C.
D=$SCR/d.img
truncate -s $((fs_size + 12 * 1048576)) "$D"
sfdisk -q "$D" > /dev/null <<END || fail "sfdisk"
label: gpt
start=2048, size=8192, name=boot
start=10240, size=$((fs_size / 512)), type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=data
size=4096, name=tail
END
p2=$((10240 * 512))
dd if="$C" of="$D" bs=1M oflag=seek_bytes seek="$p2" conv=notrunc,sparse 2>/dev/null ||
	fail "dd of the filesystem into the disk"
seq 1 400000 | head -c 1000000 | dd of="$D" bs=1M oflag=seek_bytes seek=$((2048 * 512)) \
	conv=notrunc 2>/dev/null
seq 7 400000 | head -c 1000000 | dd of="$D" bs=1M oflag=seek_bytes seek=$((p2 + fs_size)) \
	conv=notrunc 2>/dev/null
d_sha=$(file_sha "$D")
head_sha=$(range_sha "$D" 0 "$p2")
tail_sha=$(range_sha "$D" $((p2 + fs_size)) $((12 * 1048576 - 10240 * 512)))

"$X" plan -q "$D" -o "$SCR/p.plan" > /dev/null 2>&1
rc=$?
[ $rc -eq 1 ] || fail "plan of the disk exited $rc"
"$X" plan -q "$C" -o "$SCR/pc.plan" > /dev/null 2>&1
rc=$?
[ $rc -eq 1 ] || fail "plan of the filesystem alone exited $rc"

# apply_ok NAME PLAN [OPTION...]: apply on a fresh copy of D, judged.
apply_ok() {
	name=$1 plan=$2
	shift 2
	cp --sparse=always "$D" "$SCR/t.img"
	rm -f "$SCR/u.undo"
	"$X" apply "$@" --undo "$SCR/u.undo" "$plan" "$SCR/t.img" > "$SCR/out" 2>&1 ||
		fail "$name: apply exited $?: $(cat "$SCR/out")"
	[ "$(range_sha "$SCR/t.img" "$p2" "$fs_size")" = "$want" ] ||
		fail "$name: partition 2 differs from repair -o"
	[ "$(range_sha "$SCR/t.img" 0 "$p2")" = "$head_sha" ] ||
		fail "$name: bytes before the partition changed"
	[ "$(range_sha "$SCR/t.img" $((p2 + fs_size)) $((12 * 1048576 - 10240 * 512)))" = \
		"$tail_sha" ] || fail "$name: bytes after the partition changed"
	"$X" undo "$@" "$SCR/u.undo" "$SCR/t.img" > "$SCR/out" 2>&1 ||
		fail "$name: undo exited $?: $(cat "$SCR/out")"
	[ "$(file_sha "$SCR/t.img")" = "$d_sha" ] || fail "$name: undo did not give the disk back"
}

# apply_refused NAME EXPECTED-EXIT [OPTION...]: nothing written.
apply_refused() {
	name=$1 want_rc=$2
	shift 2
	cp --sparse=always "$D" "$SCR/t.img"
	"$X" apply "$@" "$SCR/p.plan" "$SCR/t.img" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq "$want_rc" ] || fail "$name: apply exited $rc, not $want_rc: $(cat "$SCR/out")"
	[ "$(file_sha "$SCR/t.img")" = "$d_sha" ] || fail "$name: the refused apply wrote"
}

apply_ok "found by itself" "$SCR/p.plan"
grep -q "^target: partition 2 of .*, the filesystem at byte $p2\$" "$SCR/out" ||
	fail "undo did not say where it found the filesystem: $(cat "$SCR/out")"
apply_ok "--partition 2" "$SCR/p.plan" --partition 2
apply_ok "--offset" "$SCR/p.plan" --offset "$p2"
apply_ok "plan of the filesystem alone" "$SCR/pc.plan"
apply_refused "--partition 1" 4 --partition 1
apply_refused "--partition 9" 16 --partition 9
apply_refused "--offset 0" 4 --offset 0

# The external judge: the applied partition (before its undo) is clean.
cp --sparse=always "$D" "$SCR/t.img"
"$X" apply "$SCR/p.plan" "$SCR/t.img" > /dev/null 2>&1 || fail "apply for xfs_repair"
dd if="$SCR/t.img" of="$SCR/part.img" bs=1M iflag=skip_bytes,count_bytes skip="$p2" \
	count="$fs_size" conv=sparse 2>/dev/null
"$XFS_REPAIR" -n "$SCR/part.img" > "$SCR/xr" 2>&1 ||
	fail "xfs_repair -n on the applied partition: $(tail -5 "$SCR/xr")"
echo "apply on a whole-disk image: found, --partition, --offset, undo, refusals: ok"
