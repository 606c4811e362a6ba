#!/bin/sh
# tests/golden/undelete.sh - `extract --deleted` brings back deleted files
# whose blocks were not used again, with their original content.
#
# A filesystem made and changed by the kernel: files of many sizes in a
# block-form and a leaf-form directory (some in several extents, written
# interleaved), their SHA-256 and physical extents (xfs_io fiemap) taken;
# then a third of them removed, and new files written that take some of the
# freed space.  The freed files whose blocks no new file took (by the new
# files' fiemap) are the ones that can come back: at least 90 % of them
# must be extracted under their names with the original SHA-256.  Every
# other removed file must say why in the manifest (deleted-lost:..., or
# deleted:reused=...), never pass for whole.  Needs root and loop mounts.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
need_tool mkfs.xfs
need_tool xfs_io
LC_ALL=C
export LC_ALL

img="$TMPD/u.img"
mnt="$TMPD/mnt"
mkdir -p "$mnt"
truncate -s 320M "$img"
mkfs.xfs -q -f "$img" || fail "mkfs.xfs failed"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount"
mkdir "$mnt/blk" "$mnt/leaf"
i=1
while [ $i -le 40 ]; do
	head -c $(( (i * 5003) % 90000 + 1 )) /dev/urandom > "$mnt/blk/file-$i"
	i=$((i + 1))
done
i=1
while [ $i -le 200 ]; do
	head -c $(( (i * 7919) % 60000 + 1 )) /dev/urandom > "$mnt/leaf/a-longer-file-name-$i"
	i=$((i + 1))
done
# files in several extents: appended in turns, synced between
i=0
while [ $i -lt 6 ]; do
	for f in frag-a frag-b frag-c; do
		head -c 12288 /dev/urandom >> "$mnt/leaf/$f"
		sync
	done
	i=$((i + 1))
done
sync
(cd "$mnt" && find blk leaf -type f -printf '%p\n' | sort | while read -r p; do
	echo "$(sha256sum < "$p" | cut -d' ' -f1) /$p"
done) > "$TMPD/sums"
# every third file goes, and the fragmented ones
awk 'NR % 3 == 1 || $2 ~ /frag-/ { print $2 }' "$TMPD/sums" > "$TMPD/removed"
while read -r p; do
	xfs_io -r -c 'fiemap' "$mnt$p" | awk -v p="$p" 'NR > 1 && $3 != "hole" {
		split($3, a, "[.:]"); print p, a[1], a[3] }' >> "$TMPD/extents"
done < "$TMPD/removed"
sed "s|^|$mnt|" "$TMPD/removed" | xargs rm --
sync
# new files take some of the freed space
i=0
while [ $i -lt 5 ]; do
	head -c 40000 /dev/urandom > "$mnt/new-$i"
	i=$((i + 1))
done
sync
for f in "$mnt"/new-*; do
	xfs_io -r -c 'fiemap' "$f" | awk 'NR > 1 && $3 != "hole" { split($3, a, "[.:]"); print a[1], a[3] }'
done > "$TMPD/taken"
umount "$mnt"

# removed files whose sectors a new file took
awk 'NR == FNR { s[NR] = $1; e[NR] = $2; n = NR; next }
	{ for (i = 1; i <= n; i++) if ($2 <= e[i] && $3 >= s[i]) { print $1; break } }' \
	"$TMPD/taken" "$TMPD/extents" | sort -u > "$TMPD/reused"

mkdir "$TMPD/out"
"$XFSRECON" extract "$img" -C "$TMPD/out" --deleted --manifest "$TMPD/man" > "$TMPD/ex.out" \
	2> "$TMPD/ex.err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 8 ] || fail "extract --deleted exited $rc: $(head -3 "$TMPD/ex.err")"

total=0
want=0
good=0
while read -r p; do
	total=$((total + 1))
	orig=$(awk -v p="$p" '$2 == p { print $1 }' "$TMPD/sums")
	line=$(awk -F'\t' -v p="$p" '$1 == p && $6 ~ /^deleted/' "$TMPD/man" | head -1)
	state=$(printf '%s' "$line" | cut -f6)
	got=$(printf '%s' "$line" | cut -f5)
	if grep -qx "$p" "$TMPD/reused"; then
		# its blocks went to a new file: it must not pass for whole
		case "$state" in
		deleted-lost:*|deleted:*) ;;
		*) [ "$got" != "$orig" ] ||
			fail "$p: blocks reused, yet extracted as whole ('$state')" ;;
		esac
		[ "$got" != "$orig" ] || [ -z "$got" ] || [ "$got" = "-" ] ||
			echo "note: $p: blocks reused but the content still equal"
		continue
	fi
	want=$((want + 1))
	if [ "$got" = "$orig" ] && [ "$state" = deleted ]; then
		good=$((good + 1))
	else
		case "$state" in
		deleted-lost:*|deleted:*) echo "not recovered: $p ($state)" ;;
		*) fail "$p: not recovered and no reason given (state '$state')" ;;
		esac
	fi
done < "$TMPD/removed"
echo "undelete: $total removed, $(wc -l < "$TMPD/reused") with blocks reused, $good of $want others recovered with their original SHA-256"
[ "$want" -ge 30 ] || fail "only $want removed files kept their blocks: the workload proves little"
[ $((good * 100)) -ge $((want * 90)) ] || fail "$good of $want recovered: under 90 %"
exit 0
