#!/bin/sh
# tests/log/torn_log.sh - a torn log replays up to its last whole
# transaction, and says so.
#
# The `torn` workload of corpus/recipes/dirty-log.sh leaves two checkpoints
# in the log; the second ends in the log's last record.  That record is
# damaged two ways, each on its own copy:
#   crc    eight bytes in the middle of its payload overwritten (its CRC no
#          longer matches);
#   short  the second half of its payload zeroed, as if the write had
#          stopped half way (the blocks read as never written, cycle 0).
# The kernel, replaying a copy, drops the damaged record (its torn-write
# check at the head) and keeps the first checkpoint: what its read-only
# mount then shows is the expected tree (the test makes sure it lost the
# second checkpoint and kept the first).  Then, as in replay_oracle.sh:
# xfsrecon's ls -R, ls -R -l, extract and cat of the damaged image, and the
# kernel's view of `xfsrecon repair` output (clean for xfs_repair -n), equal
# that tree; and `xfsrecon check` says the log's end was damaged: a line
# naming the log and one of torn, CRC, checksum, short, incomplete,
# truncated, dropped, discarded, stopped, lost, ignored or partial (the
# finding's identifier is not fixed yet).
# Prints "torn logs matched: N of 2" and one line per difference.  Needs root
# and loop mounts (skips otherwise).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/log/log-lib.sh"

make_dirty torn
dirty="$SCR/imgs/torn.img"
kernel_replay "$dirty" "$SCR/full.img" || hard_error "the kernel cannot replay the log: $(head -1 "$SCR/mount.err")"
kernel_view "$SCR/full.img" "$SCR/full" || hard_error "the kernel cannot mount the replayed copy"
rm -f "$SCR/full.img"

# Where the log is (512-byte sector of the image), its head, and the last
# record before the head: its header block and payload length.
"$XFS_LOGPRINT" -t "$dirty" > "$SCR/lp.t" 2>&1
"$XFS_LOGPRINT" -d "$dirty" > "$SCR/lp.d" 2>&1
logstart=$(sed -n 's/.*log device:.*daddr: \([0-9]*\).*/\1/p' "$SCR/lp.t")
head=$(sed -n 's/.*log tail: [0-9]* head: \([0-9]*\).*/\1/p' "$SCR/lp.t")
set -- $(awk -v head="$head" '$2 == "HEADER" && $8 + 0 > 0 && $1 + 0 < head + 0 { blk = $1; len = $8 }
	END { print blk, len }' "$SCR/lp.d")
recblk=${1:-} reclen=${2:-}
[ -n "$logstart" ] && [ -n "$head" ] && [ -n "$recblk" ] && [ -n "$reclen" ] ||
	hard_error "cannot find the log's last record with xfs_logprint"
nbb=$((reclen / 512))
[ $((head - nbb - recblk)) -ge 1 ] ||
	hard_error "the last record (block $recblk, $reclen bytes) does not end at the head ($head)"
mid=$((head - nbb / 2))   # first payload block of the record's second half
echo "log at sector $logstart, head $head; last record at $recblk, $nbb payload blocks; damage from block $mid"

total=0
matched=0
for case in crc short; do
	total=$((total + 1))
	before=$(wc -l < "$MISMATCHES")
	img="$SCR/$case.img"
	cp --sparse=always "$dirty" "$img" || hard_error "cannot copy the image"
	case $case in
	crc)
		printf 'TORN!!!!' | dd of="$img" bs=1 seek=$(((logstart + mid) * 512 + 200)) conv=notrunc 2> /dev/null ;;
	short)
		dd if=/dev/zero of="$img" bs=512 seek=$((logstart + mid)) count=$((head - mid)) conv=notrunc 2> /dev/null ;;
	esac || hard_error "$case: cannot damage the log"

	kernel_replay "$img" "$SCR/kernel.img" ||
		hard_error "$case: the kernel refuses the damaged log: $(head -1 "$SCR/mount.err")"
	kernel_view "$SCR/kernel.img" "$SCR/k" || hard_error "$case: the kernel cannot mount the replayed copy"
	rm -f "$SCR/kernel.img"
	cmp -s "$SCR/k.long" "$SCR/full.long" &&
		hard_error "$case: the kernel kept the damaged record; the case proves nothing"
	tr '\0' '\n' < "$SCR/k.paths" | grep -qx '/t/first-data' ||
		hard_error "$case: the kernel lost the first checkpoint too"
	tr '\0' '\n' < "$SCR/k.paths" | grep -q '^/t/second-' &&
		hard_error "$case: the kernel kept part of the second checkpoint"

	our_view "$img" "$SCR/o"
	compare_views "damaged image" "$SCR/k" "$SCR/o"
	cat_check "$img" "$SCR/k"
	repair_check "$img" "$SCR/k"
	$XR check "$img" > "$SCR/check.out" 2>&1
	grep -i 'log' "$SCR/check.out" |
		grep -qiE 'torn|crc|checksum|short|incomplete|truncat|drop|discard|stop|lost|ignor|partial' ||
		mismatch "$case" "check" "no finding says the end of the log was damaged"

	if [ "$(wc -l < "$MISMATCHES")" -eq "$before" ]; then
		matched=$((matched + 1))
		echo "ok: $case: $(tr -cd '\000' < "$SCR/k.paths" | wc -c) paths, $(wc -l < "$SCR/k.sums") files"
	fi
	rm -f "$img"
done

cat "$MISMATCHES"
echo "torn logs matched: $matched of $total"
[ "$matched" -eq "$total" ] || exit 1
exit 0
