#!/bin/sh
# tests/oracle/fsmap.sh - `xfsrecon fsmap --xfs-db` prints exactly the lines
# `xfs_db -r -c fsmap` prints, on every corpus image that has an rmapbt.
#
# Also: the default (named) format has one line per record with the same
# AG/block/length; `fsmap --forward --xfs-db` (the map built from primary
# metadata, not from the rmapbt) prints the same lines on these clean
# images; and on an image without rmapbt, fsmap prints the forward map,
# whose blocks plus the AGF's free blocks (read with xfs_db) are exactly
# each AG's length.  At least one image must have an rmapbt, or the test
# proves nothing.
#
# Only reads the committed images: no root needed.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"

nfail=0
nrmap=0
nnormap=0
report="$TMPD/report"
: > "$report"

for name in $(corpus_names); do
	img=$(corpus_image "$name")
	"$XFS_DB" -r -c fsmap "$img" > "$TMPD/db.out" 2>&1 || fail "$name: xfs_db fsmap failed"
	if grep -q 'does not support reverse mapping' "$TMPD/db.out"; then
		nnormap=$((nnormap + 1))
		"$XFSRECON" fsmap --xfs-db "$img" > "$TMPD/our.out" 2> "$TMPD/our.err"
		rc=$?
		if [ $rc -ne 0 ] || [ ! -s "$TMPD/our.out" ]; then
			echo "$name (no rmapbt): forward fsmap exit status $rc" >> "$report"
			nfail=$((nfail + 1))
		else
			agcount=$("$XFS_DB" -r -c 'sb 0' -c 'p agcount' "$img" | sed -n 's/^agcount = //p')
			ag=0
			while [ "$ag" -lt "$agcount" ]; do
				len=$("$XFS_DB" -r -c "agf $ag" -c 'p length' "$img" | sed -n 's/^length = //p')
				free=$("$XFS_DB" -r -c "agf $ag" -c 'p freeblks' "$img" | sed -n 's/^freeblks = //p')
				owned=$(awk -v ag="$ag" '{ split($2, a, "/"); if (a[1] == ag) n += $4 } END { print n + 0 }' "$TMPD/our.out")
				if [ $((owned + free)) -ne "$len" ]; then
					echo "$name AG $ag: forward map owns $owned blocks, AGF free $free, AG length $len" >> "$report"
					nfail=$((nfail + 1))
				fi
				ag=$((ag + 1))
			done
		fi
		rm -f "$img"
		continue
	fi
	nrmap=$((nrmap + 1))
	"$XFSRECON" fsmap --xfs-db "$img" > "$TMPD/our.out" 2> "$TMPD/our.err"
	rc=$?
	# Whitespace only is normalised (trailing blanks, repeated spaces).
	sed 's/[ 	][ 	]*/ /g; s/ $//' "$TMPD/db.out" > "$TMPD/db.norm"
	sed 's/[ 	][ 	]*/ /g; s/ $//' "$TMPD/our.out" > "$TMPD/our.norm"
	n=$(wc -l < "$TMPD/db.norm")
	if [ $rc -ne 0 ]; then
		echo "$name: fsmap --xfs-db exit status $rc" >> "$report"
		sed -n '1,5p' "$TMPD/our.err" >> "$report"
		nfail=$((nfail + 1))
	elif [ "$n" -lt 10 ]; then
		echo "$name: xfs_db printed only $n lines" >> "$report"
		nfail=$((nfail + 1))
	elif ! cmp -s "$TMPD/db.norm" "$TMPD/our.norm"; then
		echo "$name: fsmap --xfs-db differs from xfs_db fsmap ($n lines):" >> "$report"
		diff "$TMPD/db.norm" "$TMPD/our.norm" | sed -n '1,20p' >> "$report"
		nfail=$((nfail + 1))
	else
		# The forward map agrees with the rmapbt on a clean image.
		"$XFSRECON" fsmap --forward --xfs-db "$img" 2>&1 |
			sed 's/[ 	][ 	]*/ /g; s/ $//' > "$TMPD/fwd.norm"
		if ! cmp -s "$TMPD/db.norm" "$TMPD/fwd.norm"; then
			echo "$name: fsmap --forward differs from xfs_db fsmap:" >> "$report"
			diff "$TMPD/db.norm" "$TMPD/fwd.norm" | sed -n '1,10p' >> "$report"
			nfail=$((nfail + 1))
		fi
		# Named format: same records (AG/block and length), owners by name.
		"$XFSRECON" fsmap "$img" > "$TMPD/named.out" 2>&1 ||
			{ echo "$name: fsmap (named) failed" >> "$report"; nfail=$((nfail + 1)); }
		awk '{ print $2, $4 }' "$TMPD/db.norm" > "$TMPD/db.keys"
		awk '{ print $1, $3 }' "$TMPD/named.out" > "$TMPD/named.keys"
		if ! cmp -s "$TMPD/db.keys" "$TMPD/named.keys"; then
			echo "$name: named fsmap records differ from xfs_db's" >> "$report"
			diff "$TMPD/db.keys" "$TMPD/named.keys" | sed -n '1,10p' >> "$report"
			nfail=$((nfail + 1))
		fi
		# Every special owner xfs_db prints as a number appears by name.
		for pair in -3:FS -4:LOG -5:AG -6:INOBT -7:INODES -8:REFC; do
			num=${pair%%:*} nm=${pair#*:}
			a=$(grep -c " owner $num offset" "$TMPD/db.norm")
			b=$(grep -c "len [0-9]* $nm\$" "$TMPD/named.out")
			if [ "$a" != "$b" ]; then
				echo "$name: owner $num: xfs_db $a records, named fsmap $b as $nm" >> "$report"
				nfail=$((nfail + 1))
			fi
		done
	fi
	rm -f "$img"
done

[ $nrmap -gt 0 ] || fail "no corpus image has an rmapbt"
echo "compared $nrmap images with rmapbt, $nnormap without; $nfail failures"
if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
