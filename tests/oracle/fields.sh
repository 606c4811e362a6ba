#!/bin/sh
# tests/oracle/fields.sh - `xfsrecon show` agrees with xfs_db, field by field.
#
# For every corpus image: the superblock, AGF, AGI and AGFL of every AG;
# the root of every per-AG btree (bnobt, cntbt, rmapbt, refcountbt, inobt,
# finobt; shown as `block AG/AGBNO`, the type found from the magic) and, where a tree has two levels, its first and last leaf; a
# sample of inodes (root, realtime bitmap and summary, a free slot, files,
# directories of each form, symlinks, files with xattrs) and the first bmbt
# block of every sampled inode whose data fork is a btree.  Each structure is
# printed by `xfs_db -c p` and by `xfsrecon show IMAGE WHAT`; both outputs
# go through normalize.awk (one canonical value per field) and
# compare.awk (every scalar xfs_db prints must be there with the same
# value; every array element xfs_db prints must be there too, except
# the null slots of an AGFL, which show leaves out).
#
# Only reads the committed images: no root needed.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"

# xfs_db prints inode timestamps as local dates; normalize.awk reads UTC.
TZ=UTC
export TZ

here="$top_srcdir/tests/oracle"
NORM="$here/normalize.awk"
CMP="$here/compare.awk"

# Fields xfs_db prints that `show` need not print; compared when it does.
# Inode: the data and attr fork contents (u.*, u3.*, a.*) are other
# structures (short-form directories, extent lists, bmbt roots, attr
# forks), decoded by their own views, not part of the inode core dump;
# xfs_db prints "u3 = (empty)" or "a = (empty)" for an empty fork.
OPT_INODE='^(u|u3|a)(\.|$)'

# Paths sampled in every image where they exist (see corpus/README.md).
PATHS="/data/small.txt /data/big.txt /data/big.reflink /data/unwritten /data/empty
/dirs/short /dirs/block /dirs/leaf /many /many/extents /many/extents.reflink
/links/short /links/long /attrs/local /attrs/leaf /attrs/remote
/etc /etc/motd /home /home/user /home/user/notes.txt /home/user/motd.link
/home/user/block /home/notes.txt /home/big.bin /home/motd.link /home/block /frag"

nfail=0
nstruct=0
report="$TMPD/report"
: > "$report"

# xdb IMG CMD...: run xfs_db read-only with one -c per argument
xdb() {
	_img=$1
	shift
	_args=""
	for _c in "$@"; do
		_args="$_args -c '$_c'"
	done
	eval "\"\$XFS_DB\" -r $_args \"\$_img\""
}

# field IMG CMD... FIELD: raw value of one scalar FIELD of a structure
field() {
	_img=$1
	shift
	_n=$#
	_f=$(eval "printf '%s' \"\${$_n}\"")
	_cmds=""
	_i=1
	for _c in "$@"; do
		[ $_i -lt $_n ] && _cmds="$_cmds -c '$_c'"
		_i=$((_i + 1))
	done
	eval "\"\$XFS_DB\" -r $_cmds -c 'p' \"\$_img\"" | awk -f "$NORM" |
		awk -F '\t' -v f="$_f" '$2 == f { print $4; exit }'
}

# compare_one NAME IMG OPTIONAL "SHOW ARGS" XFSDB-CMD...: one structure
compare_one() {
	_name=$1 _img=$2 _opt=$3 _show=$4
	shift 4
	nstruct=$((nstruct + 1))
	_x="$TMPD/x.out" _o="$TMPD/o.out"
	xdb "$_img" "$@" p > "$_x" 2> "$TMPD/x.err"
	if ! grep -q ' = ' "$_x"; then
		echo "$_name: show $_show: xfs_db printed nothing ($(head -n 1 "$TMPD/x.err"))" >> "$report"
		nfail=$((nfail + 1))
		return
	fi
	# shellcheck disable=SC2086
	"$XFSRECON" show "$_img" $_show > "$_o" 2> "$TMPD/o.err"
	_rc=$?
	if [ $_rc -ne 0 ]; then
		echo "$_name: show $_show: exit status $_rc: $(head -n 1 "$TMPD/o.err")" >> "$report"
		nfail=$((nfail + 1))
		return
	fi
	awk -f "$NORM" "$_x" > "$_x.n"
	awk -f "$NORM" "$_o" > "$_o.n"
	if ! awk -f "$CMP" -v strict=1 -v nullok=1 -v optional="$_opt" "$_x.n" "$_o.n" > "$TMPD/diff"; then
		echo "$_name: show $_show (xfs_db: $*):" >> "$report"
		cat "$TMPD/diff" >> "$report"
		nfail=$((nfail + 1))
	fi
}

