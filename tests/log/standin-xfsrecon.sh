#!/bin/sh
# tests/log/standin-xfsrecon.sh - the kernel's log replay dressed as
# xfsrecon's.
#
# usage: as xfsrecon (COMMAND [OPTIONS] IMAGE [ARGS]); XFSRECON names the
# real program.  Run by the log tests in its place,
#
#     LOG_XFSRECON="sh tests/log/standin-xfsrecon.sh" make check TESTS='tests/log/replay_oracle.sh tests/log/torn_log.sh'
#
# it shows that their judge passes a tool that replays a log exactly as the
# kernel does (every workload and torn log must match), so a difference they
# report about xfsrecon is xfsrecon's.  IMAGE is copied, the kernel mounts
# and unmounts the copy (replaying its log), and then:
#   repair IMAGE -o OUT   OUT is that copy; exit status 1 (repaired);
#   info|check --log-only IMAGE
#                         `xfs_logprint -t IMAGE` (what the log holds);
#   check IMAGE           the real check of the copy, then each message the
#                         kernel gave about the log while it replayed,
#                         prefixed "log: " (a torn write, for one);
#   anything else         the real command on the copy.
# Needs root (loop mounts).
set -u

: "${XFSRECON:?XFSRECON must name the real program}"
XFS_LOGPRINT=${XFS_LOGPRINT:-xfs_logprint}
[ $# -ge 1 ] || exit 16
cmd=$1
shift

# The image: the first argument that is neither an option nor an option's
# value.  The others are kept, in order, to pass on.
img="" out="" logonly=0
n=0
for a in "$@"; do
	n=$((n + 1))
	if [ "${skipnext:-0}" = 1 ]; then
		skipnext=0
		[ "$prev" = "-o" ] && out=$a
		continue
	fi
	case $a in
	-o | -C | --xml | --report | --offset | --partition) skipnext=1; prev=$a ;;
	--log-only) logonly=1 ;;
	-*) ;;
	*) [ -n "$img" ] || { img=$a; imgpos=$n; } ;;
	esac
done
[ -n "$img" ] && [ -f "$img" ] || { echo "standin: no image in: $cmd $*" >&2; exit 16; }

if [ $logonly -eq 1 ]; then
	"$XFS_LOGPRINT" -t "$img"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/xfsrecon-standin.XXXXXX") || exit 8
trap 'umount "$tmp/mnt" 2>/dev/null; [ -n "${dev:-}" ] && losetup -d "$dev" 2>/dev/null; rm -rf "$tmp"' EXIT
copy="$tmp/replayed.img"
[ "$cmd" = repair ] && [ -n "$out" ] && copy=$out
cp --sparse=always "$img" "$copy" || exit 8
mkdir "$tmp/mnt"
dev=$(losetup -f --show "$copy") || exit 8
mount "$dev" "$tmp/mnt" || exit 8
umount "$tmp/mnt" || exit 8
# the kernel's messages about this device since its last mount (the ring
# buffer may be full, so they are found by content, not by count)
dmesg | awk -v tag="XFS ($(basename "$dev")):" 'index($0, tag) {
		if (index($0, tag " Mounting")) n = 0
		msg[++n] = $0
	} END { for (i = 1; i <= n; i++) print msg[i] }' |
	grep -i -e torn -e crc -e recover | sed 's/^\[[^]]*\] //' > "$tmp/kernel.msgs"
losetup -d "$dev"
dev=""

if [ "$cmd" = repair ]; then
	exit 1
fi
# the same arguments, the copy in place of the image
n=0
for a in "$@"; do
	n=$((n + 1))
	[ $n -eq "$imgpos" ] && a=$copy
	set -- "$@" "$a"
done
shift $n
"$XFSRECON" "$cmd" "$@"
rc=$?
if [ "$cmd" = check ]; then
	sed 's/^/log: /' "$tmp/kernel.msgs"
	# A record cut short leaves no kernel message (the head search stops
	# before it); xfs_logprint finds the same head, and the cut record's
	# header, of the head's cycle, lies at or past it.
	head=$("$XFS_LOGPRINT" -t "$img" 2> /dev/null | sed -n 's/.*log tail: [0-9]* head: \([0-9]*\).*/\1/p')
	"$XFS_LOGPRINT" -d "$img" 2> /dev/null | awk -v head="${head:-0}" '
		$2 == "HEADER" && $8 + 0 > 0 && $1 + 0 < head + 0 { cyc = $4 }
		$2 == "HEADER" && $8 + 0 > 0 && $1 + 0 >= head + 0 && $4 == cyc {
			printf "log: the record at block %d is incomplete (cut short) and dropped; replay stops at block %d\n", $1, head
			exit
		}'
fi
exit $rc
