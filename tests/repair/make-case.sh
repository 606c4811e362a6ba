#!/bin/sh
# tests/repair/make-case.sh - make one corrupted image of the repair case table.
#
# usage: make-case.sh [-t TABLE] [-v] CASE CLEAN COPY
#        make-case.sh [-t TABLE] -l
#
# Copies the clean raw image CLEAN (a decompressed corpus image; it is only
# read) to COPY and applies case CASE of the table (tests/repair/cases.txt
# beside this script unless -t says otherwise; its header describes the
# format).  The result depends only on CLEAN and the table: xfs_db's fuzz
# verbs used are the deterministic ones, blocktrash is seeded, zeroing is dd.
#
#   -v  verify that the corruption is real: xfs_db applied every command
#       (always checked), and `xfs_repair -n COPY` exits non-zero; for a case
#       flagged `silent` COPY must differ from CLEAN instead.
#   -l  list the cases, one a line: NAME IMAGE FLAGS...
#
# Exit status: 0 the case is made (and verified with -v), 1 it could not be
# made or is not real (the reason on standard error), 2 usage.
# Environment: XFS_DB, XFS_REPAIR (default: from PATH).
set -u

here=$(dirname "$0")
table=$here/cases.txt
verify=0
list=0
while getopts t:vl opt; do
	case $opt in
	t) table=$OPTARG ;;
	v) verify=1 ;;
	l) list=1 ;;
	*) echo "usage: make-case.sh [-t TABLE] [-v] CASE CLEAN COPY | -l" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
[ -r "$table" ] || { echo "make-case.sh: cannot read $table" >&2; exit 2; }

# table rows without comments and blank lines
rows() {
	grep -v -e '^[ 	]*#' -e '^[ 	]*$' "$table"
}

if [ $list -eq 1 ]; then
	rows | awk -F '|' '{ print $1, $2, $4 }'
	exit 0
fi
[ $# -eq 3 ] || { echo "usage: make-case.sh [-t TABLE] [-v] CASE CLEAN COPY | -l" >&2; exit 2; }
case=$1 clean=$2 copy=$3

. "$here/../corrupt-lib.sh"

row=$(rows | awk -F '|' -v n="$case" '$1 == n')
[ -n "$row" ] || { echo "make-case.sh: no case $case in $table" >&2; exit 2; }
[ "$(printf '%s\n' "$row" | wc -l)" -eq 1 ] || { echo "make-case.sh: case $case is in $table twice" >&2; exit 2; }
cmds=$(printf '%s\n' "$row" | cut -d '|' -f 3)
flags=$(printf '%s\n' "$row" | cut -d '|' -f 4)
[ -r "$clean" ] || { echo "make-case.sh: cannot read $clean" >&2; exit 1; }

cmds=$(expand "$clean" "$cmds" < /dev/null) || { echo "make-case.sh: $case: cannot expand its tokens" >&2; exit 1; }
rm -f "$copy"
cp "$clean" "$copy" || { echo "make-case.sh: $case: cannot copy $clean" >&2; exit 1; }
log=$copy.db
corrupt "$copy" "$cmds" < /dev/null > "$log" 2>&1
rc=$?
if [ $rc -ne 0 ] || db_failed "$log"; then
	echo "make-case.sh: $case: xfs_db did not apply the corruption: $(grep -v '^Allowing' "$log" | head -n 3 | tr '\n' ' ')" >&2
	rm -f "$log"
	exit 1
fi
rm -f "$log"
[ $verify -eq 1 ] || exit 0

case " $flags " in
*" silent "*)
	if cmp -s "$clean" "$copy"; then
		echo "make-case.sh: $case: the copy is unchanged" >&2
		exit 1
	fi
	;;
*)
	if command -v timeout > /dev/null 2>&1; then
		timeout 300 "$XFS_REPAIR" -n "$copy" < /dev/null > /dev/null 2>&1
	else
		"$XFS_REPAIR" -n "$copy" < /dev/null > /dev/null 2>&1
	fi
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "make-case.sh: $case: xfs_repair -n exits 0: the corruption is not real (flag it silent, with a reason, if it is)" >&2
		exit 1
	fi
	;;
esac
exit 0
