#!/bin/sh
# tests/oracle/ncheck_owner.sh - `xfsrecon ncheck` and `xfsrecon owner`
# against xfs_db's ncheck and blockuse -n, on every corpus image.
#
# ncheck: xfs_db (after blockget -n) prints one name per inode; that path
# must be among ours for the inode, and we must name exactly the inodes it
# names.  Our listing of every path must also hold each inode as many times
# as it has links (hard links are separate paths): the link count is read
# with xfs_db for the inodes with more than one path.
#
# owner: every block of every AG is asked at once (AG/AGBNO ranges) and
# compared with xfs_db's blockuse -n over the same blocks: the block's type
# (names mapped one to one; a bmbt block is typed by its file in xfs_db),
# its owning inode, and the path xfs_db gives.  xfs_db keeps one owner per
# block; we print one line per owner (reflinked blocks), so its owner must
# be one of ours.
#
# Our paths are escaped (\xNN, \\) and are decoded before the comparison.
# Only reads the committed images: no root needed.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
# Names are bytes: no tool may read them as characters.
LC_ALL=C
export LC_ALL
need_tool perl
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"

nfail=0
nimg=0
nblocks=0
ninodes=0
report="$TMPD/report"
: > "$report"

# Decode our escaped paths back to the stored bytes.
unescape() {
	perl -pe 's/\\(\\|x([0-9A-Fa-f]{2}))/defined $2 ? chr(hex $2) : "\\"/ge'
}

# For the owner comparison, where paths are tab-separated fields: each
# field decoded, then backslashes and tabs written as \\ and \t; xfs_db's
# lines get the same (its fixed words hold neither).
owner_fields() {
	perl -ne 'chomp; my @f = split /\t/, $_, -1;
		for (@f) { s/\\(\\|x([0-9A-Fa-f]{2}))/defined $2 ? chr(hex $2) : "\\"/ge;
			   s/\\/\\\\/g; s/\t/\\t/g }
		print join("\t", @f), "\n"'
}

