#!/bin/sh
# tests/golden/carve_recall.sh - how many deleted names `ls --deleted`
# recovers, on a filesystem made and changed by the kernel.
#
# Directories of every form (short-form, block, leaf, node; the node one in
# btree format too) get names of varied lengths; then single entries and
# runs of neighbours are removed in a scrambled order, and a few names are
# created afterwards (reusing freed space).  The inode of each removed name
# is taken from the kernel before the removal.
#
# The measure is the issue's: of the removed names whose bytes are still in
# the directory (its mapped blocks, or its inode for a short-form one: the
# length byte then the name, found in the raw bytes read at the places
# xfs_db's bmap gives), at least 95 % in each form must be listed with the
# right inode; and no listed name may be one that was not removed from that
# directory.  Needs root and loop mounts.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
need_tool mkfs.xfs
need_tool perl
LC_ALL=C
export LC_ALL
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"

img="$TMPD/c.img"
mnt="$TMPD/mnt"
mkdir -p "$mnt"
truncate -s 320M "$img"
mkfs.xfs -q -f "$img" || fail "mkfs.xfs failed"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount"

# NAME COUNT: names "<dir>-<n>-" padded with letters to 4..60 bytes.
fill() {
	mkdir "$mnt/$1"
	awk -v d="$1" -v n="$2" 'BEGIN {
		pad = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefgh"
		for (i = 1; i <= n; i++) print d "-" i "-" substr(pad, 1, (i * 7) % 50)
	}' > "$TMPD/$1.names"
	(cd "$mnt/$1" && xargs touch < "$TMPD/$1.names")
	stat -c %i "$mnt/$1" > "$TMPD/$1.dirino"
}
fill sf 6
fill sf2 5
# keepers around 192 names removed whole: their inode chunks are freed
mkdir "$mnt/chunk"
(cd "$mnt/chunk" && awk 'BEGIN { for (i = 1; i <= 70; i++) printf "keeper-with-a-long-name-so-the-directory-stays-leaf-%d\n", i }' | xargs touch &&
	awk 'BEGIN { for (i = 1; i <= 192; i++) print "victim-" i }' | xargs touch &&
	awk 'BEGIN { for (i = 71; i <= 140; i++) printf "keeper-with-a-long-name-so-the-directory-stays-leaf-%d\n", i }' | xargs touch)
stat -c %i "$mnt/chunk" > "$TMPD/chunk.dirino"
fill blk 45
fill leaf 320
fill node 1600
# a data file between creations keeps the node directory's blocks apart
# (btree format)
i=0
while [ $i -lt 40 ]; do
	head -c 8192 /dev/urandom > "$mnt/spacer$i"
	(cd "$mnt/node" && awk -v i=$i 'BEGIN { for (k = 0; k < 25; k++) print "late-" i "-" k }' |
		xargs touch)
	i=$((i + 1))
done
sync

# Removals: every 7th name of a scrambled order, and a run of 12 neighbours
# (3 in the short-form and block directories); in sf2 the last two names,
# last first: a short-form directory can keep only what its end loses, and
# only where the kernel leaves the literal area past di_size as it was
# (6.x kernels zero it; tests/unit/formats/test_dir2_sf.c covers the carving).
(cd "$mnt/sf2" && ls -i -U) | awk '{ print $2 "\t" $1 }' > "$TMPD/sf2.inos"
tail -n 2 "$TMPD/sf2.inos" | sort -r > "$TMPD/sf2.del"
cut -f1 "$TMPD/sf2.del" | (cd "$mnt/sf2" && xargs rm --)
for d in sf blk leaf node; do
	(cd "$mnt/$d" && ls -i -U) | awk '{ print $2 "\t" $1 }' > "$TMPD/$d.inos"
	n=$(wc -l < "$TMPD/$d.inos")
	run=12
	[ "$n" -gt 100 ] || run=3
	awk -F'\t' -v n="$n" -v run="$run" '
		{ name[NR] = $1; ino[NR] = $2 }
		END {
			start = int(n / 2)
			for (i = 1; i <= n; i++) {
				j = (i * 37) % n + 1
				if (j % 7 == 3 || (j > start && j <= start + run)) print name[j] "\t" ino[j]
			}
		}' "$TMPD/$d.inos" | awk -F'\t' '!seen[$1]++' > "$TMPD/$d.del"
	cut -f1 "$TMPD/$d.del" | (cd "$mnt/$d" && xargs rm --)
	# new names reuse some of the freed space
	(cd "$mnt/$d" && touch new-a new-bb new-ccc)
done
(cd "$mnt/chunk" && ls -i -U) | awk '$2 ~ /^victim-/ { print $2 "\t" $1 }' > "$TMPD/chunk.del"
(cd "$mnt/chunk" && rm -- victim-*)
# every inode in use now, for the states ls gives
find "$mnt" -xdev -printf '%i\n' | sort -u > "$TMPD/live.inos"
umount "$mnt"

"$XFSRECON" ls -R --deleted "$img" / > "$TMPD/ls.out" 2> "$TMPD/ls.err" ||
	fail "ls --deleted exited $?: $(head -3 "$TMPD/ls.err")"

