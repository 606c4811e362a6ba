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

# prepare: the full replay's view and where the last record lies, or 1
# with the reason in $why when the image cannot serve (the recipe's log
# layout depends on timing: such an image is made again).
prepare() {
	dirty="$SCR/imgs/torn.img"
	if ! kernel_replay "$dirty" "$SCR/full.img"; then
		why="the kernel cannot replay the log: $(head -1 "$SCR/mount.err")"
		return 1
	fi
	if ! kernel_view "$SCR/full.img" "$SCR/full"; then
		why="the kernel cannot mount the replayed copy"
		return 1
	fi
	rm -f "$SCR/full.img"
	# Where the log is (512-byte sector of the image), its head, and the
	# last record before the head: its header block and payload length.
	"$XFS_LOGPRINT" -t "$dirty" > "$SCR/lp.t" 2>&1
	"$XFS_LOGPRINT" -d "$dirty" > "$SCR/lp.d" 2>&1
	logstart=$(sed -n 's/.*log device:.*daddr: \([0-9]*\).*/\1/p' "$SCR/lp.t")
	head=$(sed -n 's/.*log tail: [0-9]* head: \([0-9]*\).*/\1/p' "$SCR/lp.t")
	set -- $(awk -v head="$head" '$2 == "HEADER" && $8 + 0 > 0 && $1 + 0 < head + 0 { blk = $1; len = $8 }
		END { print blk, len }' "$SCR/lp.d")
	recblk=${1:-} reclen=${2:-}
	if [ -z "$logstart" ] || [ -z "$head" ] || [ -z "$recblk" ] || [ -z "$reclen" ]; then
		why="cannot find the log's last record with xfs_logprint"
		return 1
	fi
	nbb=$((reclen / 512))
	if [ $((head - nbb - recblk)) -lt 1 ]; then
		why="the last record (block $recblk, $reclen bytes) does not end at the head ($head)"
		return 1
	fi
	mid=$((head - nbb / 2))   # first payload block of the record's second half
	return 0
}

# damage CASE: $SCR/CASE.img, the torn copy, and the kernel's view of it in
# $SCR/k; 1 with the reason in $why when the kernel's replay shows the
# damage changed nothing it should (the case would prove nothing).
damage() {
	img="$SCR/$1.img"
	cp --sparse=always "$dirty" "$img" || hard_error "cannot copy the image"
	case $1 in
	crc)
		printf 'TORN!!!!' | dd of="$img" bs=1 seek=$(((logstart + mid) * 512 + 200)) conv=notrunc 2> /dev/null ;;
	short)
		dd if=/dev/zero of="$img" bs=512 seek=$((logstart + mid)) count=$((head - mid)) conv=notrunc 2> /dev/null ;;
	esac || hard_error "$1: cannot damage the log"

	if ! kernel_replay "$img" "$SCR/kernel.img"; then
		why="$1: the kernel refuses the damaged log: $(head -1 "$SCR/mount.err")"
		return 1
	fi
	if ! kernel_view "$SCR/kernel.img" "$SCR/k"; then
		why="$1: the kernel cannot mount the replayed copy"
		return 1
	fi
	rm -f "$SCR/kernel.img"
	if cmp -s "$SCR/k.long" "$SCR/full.long"; then
		why="$1: the kernel kept the damaged record; the case proves nothing"
		return 1
	fi
	if ! tr '\0' '\n' < "$SCR/k.paths" | grep -qx '/t/first-data'; then
		why="$1: the kernel lost the first checkpoint too"
		return 1
	fi
	if tr '\0' '\n' < "$SCR/k.paths" | grep -q '^/t/second-'; then
		why="$1: the kernel kept part of the second checkpoint"
		return 1
	fi
	return 0
}

# setup: an image on which both damages make their case; made again (up
# to three times in all) when one does not.
tries=1
make_dirty torn
until prepare && damage crc && damage short; do
	[ $tries -lt 3 ] || hard_error "$why (image made $tries times)"
	echo "retry: $why; making the image again"
	tries=$((tries + 1))
	make_dirty torn
done
echo "log at sector $logstart, head $head; last record at $recblk, $nbb payload blocks; damage from block $mid"

total=0
matched=0
for case in crc short; do
	total=$((total + 1))
	before=$(wc -l < "$MISMATCHES")
	damage "$case" || hard_error "$why"

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
