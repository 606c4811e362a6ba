#!/bin/sh
# tests/golden/check_crosslink.sh - blocks claimed twice (ownCrossLinked)
# are found and both claimants named, as independent checkers name them.
#
# Each case points a file's first mapping at blocks something else owns,
# with `xfs_db -x` (`write -d`: the CRC is recomputed, only the cross-check
# can notice), in a scratch copy of a corpus image, then asserts:
#   - the damage is real: `xfs_repair -n` exits non-zero;
#   - `xfsrecon check --xml` exits 4 and reports ownCrossLinked at the block
#     the oracle names, with both claimants as the oracle names them:
#       file against file: `xfs_db blockget` says "block A/B claimed by
#       inode X, previous inum Y"; the finding's owner and owner2 are X and
#       Y (in either order) and it covers A/B;
#       file against metadata: `xfs_repair -n` says "data fork in inode X
#       claims metadata block B"; the finding names inode X (data fork) and
#       the special owner the case expects (INOBT, INODES);
#   - the XML report validates against doc/report.xsd (when xmllint
#     exists) and the text report names both claimants too.
# (xfs_repair 6.1 -n crashes on the reflink image after naming the inode
# that claims an inode chunk's blocks; the line it printed is still used.)
# The clean images must report no cross-link at all (reflinked files share
# blocks there, as their refcountbt says): check_clean.sh proves them clean.
#
# Only reads and copies the committed images: no root needed.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
XMLLINT=${XMLLINT:-}
need_tool "$XFS_DB"
need_tool "$XFS_REPAIR"
. "$top_srcdir/tests/corrupt-lib.sh"

# IMAGE | xfs_db commands (@...@ as in corrupt-lib.sh) | oracle: dup, or the special owner
cases() {
	cat <<'CASES'
v5-normap|path /etc/motd;write -d u3.bmx[0].startblock @path /home/user/notes.txt u3.bmx[0].startblock@|dup
v5-rmap-reflink|path /data/small.txt;write -d u3.bmx[0].startblock @path /data/medium.txt u3.bmx[0].startblock + 1@|dup
v5-normap|path /etc/motd;write -d u3.bmx[0].startblock @agi 0 root@|INOBT
v5-rmap-reflink|path /data/small.txt;write -d u3.bmx[0].startblock @agi 0 root@|INOBT
v5-normap|path /etc/motd;write -d u3.bmx[0].startblock 17|INODES
v5-rmap-reflink|path /data/medium.txt;write -d u3.bmx[0].startblock 17|INODES
CASES
}

# attr NAME LINE: the value of attribute NAME in one XML element line
attr() {
	printf '%s\n' "$2" | sed -n "s/.* $1=\"\([^\"]*\)\".*/\1/p"
}

