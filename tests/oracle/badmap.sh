#!/bin/sh
# tests/oracle/badmap.sh - a ddrescue mapfile of unreadable ranges: what
# `badmap` lists, and that nothing reads those ranges.
#
# Ranges are picked by themselves from the rmapbt as xfs_db prints it: one
# non-zero sector in the middle of each of several regular files' written
# extents (one range spans three blocks), and one free block.  The copy a
# ddrescue run would leave has those ranges zeroed.
#   - `badmap` names exactly the files whose content differs between the
#     clean image and the zeroed copy, as the kernel reads both (root, loop
#     mounts; skipped otherwise), and counts the free block;
#   - under strace, check, extract and repair with --badmap never pread a
#     byte of those ranges from the image;
#   - extract's manifest calls each hit file damaged at the hit bytes, and
#     repair's output holds zeros there.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool perl
LC_ALL=C
export LC_ALL
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"

img=$(corpus_image v5-files)
bs=$("$XFS_DB" -r -c 'sb 0' -c 'p blocksize' "$img" | sed -n 's/^blocksize = //p')
agb=$("$XFS_DB" -r -c 'sb 0' -c 'p agblocks' "$img" | sed -n 's/^agblocks = //p')
agc=$("$XFS_DB" -r -c 'sb 0' -c 'p agcount' "$img" | sed -n 's/^agcount = //p')

# Written data extents of inodes: "AG AGBNO LEN OWNER".
"$XFS_DB" -r -c fsmap "$img" |
	awk '$6 ~ /^[0-9]+$/ && $10 == 0 && $12 == 0 && $14 == 0 { split($2, a, "/"); print a[1], a[2], $4, $6 }' \
	> "$TMPD/recs"
: > "$TMPD/ranges"
picked=0
while read -r ag bno len owner; do
	[ $picked -lt 6 ] || break
	mode=$("$XFS_DB" -r -c "inode $owner" -c 'p core.mode' "$img" | sed -n 's/^core.mode = //p')
	case "$mode" in 0100*) ;; *) continue ;; esac
	blk=$((bno + len / 2))
	byte=$(( (ag * agb + blk) * bs ))
	# the first non-zero sector of the block
	s=0
	while [ $s -lt $((bs / 512)) ]; do
		nz=$(dd if="$img" bs=512 skip=$((byte / 512 + s)) count=1 2> /dev/null | tr -d '\000' | wc -c)
		[ "$nz" -gt 0 ] && break
		s=$((s + 1))
	done
	[ $s -lt $((bs / 512)) ] || continue
	if [ $picked -eq 0 ] && [ "$len" -ge 4 ]; then
		echo "$((byte + s * 512)) $((3 * bs))" >> "$TMPD/ranges"   # across three blocks
	else
		echo "$((byte + s * 512)) 512" >> "$TMPD/ranges"
	fi
	picked=$((picked + 1))
done < "$TMPD/recs"
[ $picked -ge 4 ] || fail "only $picked file extents to damage"
# a free block: past the last record of the last AG
last=$((agc - 1))
endrec=$(awk -v a="$last" '$1 == a { e = $2 + $3; if (e > m) m = e } END { print m + 0 }' "$TMPD/recs")
aglen=$("$XFS_DB" -r -c "agf $last" -c 'p length' "$img" | sed -n 's/^length = //p')
allend=$("$XFS_DB" -r -c fsmap "$img" | awk -v a="$last" '{ split($2, x, "/"); if (x[1] == a) { e = x[2] + $4; if (e > m) m = e } } END { print m + 0 }')
[ "$allend" -lt "$aglen" ] || fail "no free block at the end of AG $last"
echo "$(( (last * agb + aglen - 1) * bs )) $bs" >> "$TMPD/ranges"

# The mapfile as ddrescue writes it (hex, '-' for bad, '+' between).
sort -n -u "$TMPD/ranges" | awk -v size="$(stat -c %s "$img")" '
	BEGIN { print "# Mapfile. Created by GNU ddrescue version 1.27"; print "0x00000000     +       1"
		print "#      pos        size  status"; pos = 0 }
	{ if ($1 > pos) printf "0x%08X  0x%08X  +\n", pos, $1 - pos
	  printf "0x%08X  0x%08X  -\n", $1, $2; pos = $1 + $2 }
	END { if (pos < size) printf "0x%08X  0x%08X  +\n", pos, size - pos }' > "$TMPD/map"

# The copy ddrescue leaves: the bad ranges zeroed.
cp "$img" "$TMPD/dmg.img"
while read -r off len; do
	dd if=/dev/zero of="$TMPD/dmg.img" bs=1 seek="$off" count="$len" conv=notrunc 2> /dev/null
done < "$TMPD/ranges"

"$XFSRECON" badmap "$TMPD/dmg.img" "$TMPD/map" > "$TMPD/bm.out" 2> "$TMPD/bm.err"
rc=$?
[ $rc -eq 4 ] || fail "badmap exit $rc (expected 4: files are hit): $(head -3 "$TMPD/bm.err")"
grep -q '^unreadable: .* [1-9][0-9]* free blocks' "$TMPD/bm.out" ||
	fail "the free block is not counted: $(tail -1 "$TMPD/bm.out")"
