#!/bin/sh
# tests/log/damaged_log.sh - a log damaged before its last records replays
# up to the last good transaction, and says what was kept.
#
# The `records` workload of corpus/recipes/dirty-log.sh leaves about forty
# records in the log, each a checkpoint of its own.  Kernel recovery treats
# a bad record among the last eight before the head (XLOG_MAX_ICLOGS log
# buffers in flight) as a torn write and drops it and what follows; a bad
# record before those cannot be a torn write, and the kernel refuses to
# recover.  Three copies, each damaged one way:
#   crc     the 12th record before the head: eight payload bytes
#           overwritten (its CRC no longer matches);
#   lsn     the same record: its h_lsn set past the end of the log, its CRC
#           recomputed (tests/tools/logrec), so only the LSN is wrong;
#   window  the 5th record before the head: its CRC broken (a torn write
#           by the kernel's rule).
# Oracles:
#   - the kernel: it must refuse to recover crc (a CRC failure outside the
#     torn-write window fails the mount); what it does with lsn is printed
#     (it does not check h_lsn, replays, and then finds metadata stamped
#     with an LSN ahead of the log); it must recover window, dropping the
#     damaged record and the ones after it.
#   - the expected tree of crc and lsn is the kernel's replay of a copy
#     whose log is cut at the damaged record (the blocks from it to the old
#     head zeroed, so the head moves back to it), and the number of
#     transactions kept is what xfs_logprint -t counts in that copy's log;
#     the expected tree of window is the kernel's replay of the damaged copy.
# For each copy: xfsrecon's ls -R, ls -R -l, extract and cat of the damaged
# image equal the expected tree; `xfsrecon repair` writes an image that
# xfs_repair -n calls clean and whose tree equals it; `xfsrecon check`
# reports logDamaged with the kept count (crc, lsn) or logTornHead
# (window), and its XML report says where the walk stopped.
# Prints "damaged logs matched: N of 3" and one line per difference.  Needs
# root and loop mounts (skips otherwise).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/log/log-lib.sh"

LOGREC="$top_builddir/tests/tools/logrec"
[ -x "$LOGREC" ] || hard_error "$LOGREC is not built"

# setup: the log's layout, the cut copy and both kernel views; 1 with the
# reason in $why when the image cannot serve (the recipe's log layout
# depends on timing: such an image is made again, up to three times).
setup() {
	dirty="$SCR/imgs/records.img"

	# The log (first sector, length), head and tail, and the record headers
	# between them (oldest first).
	"$XFS_LOGPRINT" -t "$dirty" > "$SCR/lp.t" 2>&1
	"$XFS_LOGPRINT" -d "$dirty" > "$SCR/lp.d" 2>&1
	logstart=$(sed -n 's/.*log device:.*daddr: \([0-9]*\).*/\1/p' "$SCR/lp.t")
	loglen=$(sed -n 's/.*log device:.*length: \([0-9]*\).*/\1/p' "$SCR/lp.t")
	set -- $(sed -n 's/.*log tail: \([0-9]*\) head: \([0-9]*\).*/\1 \2/p' "$SCR/lp.t")
	tail=${1:-} head=${2:-}
	[ -n "$logstart" ] && [ -n "$loglen" ] && [ -n "$tail" ] && [ -n "$head" ] ||
		{ why="cannot find the log with xfs_logprint"; return 1; }
	# A log that has not wrapped: zeroing its end moves the head back.
	[ "$tail" -lt "$head" ] || { why="the log wraps (tail $tail, head $head)"; return 1; }
	awk -v t="$tail" -v h="$head" '$2 == "HEADER" && $8 + 0 > 0 && $1 + 0 >= t + 0 && $1 + 0 < h + 0 { print $1 }' \
		"$SCR/lp.d" > "$SCR/records"
	nrec=$(wc -l < "$SCR/records")
	[ "$nrec" -ge 20 ] || { why="only $nrec records between tail and head"; return 1; }
	rec_back() { sed -n "$((nrec - $1 + 1))p" "$SCR/records"; }   # the Nth record before the head
	mid=$(rec_back 12)
	near=$(rec_back 5)
	cycle=$(awk -v b="$mid" '$1 == b && $2 == "HEADER" { print $4; exit }' "$SCR/lp.d")
	[ -n "$cycle" ] || { why="no cycle for the record at $mid"; return 1; }
	echo "log at sector $logstart, $loglen blocks; tail $tail, head $head, $nrec records;" \
		"damaged records at $mid (12th before the head) and $near (5th)"

	# The expected state of crc and lsn: the log cut at the damaged record.
	cp --sparse=always "$dirty" "$SCR/cut.img" || { why="cannot copy the image"; return 1; }
	dd if=/dev/zero of="$SCR/cut.img" bs=512 seek=$((logstart + mid)) count=$((head - mid)) \
		conv=notrunc 2> /dev/null || { why="cannot cut the log"; return 1; }
	"$XFS_LOGPRINT" -t "$SCR/cut.img" > "$SCR/cut.lp" 2>&1
	grep -q "log tail: $tail head: $mid " "$SCR/cut.lp" ||
		{ why="the cut copy's head is not at $mid: $(grep 'log tail' "$SCR/cut.lp")"; return 1; }
	kept=$(grep -c '^TRANS' "$SCR/cut.lp")
	kernel_replay "$SCR/cut.img" "$SCR/cut.rep" ||
		{ why="the kernel cannot replay the cut log: $(head -1 "$SCR/mount.err")"; return 1; }
	kernel_view "$SCR/cut.rep" "$SCR/cut" || { why="the kernel cannot mount the replayed cut copy"; return 1; }
	rm -f "$SCR/cut.img" "$SCR/cut.rep"
	kernel_replay "$dirty" "$SCR/full.img" ||
		{ why="the kernel cannot replay the log: $(head -1 "$SCR/mount.err")"; return 1; }
	kernel_view "$SCR/full.img" "$SCR/full" || { why="the kernel cannot mount the replayed copy"; return 1; }
	rm -f "$SCR/full.img"
	# The cut must lose something, and keep something, or the cases prove little.
	cmp -s "$SCR/cut.paths" "$SCR/full.paths" && { why="cutting the log at $mid loses nothing"; return 1; }
	tr '\0' '\n' < "$SCR/cut.paths" | grep -qx '/steps/step-0' || { why="the cut copy lost the first step"; return 1; }
	echo "cut at $mid: $kept transactions kept, $(tr -cd '\000' < "$SCR/cut.paths" | wc -c) of" \
		"$(tr -cd '\000' < "$SCR/full.paths" | wc -c) paths"
	return 0
}

