#!/bin/sh
# tests/repair/root_from_log.sh - a root directory whose inode is gone gets
# its names back from the last copy the log region holds of it.
#
# The first MiB of the kernel-made corpus image v5-rmap-reflink is zeroed
# (the primary superblock, AG 0's headers and btrees and the root's inode
# chunk: the root is a short-form directory, so its names went with it).
# Its clean log still holds, behind its head, the transactions that created
# the tree.  repair -o OUT --report R must:
#   - exit 1 with OUT clean for xfs_repair -n;
#   - list the root in R's <revived> with source "log" and an LSN;
#   - keep at their paths the top-level directories whose inodes lie outside
#     the zeroed MiB, with their whole subtrees;
#   - bring /data and its files back whole from their copies in the log
#     (their inodes were in the zeroed chunk): each listed in <revived> with
#     source "log", at its path, with the clean image's content and mtime;
#   - keep strictly more paths at their place than xfs_repair does on the
#     same damage (it moves everything to lost+found).
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool xmllint
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_REPAIR"
X=$XFSRECON
S=$TMPD
clean=$(corpus_image v5-rmap-reflink)
cp --sparse=always "$clean" "$S/c.img" || fail "cannot copy"
dd if=/dev/zero of="$S/c.img" bs=1M count=1 conv=notrunc 2>/dev/null || fail "dd"
"$X" ls -R "$clean" | sort > "$S/clean.paths" || fail "ls -R of the clean image"

"$X" repair "$S/c.img" -o "$S/out.img" --report "$S/r.xml" > "$S/rep" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "repair exits $rc: $(tail -5 "$S/rep")"
"$XFS_REPAIR" -n "$S/out.img" > "$S/xrn" 2>&1 || fail "xfs_repair -n on OUT: $(grep -v '^ ' "$S/xrn" | tail -5)"
xmllint --noout --schema "$top_srcdir/doc/repair-report.xsd" "$S/r.xml" 2> "$S/xl" ||
	fail "the report does not validate: $(cat "$S/xl")"
root=$(grep '<inode ino="128" ' "$S/r.xml")
case "$root" in
*'source="log" lsn="'[1-9]*) ;;
*) fail "the root is not reported as revived from the log: $root" ;;
esac

"$X" ls -R "$S/out.img" | sort > "$S/out.paths" || fail "ls -R of OUT"
for top in attrs data dirs links many; do
	want=$(grep -c "^/$top\(/\|$\)" "$S/clean.paths")
	got=$(grep "^/$top\(/\|$\)" "$S/out.paths" | comm -12 - "$S/clean.paths" | wc -l)
	[ "$got" -gt 0 ] || fail "/$top is not at its path"
	# /dirs/leaf lost the names in its blocks in the zeroed MiB; the
	# reflinked copy in /data shares its blocks with another file's
	case $top in dirs|data) ;; *) [ "$got" -eq "$want" ] || fail "/$top keeps $got of its $want paths" ;; esac
done
same=0
for f in /data/small.txt /data/medium.txt /data/big.txt /data/empty; do
	ino=$("$X" ls -l "$clean" /data | awk -v n="$(basename "$f")" '$NF == n { print $1 }')
	grep -q "<inode ino=\"$ino\" type=\"regular\" source=\"log\" lsn=\"[1-9]" "$S/r.xml" ||
		fail "$f ($ino) is not reported as revived from the log"
	# content where its blocks lie past the zeroed MiB (/data/big.txt's
	# lay inside it: its map comes back, its bytes cannot; the image has
	# 4 KiB blocks, and an AG 0 block number is its fsblock)
	fsb=$("$X" stat "$clean" "$f" | sed -n 's/^  \[0\.\.[0-9]*\] -> fsblock \([0-9]*\) .*/\1/p')
	if [ -z "$fsb" ] || [ $((fsb * 4096)) -ge 1048576 ]; then
		"$X" cat "$S/out.img" "$f" > "$S/got" 2> "$S/cat" || fail "cat $f of OUT: $(cat "$S/cat")"
		"$X" cat "$clean" "$f" > "$S/want" || fail "cat $f of the clean image"
		[ "$(file_sha "$S/got")" = "$(file_sha "$S/want")" ] || fail "$f differs after repair"
		same=$((same + 1))
	fi
	a=$("$X" ls -l "$clean" /data | awk -v n="$(basename "$f")" '$NF == n { print $6, $7 }')
	b=$("$X" ls -l "$S/out.img" /data | awk -v n="$(basename "$f")" '$NF == n { print $6, $7 }')
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "$f: mtime '$b', the clean image's '$a'"
done
[ $same -ge 2 ] || fail "only $same revived files could be compared"
ours=$(comm -12 "$S/out.paths" "$S/clean.paths" | wc -l)

cp --sparse=always "$S/c.img" "$S/x.img"
"$XFS_REPAIR" "$S/x.img" > "$S/xr" 2>&1 || "$XFS_REPAIR" -L "$S/x.img" > "$S/xr" 2>&1
"$X" ls -R "$S/x.img" | sort > "$S/x.paths" 2>/dev/null
theirs=$(comm -12 "$S/x.paths" "$S/clean.paths" | wc -l)
[ "$ours" -gt "$theirs" ] || fail "we keep $ours paths at their place, xfs_repair $theirs"
echo "root revived from the log: $ours paths at their place (xfs_repair: $theirs) of $(wc -l < "$S/clean.paths")"
exit 0