# The raw bytes of a directory: its mapped blocks, or its inode.
raw_of() {
	ino=$(cat "$TMPD/$1.dirino")
	fmt=$("$XFS_DB" -r -c "inode $ino" -c 'p core.format' "$img" | sed -n 's/^core.format = \([0-9]*\).*/\1/p')
	: > "$TMPD/$1.raw"
	if [ "$fmt" = 1 ]; then
		byte=$("$XFS_DB" -r -c "convert inode $ino byte" "$img" | sed -n 's/^0x[0-9a-f]* (\([0-9]*\))$/\1/p')
		isz=$("$XFS_DB" -r -c 'sb 0' -c 'p inodesize' "$img" | sed -n 's/^inodesize = //p')
		dd if="$img" of="$TMPD/$1.raw" bs=1 skip="$byte" count="$isz" 2> /dev/null
		echo 3
		return
	fi
	bs=$("$XFS_DB" -r -c 'sb 0' -c 'p blocksize' "$img" | sed -n 's/^blocksize = //p')
	"$XFS_DB" -r -c "inode $ino" -c 'bmap' "$img" |
		sed -n 's/^data offset \([0-9]*\) startblock \([0-9]*\) .* count \([0-9]*\) flag.*/\1 \2 \3/p' |
		while read -r off sb cnt; do
			# the leaf and free blocks hold no names: data blocks only
			[ "$off" -lt $((32 * 1024 * 1024 * 1024 / bs)) ] || continue
			d=$("$XFS_DB" -r -c "convert fsblock $sb daddr" "$img" | sed -n 's/^0x[0-9a-f]* (\([0-9]*\))$/\1/p')
			dd if="$img" bs=512 skip="$d" count=$((cnt * bs / 512)) >> "$TMPD/$1.raw" 2> /dev/null
		done
	echo 1
}

total_p=0
total_f=0
nfail=0
# States: "in use" exactly for the inodes in use after the workload (the
# kernel's find); a chunk the kernel freed whole is said so.
sed -n 's|^/.* (deleted: inode \([0-9]*\), \([a-z ]*\)).*$|\1	\2|p' "$TMPD/ls.out" |
	sort -u > "$TMPD/states"
bad=$(awk -F'\t' 'NR == FNR { live[$1] = 1; next }
	($2 == "in use") != ($1 in live) { print }' "$TMPD/live.inos" "$TMPD/states" | wc -l)
[ "$bad" -eq 0 ] || fail "$bad carved names whose inode state is not the kernel's: $(awk -F'\t' 'NR == FNR { live[$1] = 1; next } ($2 == "in use") != ($1 in live)' "$TMPD/live.inos" "$TMPD/states" | head -3)"
nfreed=$(sed -n 's|^/chunk/victim-.* (deleted: inode [0-9]*, chunk freed)$|x|p' "$TMPD/ls.out" | wc -l)
[ "$nfreed" -ge 64 ] || fail "only $nfreed of the removed chunk's names are said to have their chunk freed"
echo "states: $(wc -l < "$TMPD/states") carved inodes agree with the kernel; $nfreed in freed chunks"

for d in sf sf2 blk leaf node chunk; do
	gap=$(raw_of "$d")
	# removed names still present: the length byte, gap-1 bytes, the name
	cut -f1 "$TMPD/$d.del" | perl -e '
		my ($raw, $gap) = @ARGV; local $/; open(my $f, "<", $raw) or die; binmode $f;
		my $b = <$f>; $/ = "\n";
		while (my $n = <STDIN>) { chomp $n;
			my $pat = quotemeta(chr(length $n)) . ("." x ($gap - 1)) . quotemeta($n);
			print "$n\n" if $b =~ /$pat/s; }' "$TMPD/$d.raw" "$gap" | sort > "$TMPD/$d.present"
	# listed: "/d/name (deleted: inode N, ...)"
	sed -n "s|^/$d/\\(.*\\) (deleted: inode \\([0-9]*\\), .*)\$|\\1	\\2|p" "$TMPD/ls.out" |
		sort -u > "$TMPD/$d.got"
	sort "$TMPD/$d.del" > "$TMPD/$d.del.s"
	invented=$(cut -f1 "$TMPD/$d.got" | sort -u | comm -23 - "$(cut -f1 "$TMPD/$d.del.s" | sort > "$TMPD/$d.dn"; echo "$TMPD/$d.dn")" | wc -l)
	# present names found with the right inode
	found=$(join -t '	' "$TMPD/$d.present" "$TMPD/$d.del.s" | sort | comm -12 - "$TMPD/$d.got" | wc -l)
	present=$(wc -l < "$TMPD/$d.present")
	removed=$(wc -l < "$TMPD/$d.del")
	fmt=$("$XFS_DB" -r -c "inode $(cat "$TMPD/$d.dirino")" -c 'p core.format' "$img" | sed -n 's/^core.format = [0-9]* (\(.*\))$/\1/p')
	echo "$d ($fmt format): $removed removed, $present still present, $found listed with the right inode, $invented invented"
	total_p=$((total_p + present))
	total_f=$((total_f + found))
	if [ "$invented" -ne 0 ]; then
		echo "$d: invented: $(cut -f1 "$TMPD/$d.got" | sort -u | comm -23 - "$TMPD/$d.dn" | head -3)" >&2
		nfail=$((nfail + 1))
	fi
	if [ "$present" -gt 0 ] && [ $((found * 100)) -lt $((present * 95)) ]; then
		echo "$d: $found of $present present names listed, under 95 %" >&2
		comm -23 "$TMPD/$d.present" "$(cut -f1 "$TMPD/$d.got" | sort > "$TMPD/$d.gn"; echo "$TMPD/$d.gn")" | head -5 >&2
		nfail=$((nfail + 1))
	fi
done
[ "$total_p" -gt 200 ] || fail "only $total_p removed names still present: the workload proves little"
echo "total: $total_f of $total_p present removed names listed with the right inode"
[ $nfail -eq 0 ] || exit 1
exit 0
