#!/bin/sh
# tests/repair/standin-xfs_repair.sh - xfs_repair dressed as `xfsrecon repair`.
#
# usage: standin-xfs_repair.sh IMAGE -o OUT [--report FILE] [other options ignored]
#
# A stand-in that tests/repair/repair_cases.sh runs in place of `xfsrecon
# repair` (REPAIR_CMD=xfs_repair) to show that the judge passes a good
# repair and fails a bad one: it copies IMAGE to OUT, runs xfs_repair on OUT
# (again with -L when xfs_repair asks for the log to be zeroed), and writes
# a report in the format of doc/repair-report.xsd: the SHA-256 of both
# images, no findings, actions or changes (xfs_repair does not list them),
# and as orphans the inodes xfs_repair said it moved to lost+found, with
# their type and size read back with xfs_db.  Exit status as the repair
# contract: 0 IMAGE was clean (xfs_repair -n), 1 repaired, 4 xfs_repair -n
# still finds problems in OUT, 8 xfs_repair failed, 16 usage.
#
# STANDIN_MODE makes it misbehave on purpose, one way each, so that the
# judge's checks can be seen to fail:
#   copy         OUT is a plain copy of IMAGE; the exit status still says 1
#   touch-input  also writes one byte at the end of IMAGE
#   bad-sha      the report gives IMAGE's SHA-256 as OUT's
#   no-orphans   the report lists no orphans
#   lose-file    deletes one regular file from OUT after the repair (through
#                a loop mount; needs root)
#   hang         sleeps 60 s before doing anything
set -u

XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
XFS_DB=${XFS_DB:-xfs_db}
mode=${STANDIN_MODE:-}
img="" out="" report=""
while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || exit 16; out=$2; shift 2 ;;
	--report) [ $# -ge 2 ] || exit 16; report=$2; shift 2 ;;
	--force | --dry-run | --zero-log | --progress) shift ;;
	-*) echo "standin: unknown option $1" >&2; exit 16 ;;
	*) [ -z "$img" ] || exit 16; img=$1; shift ;;
	esac
done
[ -n "$img" ] && [ -n "$out" ] || { echo "standin: IMAGE and -o OUT are needed" >&2; exit 16; }
[ -r "$img" ] || { echo "standin: cannot read $img" >&2; exit 8; }

[ "$mode" = hang ] && sleep 60

sha_of() {
	if command -v openssl > /dev/null 2>&1; then
		openssl dgst -sha256 -r "$1" | cut -c 1-64
	else
		sha256sum "$1" | cut -c 1-64
	fi
}

# xml_escape: the characters XML attribute values cannot hold as they are
xml_escape() {
	printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'
}

"$XFS_REPAIR" -n "$img" < /dev/null > /dev/null 2>&1
was_clean=$?
rm -f "$out"
cp "$img" "$out" || exit 8
log=$out.standin.log
: > "$log"
if [ "$mode" != copy ]; then
	"$XFS_REPAIR" "$out" < /dev/null > "$log" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && grep -q -e '-L option' "$log"; then
		"$XFS_REPAIR" -L "$out" < /dev/null >> "$log" 2>&1
		rc=$?
	fi
	if [ $rc -ne 0 ]; then
		echo "standin: xfs_repair exited $rc" >&2
		tail -n 5 "$log" >&2
		exit 8
	fi
fi
if [ "$mode" = touch-input ]; then
	size=$(wc -c < "$img")
	printf 'x' | dd of="$img" bs=1 seek=$((size - 1)) conv=notrunc 2> /dev/null
fi
if [ "$mode" = lose-file ]; then
	mnt=$out.mnt
	mkdir -p "$mnt"
	if mount -o loop,nouuid "$out" "$mnt" 2> /dev/null; then
		victim=$(find "$mnt" -path "$mnt/lost+found" -prune -o -type f -size +0 -print | LC_ALL=C sort | head -n 1)
		[ -n "$victim" ] && rm -f "$victim"
		umount "$mnt"
	fi
	rmdir "$mnt"
fi

status=1
result=repaired
[ $was_clean -eq 0 ] && status=0 result=clean
"$XFS_REPAIR" -n "$out" < /dev/null > /dev/null 2>&1 || status=4 result=incomplete

if [ -n "$report" ]; then
	in_sha=$(sha_of "$img")
	out_sha=$(sha_of "$out")
	[ "$mode" = bad-sha ] && out_sha=$in_sha
	# "disconnected inode 12345, moving to lost+found", "disconnected dir inode ..."
	inos=""
	[ "$mode" = no-orphans ] ||
		inos=$(sed -n 's/^disconnected \(dir \)\{0,1\}inode \([0-9][0-9]*\), moving to lost+found.*/\2/p' "$log" | sort -n -u)
	printf '%s\n' $inos > "$out.inos"
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		echo '<xfsrecon-repair version="1">'
		echo "  <input path=\"$(xml_escape "$img")\" size=\"$(wc -c < "$img")\" sha256=\"$in_sha\"/>"
		echo "  <output path=\"$(xml_escape "$out")\" sha256=\"$out_sha\"/>"
		echo "  <summary findings=\"0\" actions=\"0\" changes=\"0\" bytes-changed=\"0\" orphans=\"$(printf '%s\n' $inos | grep -c .)\" result=\"$result\"/>"
		echo '  <findings count="0" errors="0" warnings="0" dropped="0"/>'
		echo '  <actions/>'
		echo '  <changes/>'
		echo '  <orphans>'
		# one xfs_db for all of them: "ino mode size" lines
		[ -z "$inos" ] || for ino in $inos; do
			printf 'inode %s\np core.mode core.size\n' "$ino"
		done | "$XFS_DB" -r "$out" 2> /dev/null |
			sed -n -e 's/^core\.mode = //p' -e 's/^core\.size = //p' | paste -d ' ' - - | paste -d ' ' "$out.inos" - |
			while read -r ino mode size; do
				case $mode in
				04*) type=directory ;;
				012*) type=symlink ;;
				02*) type=chardev ;;
				06*) type=blockdev ;;
				01[0-7][0-7][0-7][0-7]) type=fifo ;;
				014*) type=socket ;;
				*) type=regular ;;
				esac
				echo "    <orphan ino=\"$ino\" type=\"$type\" size=\"${size:-0}\" new-path=\"/lost+found/$ino\"/>"
			done
		echo '  </orphans>'
		echo '</xfsrecon-repair>'
	} > "$report"
fi
rm -f "$log" "$out.inos"
exit $status
