#!/bin/sh
# tests/golden/memory_limit.sh - memory that runs out ends a run with an
# error, never with another verdict or another output.
#
# check (of a clean and of a damaged image) and repair (of the damaged one)
# run under address-space limits (ulimit -v) from the least the program
# loads in up to where everything fits, in 2 MiB steps.  At every limit a
# run either gives exactly what it gives without a limit (the same report,
# the same OUT bytes) or exits 8 saying "out of memory", and then leaves no
# OUT behind; no crash.  The sweep must have met both outcomes, so that it
# crossed the point where memory starts to suffice: every allocation the
# run makes in that range (the cache, the btree walks' and claims' bitmaps,
# the lists the passes keep) fails somewhere in it.  Skipped for a
# sanitizer build (they reserve terabytes of address space) and where the
# shell cannot set the limit.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"
if command -v ldd > /dev/null 2>&1 && ldd "$XFSRECON" 2>/dev/null | grep -q 'lib[at]san\|libubsan'; then
	skip "a sanitizer build cannot run under an address-space limit"
fi
(ulimit -v 1000000) 2>/dev/null || skip "the shell cannot set ulimit -v"

clean=$(corpus_image v5-files)
img=$(corpus_image v5-rmap-reflink)
"$XFS_DB" -x -c 'agf 1' -c 'addr bnoroot' -c 'type data' -c 'write fill 0' \
	-c 'inode 131' -c 'write core.mode 0' "$img" > /dev/null 2>&1 ||
	fail "xfs_db cannot damage the image"

"$XFSRECON" check "$clean" > "$TMPD/clean.ref" 2>&1
"$XFSRECON" check "$img" > "$TMPD/dmg.ref" 2>&1
[ $? -eq 4 ] || fail "the damaged image does not check as damaged: $(tail -n 2 "$TMPD/dmg.ref")"
"$XFSRECON" repair -q "$img" -o "$TMPD/ref.img" > "$TMPD/rep.ref" 2>&1
[ $? -eq 1 ] || fail "repair without a limit: $(tail -n 2 "$TMPD/rep.ref")"

# The least limit (KiB) the program starts under: the binary and its libraries mapped.
floor=8192
while [ $floor -lt 1048576 ]; do
	(ulimit -v $floor && exec "$XFSRECON" --version) > /dev/null 2>&1 && break
	floor=$((floor + 2048))
done
[ $floor -lt 1048576 ] || fail "xfsrecon --version does not start under 1 GiB"

oom=0 same=0
# judge WHAT RC OUT REF: one run's outcome.
judge() {
	if [ "$2" -eq 8 ] && grep -q 'out of memory' "$3"; then
		oom=$((oom + 1))
	elif [ "$2" -ge 128 ]; then
		fail "$1 crashed (exit $2): $(tail -n 3 "$3")"
	elif cmp -s "$3" "$4"; then
		same=$((same + 1))
	else
		fail "$1 ends with another verdict (exit $2): $(diff "$4" "$3" | head -n 5)"
	fi
}

lim=$floor
top=$((floor + 131072))
while [ $lim -le $top ]; do
	(ulimit -v $lim && exec "$XFSRECON" check "$clean") > "$TMPD/out" 2>&1
	judge "check of the clean image under $lim KiB" $? "$TMPD/out" "$TMPD/clean.ref"
	(ulimit -v $lim && exec "$XFSRECON" check "$img") > "$TMPD/out" 2>&1
	judge "check of the damaged image under $lim KiB" $? "$TMPD/out" "$TMPD/dmg.ref"
	rm -f "$TMPD/o.img"
	(ulimit -v $lim && exec "$XFSRECON" repair -q "$img" -o "$TMPD/o.img") > "$TMPD/out" 2>&1
	rc=$?
	if [ $rc -eq 8 ]; then
		[ ! -e "$TMPD/o.img" ] || fail "repair under $lim KiB exits 8 and leaves OUT behind"
		judge "repair under $lim KiB" $rc "$TMPD/out" "$TMPD/rep.ref"
	else
		cmp -s "$TMPD/o.img" "$TMPD/ref.img" ||
			fail "repair under $lim KiB (exit $rc) wrote other bytes: $(tail -n 2 "$TMPD/out")"
		judge "repair under $lim KiB" $rc "$TMPD/out" "$TMPD/rep.ref"
	fi
	lim=$((lim + 2048))
done
[ $oom -gt 0 ] || fail "no run ran out of memory from $floor KiB up: the sweep starts too high"
[ $same -gt 0 ] || fail "no run had enough memory up to $top KiB"
echo "limits $floor to $top KiB: $oom runs out of memory (exit 8), $same as without a limit"
