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
#     the zeroed MiB (every name the clean root holds but /data, whose
#     inode was in the zeroed chunk), with their whole subtrees;
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
for top in attrs dirs links many; do
	want=$(grep -c "^/$top\(/\|$\)" "$S/clean.paths")
	got=$(grep "^/$top\(/\|$\)" "$S/out.paths" | comm -12 - "$S/clean.paths" | wc -l)
	[ "$got" -gt 0 ] || fail "/$top is not at its path"
	# /dirs/leaf lost the names whose inodes or blocks were in the zeroed MiB
	[ "$top" = dirs ] || [ "$got" -eq "$want" ] || fail "/$top keeps $got of its $want paths"
done
ours=$(comm -12 "$S/out.paths" "$S/clean.paths" | wc -l)

cp --sparse=always "$S/c.img" "$S/x.img"
"$XFS_REPAIR" "$S/x.img" > "$S/xr" 2>&1 || "$XFS_REPAIR" -L "$S/x.img" > "$S/xr" 2>&1
"$X" ls -R "$S/x.img" | sort > "$S/x.paths" 2>/dev/null
theirs=$(comm -12 "$S/x.paths" "$S/clean.paths" | wc -l)
[ "$ours" -gt "$theirs" ] || fail "we keep $ours paths at their place, xfs_repair $theirs"
echo "root revived from the log: $ours paths at their place (xfs_repair: $theirs) of $(wc -l < "$S/clean.paths")"
exit 0