for name in $(corpus_names); do
	img=$(corpus_image "$name")
	nimg=$((nimg + 1))

	# --- ncheck ---
	"$XFS_DB" -r -c 'blockget -n' -c ncheck "$img" > "$TMPD/db.nc" 2> /dev/null ||
		fail "$name: xfs_db ncheck failed"
	# "INO path" (relative; a directory as "dir/.") -> "INO /path"
	sed -n 's/^ *\([0-9][0-9]*\) \(.*\)$/\1 \/\2/p' "$TMPD/db.nc" |
		sed 's|/\.$||' | sort -u > "$TMPD/db.pairs"
	[ -s "$TMPD/db.pairs" ] || fail "$name: xfs_db ncheck printed nothing"
	cut -d' ' -f1 "$TMPD/db.pairs" | sort -u > "$TMPD/db.inos"
	# shellcheck disable=SC2046
	"$XFSRECON" ncheck "$img" $(cat "$TMPD/db.inos") > "$TMPD/our.nc" 2> "$TMPD/our.nc.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "$name: ncheck of xfs_db's inodes exit $rc" >> "$report"
		sed -n '1,5p' "$TMPD/our.nc.err" >> "$report"
		nfail=$((nfail + 1))
	fi
	unescape < "$TMPD/our.nc" | sort -u > "$TMPD/our.pairs"
	missing=$(comm -23 "$TMPD/db.pairs" "$TMPD/our.pairs" | wc -l)
	if [ "$missing" -ne 0 ]; then
		echo "$name: $missing of xfs_db's inode/path pairs missing from ncheck:" >> "$report"
		comm -23 "$TMPD/db.pairs" "$TMPD/our.pairs" | sed -n '1,5p' >> "$report"
		nfail=$((nfail + 1))
	fi
	ninodes=$((ninodes + $(wc -l < "$TMPD/db.inos")))
	# Every path: the inodes named are xfs_db's (and the root), and an
	# inode with several paths has that many links.
	"$XFSRECON" ncheck "$img" > "$TMPD/all.nc" 2> /dev/null ||
		{ echo "$name: ncheck (all) failed" >> "$report"; nfail=$((nfail + 1)); }
	root=$("$XFS_DB" -r -c 'sb 0' -c 'p rootino' "$img" | sed -n 's/^rootino = //p')
	{ cat "$TMPD/db.inos"; echo "$root"; } | sort -u > "$TMPD/db.inos2"
	cut -d' ' -f1 "$TMPD/all.nc" | sort -u > "$TMPD/all.inos"
	if ! cmp -s "$TMPD/db.inos2" "$TMPD/all.inos"; then
		echo "$name: ncheck names other inodes than xfs_db's ncheck:" >> "$report"
		diff "$TMPD/db.inos2" "$TMPD/all.inos" | sed -n '1,5p' >> "$report"
		nfail=$((nfail + 1))
	fi
	cut -d' ' -f1 "$TMPD/all.nc" | sort | uniq -c | awk '$1 > 1 { print $2, $1 }' |
		head -n 20 > "$TMPD/multi"
	while read -r ino n; do
		nl=$("$XFS_DB" -r -c "inode $ino" -c 'p core.nlinkv2' "$img" |
			sed -n 's/^core.nlinkv2 = //p')
		[ -n "$nl" ] || nl=$("$XFS_DB" -r -c "inode $ino" -c 'p core.nlinkv1' "$img" |
			sed -n 's/^core.nlinkv1 = //p')
		if [ "$nl" != "$n" ]; then
			echo "$name: inode $ino has $n paths in ncheck, $nl links" >> "$report"
			nfail=$((nfail + 1))
		fi
	done < "$TMPD/multi"

	# --- owner ---
	agcount=$("$XFS_DB" -r -c 'sb 0' -c 'p agcount' "$img" | sed -n 's/^agcount = //p')
	agblklog=$("$XFS_DB" -r -c 'sb 0' -c 'p agblklog' "$img" | sed -n 's/^agblklog = //p')
	: > "$TMPD/db.use"
	ranges=
	ag=0
	while [ "$ag" -lt "$agcount" ]; do
		len=$("$XFS_DB" -r -c "agf $ag" -c 'p length' "$img" | sed -n 's/^length = //p')
		"$XFS_DB" -r -c 'blockget -n' -c "fsblock $((ag << agblklog))" \
			-c "blockuse -n -c $len" "$img" >> "$TMPD/db.use" 2> /dev/null
		ranges="$ranges $ag/0-$ag/$((len - 1))"
		ag=$((ag + 1))
	done
	# shellcheck disable=SC2086
	"$XFSRECON" owner "$img" $ranges > "$TMPD/our.use" 2> "$TMPD/our.use.err"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "$name: owner exit $rc" >> "$report"
		sed -n '1,5p' "$TMPD/our.use.err" >> "$report"
		nfail=$((nfail + 1))
	fi
	owner_fields < "$TMPD/our.use" > "$TMPD/our.use.raw"
	perl -pe 's/\\/\\\\/g; s/\t/\\t/g' "$TMPD/db.use" > "$TMPD/db.use.enc"
	n=$(wc -l < "$TMPD/db.use")
	[ "$n" -gt 1000 ] || fail "$name: xfs_db blockuse printed only $n lines"
	nblocks=$((nblocks + n))
	# Each xfs_db line: "block FSB (AG/AGBNO) type T [inode I [path]]".
	awk -F'\t' -v name="$name" '
		FNR == NR {
			split($1, f, " ")
			t = f[3]; ino = (f[4] == "inode") ? f[5] : "-"
			have[f[1] " " t " " ino] = 1
			if (t == "bmbt")
				bmbt[f[1] " " ino] = 1
			for (i = 2; i <= NF; i++)
				path[f[1] " " ino " " $i] = 1
			next
		}
		{
			line = $0
			split(line, f, " ")
			b = f[2]; t = f[5]; ino = (f[6] == "inode") ? f[7] : "-"
			p = ""
			if (f[6] == "inode" && NF > 0) {
				p = line
				sub(/^block [0-9]+ \([0-9]+\/[0-9]+\) type [a-z0-9]+ inode [0-9]+ ?/, "", p)
			}
			if (t == "free1" || t == "free2") t = "free"
			else if (t == "btbno") t = "bnobt"
			else if (t == "btcnt") t = "cntbt"
			else if (t == "btino") t = "inobt"
			else if (t == "btfino") t = "finobt"
			else if (t == "btrmap") t = "rmapbt"
			else if (t == "btrefcnt") t = "refcountbt"
			else if (t == "inode") t = "inodes"
			else if (t == "rldata") t = "data"
			else if (t == "btbmapd" || t == "btbmapa") t = "bmbt"
			if (t == "inodes") ino = "-"
			ok = (b " " t " " ino) in have
			if (!ok && (t == "data" || t == "dir" || t == "symlink" || t == "attr" || t == "bmbt"))
				ok = (b " " ino) in bmbt
			if (!ok) {
				bad++
				if (bad <= 5) print name ": block " b ": xfs_db says " t " " ino > "/dev/stderr"
			} else if (p != "" && !((b " " ino " /" p) in path)) {
				badp++
				if (badp <= 5) print name ": block " b ": path /" p " not among ours" > "/dev/stderr"
			}
		}
		END { print bad + badp + 0 }' "$TMPD/our.use.raw" "$TMPD/db.use.enc" \
		> "$TMPD/cmp.n" 2>> "$report"
	if [ "$(cat "$TMPD/cmp.n")" -ne 0 ]; then
		echo "$name: $(cat "$TMPD/cmp.n") blocks differ from xfs_db blockuse -n" >> "$report"
		nfail=$((nfail + 1))
	fi
	rm -f "$img"
