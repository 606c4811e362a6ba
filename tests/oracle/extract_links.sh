#!/bin/sh
# tests/oracle/extract_links.sh - extract keeps hard links as hard links and
# writes a manifest that tells the truth.
#
# On the populated corpus image (30,000 names for ten inodes in /big, a file
# with five names in /links):
#   - every inode with several names is one host file: all its names share
#     one host inode, whose link count is the image's (xfs_db core.nlinkv2);
#   - the manifest's inode of each path is xfs_db ncheck's for that path;
#   - each file's manifest SHA-256 is that of the host file, and a later
#     name's ("hardlink") that of the first;
#   - on a copy whose /files/medium.bin lost its mapping (startblock past the
#     filesystem), that file is "damaged:map" and its siblings "intact";
#   - an existing manifest is never overwritten.
# The host may refuse some xattrs (its own limits): extract may then exit 8,
# which is not what is judged here.  No root needed.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
LC_ALL=C
export LC_ALL
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"

img=$(corpus_image v5-files)
out="$TMPD/out"
man="$TMPD/manifest"
mkdir "$out"
"$XFSRECON" extract "$img" -C "$out" --manifest "$man" > "$TMPD/ex.out" 2> "$TMPD/ex.err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 8 ] || fail "extract exit $rc: $(head -3 "$TMPD/ex.err")"
[ -s "$man" ] || fail "no manifest written"
head -1 "$man" | grep -q '^path	inode	type	size	sha256	state$' ||
	fail "the manifest's first line does not name the columns"
grep -q ' hard links;' "$TMPD/ex.out" || fail "the summary does not count hard links"

# Names per inode, from the manifest (files only).
awk -F'\t' 'NR > 1 && $3 == "file" { n[$2]++ } END { for (i in n) if (n[i] > 1) print i, n[i] }' \
	"$man" | sort -n > "$TMPD/multi"
[ "$(wc -l < "$TMPD/multi")" -ge 5 ] || fail "fewer than 5 inodes with several names"
# Host inode and link count of every extracted name, in one walk.
(cd "$out" && find . -printf '%i %n /%P\n') | sort -k3 > "$TMPD/host"
nchk=0
while read -r ino n; do
	nl=$("$XFS_DB" -r -c "inode $ino" -c 'p core.nlinkv2' "$img" | sed -n 's/^core.nlinkv2 = //p')
	[ "$nl" = "$n" ] || fail "inode $ino: $n names in the manifest, $nl links in the image"
	# all its names: one host inode, with the image's link count
	awk -F'\t' -v i="$ino" 'NR > 1 && $2 == i { print $1 }' "$man" | sort > "$TMPD/names"
	awk 'NR == FNR { want[$0] = 1; next } ($3 in want) { print $1, $2 }' "$TMPD/names" \
		"$TMPD/host" | sort | uniq -c > "$TMPD/seen"
	[ "$(wc -l < "$TMPD/seen")" -eq 1 ] ||
		fail "inode $ino: its names are several host files: $(head -3 "$TMPD/seen")"
	read -r cnt hino hl < "$TMPD/seen"
	[ "$cnt" = "$n" ] || fail "inode $ino: $cnt of its $n names extracted"
	[ "$hl" = "$nl" ] || fail "inode $ino: host link count $hl, image $nl"
	nchk=$((nchk + 1))
done < "$TMPD/multi"

# Inode numbers: xfs_db ncheck's pairs, where the manifest has the path.
"$XFS_DB" -r -c 'blockget -n' -c ncheck "$img" 2> /dev/null |
	sed -n 's/^ *\([0-9][0-9]*\) \([ -~]*\)$/\1 \/\2/p' | grep -v '/\.$' | sort > "$TMPD/db.pairs"
awk -F'\t' 'NR > 1 { print $2, $1 }' "$man" | sort > "$TMPD/man.pairs"
missing=$(comm -23 "$TMPD/db.pairs" "$TMPD/man.pairs" | wc -l)
npairs=$(wc -l < "$TMPD/db.pairs")
[ "$npairs" -gt 100 ] || fail "xfs_db ncheck gave only $npairs printable pairs"
# xfs_db names one path per inode; a hard-linked inode's may be any of them
if [ "$missing" -ne 0 ]; then
	comm -23 "$TMPD/db.pairs" "$TMPD/man.pairs" | while read -r ino p; do
		grep -q "^$ino " "$TMPD/man.pairs" || { echo "inode $ino ($p) not in the manifest"; exit 1; }
	done || fail "the manifest misses inodes xfs_db names"
fi
# Digests: each file's against its host file (a sample of 400 lines, the
# hard links among them).
awk -F'\t' 'NR > 1 && $3 == "file" && $5 != "-" { print $5 "  " $1 }' "$man" |
	awk 'NR % 80 == 1 || NR < 320' > "$TMPD/sums"
[ "$(wc -l < "$TMPD/sums")" -ge 300 ] || fail "fewer than 300 files with a digest"
(cd "$out" && sed 's|  /|  ./|' "$TMPD/sums" | sha256sum -c --quiet -) > "$TMPD/sumcheck" 2>&1 ||
	fail "manifest digests differ from the host files: $(head -3 "$TMPD/sumcheck")"
# a later name carries its first name's digest
awk -F'\t' 'NR > 1 && $3 == "file" { if ($6 != "hardlink") d[$2] = $5; else if (d[$2] != $5) bad++ }
	END { exit bad > 0 }' "$man" || fail "a hardlink line's digest differs from its inode's"

# A damaged file is said so; its siblings are intact.
cp "$img" "$TMPD/dmg.img"
"$XFS_DB" -x -c 'path /files/medium.bin' -c 'write u3.bmx[0].startblock 99999999' \
	"$TMPD/dmg.img" > /dev/null 2>&1 || fail "xfs_db write failed"
mkdir "$TMPD/out2"
"$XFSRECON" extract "$TMPD/dmg.img" /files -C "$TMPD/out2" --manifest "$TMPD/man2" \
	> /dev/null 2>&1
st=$(awk -F'\t' '$1 == "/files/medium.bin" { print $6 }' "$TMPD/man2")
[ "$st" = "damaged:map" ] || fail "/files/medium.bin: state '$st', expected damaged:map"
st=$(awk -F'\t' '$1 == "/files/small.txt" { print $6 }' "$TMPD/man2")
[ "$st" = "intact" ] || fail "/files/small.txt: state '$st', expected intact"

# The manifest is never written over an existing file.
mkdir "$TMPD/out3"
"$XFSRECON" extract "$img" /files -C "$TMPD/out3" --manifest "$TMPD/man2" > /dev/null 2>&1
rc=$?
[ $rc -eq 16 ] || fail "an existing manifest: exit $rc, expected 16"
[ -z "$(ls "$TMPD/out3")" ] || fail "extract wrote files though the manifest was refused"

echo "hard links: $nchk inodes with several names checked; $npairs xfs_db pairs; digests and states as expected"
exit 0