nfail=0
n=0
report="$TMPD/report"
: > "$report"
cases > "$TMPD/cases"
while IFS='|' read -r image cmds oracle; do
	[ -n "$image" ] || continue
	n=$((n + 1))
	src=$(corpus_image "$image")
	img="$TMPD/case.img"
	cp "$src" "$img" || fail "cannot copy $src"
	what="case $n ($image: $cmds)"
	cmds=$(expand "$src" "$cmds") || { echo "$what: cannot expand" >> "$report"; nfail=$((nfail + 1)); continue; }
	corrupt "$img" "$cmds" > "$TMPD/db.out" 2>&1
	if cmp -s "$src" "$img"; then
		echo "$what: xfs_db did not apply the corruption" >> "$report"
		nfail=$((nfail + 1))
		continue
	fi
	if "$XFS_REPAIR" -n -f "$img" > "$TMPD/repair.out" 2>&1; then
		echo "$what: xfs_repair -n exits 0: the damage is not real" >> "$report"
		nfail=$((nfail + 1))
		continue
	fi
	run_limited 300 "$XFSRECON" check --no-hash --xml "$TMPD/r.xml" "$img" > "$TMPD/check.out" 2> "$TMPD/check.err"
	rc=$?
	if [ $rc -ne 4 ]; then
		echo "$what: check exits $rc (expected 4)" >> "$report"
		nfail=$((nfail + 1))
		continue
	fi
	if [ -n "$XMLLINT" ] && ! "$XMLLINT" --noout --schema "$top_srcdir/doc/report.xsd" "$TMPD/r.xml" > "$TMPD/lint" 2>&1; then
		echo "$what: the report does not validate: $(head -n 3 "$TMPD/lint")" >> "$report"
		nfail=$((nfail + 1))
	fi
	tr '<' '\n' < "$TMPD/r.xml" | grep '^finding .*id="ownCrossLinked"' > "$TMPD/xl"
	if [ ! -s "$TMPD/xl" ]; then
		echo "$what: no ownCrossLinked finding; reported: $(report_ids "$TMPD/check.out" | tr '\n' ' ')" >> "$report"
		nfail=$((nfail + 1))
		continue
	fi
	ok=0
	if [ "$oracle" = dup ]; then
		# "block 0/556 claimed by inode 133, previous inum 132"
		line=$("$XFS_DB" -r -c "blockget -n" "$img" 2>&1 | grep 'claimed by inode .*previous inum' | head -n 1)
		set -- $(printf '%s\n' "$line" |
			sed -n 's|^block \([0-9]*\)/\([0-9]*\) claimed by inode \([0-9]*\), previous inum \([0-9]*\).*|\1 \2 \3 \4|p')
		if [ $# -ne 4 ]; then
			echo "$what: xfs_db blockget names no doubly-claimed block: $line" >> "$report"
			nfail=$((nfail + 1))
			continue
		fi
		while IFS= read -r f; do
			a=$(attr ag "$f") b=$(attr agbno "$f") len=$(attr observed "$f")
			o1=$(attr owner "$f") o2=$(attr owner2 "$f")
			[ "$a" = "$1" ] && [ "$b" -le "$2" ] && [ $((b + len)) -gt "$2" ] || continue
			if { [ "$o1" = "$3" ] && [ "$o2" = "$4" ]; } || { [ "$o1" = "$4" ] && [ "$o2" = "$3" ]; }; then
				ok=1
			fi
		done < "$TMPD/xl"
		want="block $1/$2 claimed by inodes $3 and $4"
		names="inode $3's data fork|inode $4's data fork"
	else
		# "data fork in inode 132 claims metadata block 3" (AG 0: fsb = agbno)
		set -- $(sed -n 's/^data fork in inode \([0-9]*\) claims metadata block \([0-9]*\).*/\1 \2/p' "$TMPD/repair.out" | head -n 1)
		if [ $# -ne 2 ]; then
			echo "$what: xfs_repair -n names no file claiming metadata" >> "$report"
			nfail=$((nfail + 1))
			continue
		fi
		while IFS= read -r f; do
			a=$(attr ag "$f") b=$(attr agbno "$f") len=$(attr observed "$f")
			[ "$a" = 0 ] && [ "$b" -le "$2" ] && [ $((b + len)) -gt "$2" ] || continue
			[ "$(attr owner "$f")" = "$1" ] && [ "$(attr fork "$f")" = data ] &&
				[ "$(attr owner2 "$f")" = "$oracle" ] && ok=1
		done < "$TMPD/xl"
		want="inode $1's data fork and $oracle on block 0/$2"
		names="inode $1's data fork|($oracle)"
	fi
	if [ $ok -ne 1 ]; then
		echo "$what: no ownCrossLinked finding names $want; found:" >> "$report"
		cat "$TMPD/xl" >> "$report"
		nfail=$((nfail + 1))
		continue
	fi
	# the text report names both claimants in words
	old_ifs=$IFS
	IFS='|'
	for w in $names; do
		grep '\[ownCrossLinked\]' "$TMPD/check.out" | grep -qF "$w" ||
			{ echo "$what: the text report does not say \"$w\"" >> "$report"; nfail=$((nfail + 1)); }
	done
	IFS=$old_ifs
done < "$TMPD/cases"

[ $n -gt 0 ] || fail "no cases ran"
echo "ran $n cases, $nfail failures"
if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