done

# owner names the rmapbt's disagreement: one rmapbt record's owner changed
# (xfs_db rewrites the CRC) on the first image with an rmapbt.
for name in $(corpus_names); do
	img=$(corpus_image "$name")
	leaf=$("$XFS_DB" -r -c 'agf 0' -c 'addr rmaproot' -c 'p ptrs' "$img" 2> /dev/null |
		sed -n 's/^ptrs\[[^]]*\] = 1:\([0-9]*\).*/\1/p')
	if [ -z "$leaf" ]; then
		rm -f "$img"
		continue
	fi
	# The first record owned by an inode: [start,count,owner,offset,...]
	rec=$("$XFS_DB" -r -c "fsblock $leaf" -c 'type rmapbt' -c 'p recs' "$img" |
		sed -n 's/^\([0-9]*\):\[\([0-9]*\),[0-9]*,\([0-9]\{1,12\}\),.*/\1 \2 \3/p' | sed -n 1p)
	[ -n "$rec" ] || fail "$name: no inode-owned record in rmapbt block $leaf"
	set -- $rec
	"$XFS_DB" -x -c "fsblock $leaf" -c 'type rmapbt' -c "write recs[$1].owner 133" "$img" \
		> /dev/null 2>&1 || fail "$name: xfs_db write failed"
	"$XFSRECON" owner "$img" "0/$2" > "$TMPD/rm.out" 2>&1
	grep -q " inode $3 .* rmapbt:inode-133" "$TMPD/rm.out" ||
		{ echo "$name: owner of 0/$2 does not name the rmapbt's owner 133:" >> "$report";
		  cat "$TMPD/rm.out" >> "$report"; nfail=$((nfail + 1)); }
	rm -f "$img"
	break
done

echo "ncheck: $ninodes inodes of $nimg images; owner: $nblocks blocks; $nfail failures"
if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
