#!/bin/sh
# tests/oracle/log_clear.sh - clearing a clean log (reconstruct/log_clear.c),
# judged by xfs_repair -n and xfs_logprint.
#
# Every corpus image was unmounted cleanly.  Rewriting its log as a clean,
# empty log at the cycle the writer picks must keep xfs_repair -n clean (on
# v5 that includes "no metadata LSN ahead of the log"), leave a log our
# analyzer calls clean, and put an unmount record of that cycle at block 0.
# Negative control: on a v5 image, cycle 1 puts the log behind the
# metadata, and xfs_repair -n must say so.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_REPAIR"
XRWRITE="$top_builddir/tests/tools/xrwrite"
[ -x "$XRWRITE" ] || fail "$XRWRITE is not built"

for name in v5-normap v4 v5-4ksect v5-1k v5-rmap-reflink; do
	img=$(corpus_image "$name")
	out="$TMPD/$name.log.img"
	"$XRWRITE" log "$img" "$out" > "$TMPD/xr.txt" || fail "$name: log clear failed"
	grep -q '^log_dirty 0$' "$TMPD/xr.txt" || fail "$name: corpus log not clean?"
	cycle=$(sed -n 's/^cycle //p' "$TMPD/xr.txt")
	"$XFS_REPAIR" -n "$out" > "$TMPD/repair.txt" 2>&1 || {
		cat "$TMPD/repair.txt" >&2
		fail "$name: xfs_repair -n exits $? after the log was cleared to cycle $cycle"
	}
	"$XFSRECON" info "$out" > "$TMPD/info.txt" 2>&1 || fail "$name: info failed"
	grep -q '^log: *clean' "$TMPD/info.txt" || fail "$name: our analyzer calls the log dirty"
	if command -v xfs_logprint > /dev/null 2>&1; then
		xfs_logprint -d "$out" > "$TMPD/logprint.txt" 2>&1 || true
		grep -Eq "^ +0 HEADER Cycle $cycle tail .* ops 1\$" "$TMPD/logprint.txt" ||
			fail "$name: xfs_logprint finds no record of cycle $cycle at block 0"
	fi
	case $name in
	v4) [ "$cycle" = 1 ] || fail "v4: cycle $cycle, want 1 (no metadata LSNs)" ;;
	*)
		# the negative control
		rm -f "$out"
		"$XRWRITE" log "$img" "$out" 1 > /dev/null || fail "$name: log clear to 1 failed"
		if "$XFS_REPAIR" -n "$out" > "$TMPD/repair.txt" 2>&1; then
			fail "$name: xfs_repair -n accepts a log behind the metadata"
		fi
		grep -q 'Maximum metadata LSN' "$TMPD/repair.txt" ||
			fail "$name: xfs_repair -n failed for another reason"
		;;
	esac
	rm -f "$out" "$img"
done
exit 0