# listed files (paths after tabs, decoded)
grep ' inode [0-9]* fork data' "$TMPD/bm.out" | cut -f2- | tr '\t' '\n' |
	perl -pe 's/\\(\\|x([0-9A-Fa-f]{2}))/defined $2 ? chr(hex $2) : "\\"/ge' | sort -u > "$TMPD/listed"
[ "$(wc -l < "$TMPD/listed")" -ge "$picked" ] || fail "badmap lists $(wc -l < "$TMPD/listed") files for $picked hit"

# Against the kernel: the files whose content differs.  Both mounts use
# nouuid: such a mount does not hold the filesystem's UUID, so a test that
# mounts another copy of this image at the same time is not refused.
if [ "$(id -u)" -eq 0 ] && mkdir "$TMPD/m1" "$TMPD/m2" &&
   mount -o ro,loop,nouuid "$img" "$TMPD/m1" 2> /dev/null; then
	if mount -o ro,loop,norecovery,nouuid "$TMPD/dmg.img" "$TMPD/m2" 2> /dev/null; then
		# every file's digest, by path (perl: names hold spaces and tabs)
		for m in m1 m2; do
			(cd "$TMPD/$m" && find . -type f -print0 |
				perl -0 -MDigest::SHA -ne 'chomp; my $d = Digest::SHA->new(256);
					$d->addfile($_); print substr($_, 1), "\0", $d->hexdigest, "\0"') \
				> "$TMPD/$m.sums"
		done
		umount "$TMPD/m2"
		umount "$TMPD/m1"
		perl -0 -e 'sub rd { my %h; open(my $f, "<", $_[0]) or die; local $/ = "\0";
				while (my $p = <$f>) { chomp $p; my $d = <$f>; chomp $d; $h{$p} = $d } %h }
			my %a = rd($ARGV[0]); my %b = rd($ARGV[1]);
			print "$_\n" for grep { exists $b{$_} && $a{$_} ne $b{$_} } sort keys %a' \
			"$TMPD/m1.sums" "$TMPD/m2.sums" | sort -u > "$TMPD/differ"
		[ -s "$TMPD/differ" ] || fail "no file differs on the zeroed copy: the test proves nothing"
		if ! cmp -s "$TMPD/differ" "$TMPD/listed"; then
			diff "$TMPD/differ" "$TMPD/listed" | head -10 >&2
			fail "badmap's files are not those whose content differs"
		fi
		echo "badmap: $(wc -l < "$TMPD/listed") files listed, the same that differ under the kernel"
	else
		umount "$TMPD/m1"
		fail "the zeroed copy does not mount"
	fi
else
	echo "note: no loop mount here; the kernel comparison was skipped"
fi

# No read of a bad range reaches the image (strace names each pread's file).
if command -v strace > /dev/null 2>&1; then
	mkdir "$TMPD/ex"
	for cmd in "check --no-hash" "extract /files -C $TMPD/ex" "repair -o $TMPD/out.img"; do
		# shellcheck disable=SC2086
		set -- $cmd
		verb=$1
		shift
		strace -f -y -e trace=pread64 -o "$TMPD/trace" \
			"$XFSRECON" "$verb" --badmap "$TMPD/map" "$TMPD/dmg.img" "$@" > /dev/null 2>&1
		n=$(grep -c "dmg.img>" "$TMPD/trace")
		[ "$n" -gt 10 ] || fail "$verb: only $n reads of the image traced"
		hits=$(grep "dmg.img>" "$TMPD/trace" | sed -n 's/.*, \([0-9]*\), \([0-9]*\)) *= .*/\1 \2/p' |
			awk 'NR == FNR { s[NR] = $1; e[NR] = $1 + $2; n = NR; next }
			     { for (i = 1; i <= n; i++) if ($2 < e[i] && $2 + $1 > s[i]) { print; break } }' \
			"$TMPD/ranges" - | wc -l)
		[ "$hits" -eq 0 ] || fail "$verb read $hits times inside the bad ranges"
	done
	echo "strace: check, extract and repair never read the bad ranges"
else
	echo "note: no strace here; the read trace was skipped"
fi

# The manifest and the repaired image.
mkdir "$TMPD/ex2"
"$XFSRECON" extract --badmap "$TMPD/map" "$TMPD/dmg.img" / -C "$TMPD/ex2" --manifest "$TMPD/man" \
	> /dev/null 2>&1
nd=$(grep -c '	damaged:unreadable=' "$TMPD/man")
[ "$nd" -ge "$picked" ] || fail "the manifest calls $nd files damaged, $picked were hit"
"$XFSRECON" repair --badmap "$TMPD/map" "$TMPD/dmg.img" -o "$TMPD/out2.img" > /dev/null 2>&1
while read -r off len; do
	nz=$(dd if="$TMPD/out2.img" bs=1 skip="$off" count="$len" 2> /dev/null | tr -d '\000' | wc -c)
	[ "$nz" -eq 0 ] || fail "repair's output holds non-zero bytes in the bad range at $off"
done < "$TMPD/ranges"
exit 0