# btree_leaves NAME IMG AG HDR ROOTFIELD: the first and last child of a
# two-level tree's root
btree_leaves() {
	_name=$1 _img=$2 _ag=$3 _hdr=$4 _root=$5
	xdb "$_img" "$_hdr $_ag" "addr $_root" p | awk -f "$NORM" |
		awk -F '\t' '$1 == "a" && $2 ~ /^ptrs\[[0-9]+\]$/ {
				i = $2; gsub(/[^0-9]/, "", i); idx[++n] = i; p[n] = $4 }
			END { if (n > 0) print idx[1], p[1]; if (n > 1) print idx[n], p[n] }' > "$TMPD/leaves"
	while read -r _i _leaf; do
		compare_one "$_name" "$_img" "" "block $_ag/$_leaf" \
			"$_hdr $_ag" "addr $_root" "addr ptrs[$_i]"
	done < "$TMPD/leaves"
}

for name in $(corpus_names); do
	img=$(corpus_image "$name")
	agcount=$(field "$img" "sb 0" agcount)
	agblklog=$(field "$img" "sb 0" agblklog)
	rootino=$(field "$img" "sb 0" rootino)
	[ -n "$agcount" ] && [ "$agcount" -gt 0 ] || fail "$name: xfs_db cannot read agcount"

	ag=0
	while [ $ag -lt "$agcount" ]; do
		compare_one "$name" "$img" "" "sb $ag" "sb $ag"
		compare_one "$name" "$img" "" "agf $ag" "agf $ag"
		compare_one "$name" "$img" "" "agi $ag" "agi $ag"
		compare_one "$name" "$img" "" "agfl $ag" "agfl $ag"
		for pair in agf:bnoroot:bnolevel agf:cntroot:cntlevel agf:rmaproot:rmaplevel \
			agf:refcntroot:refcntlevel agi:root:level agi:free_root:free_level; do
			hdr=${pair%%:*}
			rest=${pair#*:}
			rootf=${rest%%:*}
			levelf=${rest#*:}
			root=$(field "$img" "$hdr $ag" "$rootf")
			level=$(field "$img" "$hdr $ag" "$levelf")
			case "$root" in ''|null|0) continue ;; esac
			case "$level" in ''|0) continue ;; esac
			compare_one "$name" "$img" "" "block $ag/$root" "$hdr $ag" "addr $rootf"
			if [ "$level" -ge 2 ]; then
				btree_leaves "$name" "$img" "$ag" "$hdr" "$rootf"
			fi
		done
		ag=$((ag + 1))
	done

	inos="$rootino $((rootino + 1)) $((rootino + 2)) $((rootino + 63))"
	for p in $PATHS; do
		ino=$(xdb "$img" "path $p" inode 2>/dev/null | sed -n 's/^current inode number is \([0-9]*\)$/\1/p')
		[ -n "$ino" ] && inos="$inos $ino"
	done
	for ino in $inos; do
		compare_one "$name" "$img" "$OPT_INODE" "inode $ino" "inode $ino"
		fmt=$(field "$img" "inode $ino" core.format)
		if [ "$fmt" = "3 (btree)" ]; then
			fork=u3
			[ -n "$(field "$img" "inode $ino" core.flushiter)" ] && fork=u
			fsb=$(field "$img" "inode $ino" "$fork.bmbt.ptrs[1]")
			[ -n "$fsb" ] || { echo "$name: inode $ino: no bmbt pointer" >> "$report"; nfail=$((nfail + 1)); continue; }
			compare_one "$name" "$img" "" "block $((fsb >> agblklog))/$((fsb & ((1 << agblklog) - 1)))" \
				"inode $ino" "addr $fork.bmbt.ptrs[1]"
		fi
	done
	rm -f "$img"
done

echo "compared $nstruct structures, $nfail disagree"
if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