tries=1
make_dirty records
until setup; do
	[ $tries -lt 3 ] || hard_error "$why (image made $tries times)"
	echo "retry: $why; making the image again"
	tries=$((tries + 1))
	make_dirty records
done

total=0
matched=0
for case in crc lsn window; do
	total=$((total + 1))
	before=$(wc -l < "$MISMATCHES")
	img="$SCR/$case.img"
	cp --sparse=always "$dirty" "$img" || hard_error "cannot copy the image"
	case $case in
	crc)
		printf 'DAMAGED!' | dd of="$img" bs=1 seek=$(((logstart + mid + 1) * 512 + 200)) \
			conv=notrunc 2> /dev/null ;;
	lsn)
		"$LOGREC" "$img" "$logstart" "$loglen" "$mid" lsn "$cycle" $((loglen + 1000)) > /dev/null ;;
	window)
		printf 'DAMAGED!' | dd of="$img" bs=1 seek=$(((logstart + near + 1) * 512 + 200)) \
			conv=notrunc 2> /dev/null ;;
	esac || hard_error "$case: cannot damage the log"

	# The kernel's verdict on the damaged copy itself.
	if kernel_replay "$img" "$SCR/kernel.img" && kernel_view "$SCR/kernel.img" "$SCR/k"; then
		verdict="recovers it"
	else
		verdict="refuses it: $(head -1 "$SCR/mount.err")"
	fi
	rm -f "$SCR/kernel.img"
	echo "$case: the kernel $verdict"
	case $case in
	crc)
		[ "$verdict" = "recovers it" ] &&
			mismatch "$case" "kernel" "recovered a log with a bad record before the torn-write window" ;;
	window)
		[ "$verdict" = "recovers it" ] ||
			hard_error "$case: the kernel refuses a torn write in its window ($verdict)"
		cmp -s "$SCR/k.paths" "$SCR/full.paths" &&
			hard_error "$case: the kernel kept the damaged record; the case proves nothing" ;;
	esac
	if [ "$case" = window ]; then
		expect="$SCR/k" at=$near
	else
		expect="$SCR/cut" at=$mid
	fi

	our_view "$img" "$expect.ours"
	compare_views "damaged image" "$expect" "$expect.ours"
	cat_check "$img" "$expect"
	repair_check "$img" "$expect"
	$XR check "$img" --xml "$SCR/check.xml" > "$SCR/check.out" 2>&1
	if [ "$case" = window ]; then
		grep -q '\[logTornHead\].*from LSN '"$cycle/$near"',' "$SCR/check.out" ||
			mismatch "$case" "check" "no logTornHead from LSN $cycle/$near: $(grep -i 'log' "$SCR/check.out" | head -2 | tr '\n' ' ')"
		want_walk=torn-head
	else
		grep -q '\[logDamaged\].* at LSN '"$cycle/$mid"' .* the '"$kept"' transactions committed before it are kept' "$SCR/check.out" ||
			mismatch "$case" "check" "no logDamaged at LSN $cycle/$mid keeping $kept transactions: $(grep -i 'logDamaged' "$SCR/check.out" | head -1)"
		want_walk=damaged
	fi
	stop=$(((cycle << 32) | at))
	grep -q "<log [^>]*walk=\"$want_walk\" stopLsn=\"$stop\"" "$SCR/check.xml" ||
		mismatch "$case" "check --xml" "no walk=\"$want_walk\" stopLsn=\"$stop\": $(grep -o '<log [^>]*>' "$SCR/check.xml")"
	if [ -n "${XMLLINT:-}" ] && command -v "$XMLLINT" > /dev/null 2>&1; then
		"$XMLLINT" --noout --schema "$top_srcdir/doc/report.xsd" "$SCR/check.xml" > "$SCR/lint" 2>&1 ||
			mismatch "$case" "check --xml" "not valid against doc/report.xsd: $(head -1 "$SCR/lint")"
	fi

	if [ "$(wc -l < "$MISMATCHES")" -eq "$before" ]; then
		matched=$((matched + 1))
		echo "ok: $case: $(tr -cd '\000' < "$expect.paths" | wc -c) paths, $(wc -l < "$expect.sums") files"
	fi
	rm -f "$img"
done

cat "$MISMATCHES"
echo "damaged logs matched: $matched of $total"
[ "$matched" -eq "$total" ] || exit 1
exit 0
