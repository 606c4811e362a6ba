#!/bin/sh
# tests/oracle/fsmap.sh - `xfsrecon fsmap --xfs-db` prints exactly the lines
# `xfs_db -r -c fsmap` prints, on every corpus image that has an rmapbt.
#
# Also: the default (named) format has one line per record with the same
# AG/block/length, and an image without rmapbt is refused with exit 16.
# At least one image must have an rmapbt, or the test proves nothing.
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
		"$XFSRECON" fsmap "$img" > "$TMPD/our.out" 2> "$TMPD/our.err"
		rc=$?
		if [ $rc -ne 16 ] || [ -s "$TMPD/our.out" ] || ! grep -q rmapbt "$TMPD/our.err"; then
			echo "$name (no rmapbt): fsmap exit status $rc (expected 16 and a message)" >> "$report"
			nfail=$((nfail + 1))
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
