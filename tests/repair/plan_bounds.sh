#!/bin/sh
# tests/repair/plan_bounds.sh - a plan or undo file may not write outside
# the filesystem it describes.
#
# A corrupted image C (repair case agi3-unlinked) is planned (P); the
# target T is a copy of C with 1 MiB more after the filesystem (a disk
# whose next partition follows).  END = dblocks x blocksize, from xfs_db.
# planedit forges P2: P plus a 4096-byte write at END whose "before" digest
# is what T holds there and whose digests all match.  Then:
#   - apply P2 T --offset 0 and apply P2 T are refused (exit 8, "outside"),
#     and T is unchanged (SHA-256);
#   - show-plan P2 exits 4, says so at the top and flags that write;
#   - apply P T --undo U works (exit 0); U2 is U forged the same way;
#     undo U2 T is refused and T's bytes past END are still as they were;
#     show-plan U2 flags the write.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool sha256sum
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_DB"
export XFS_DB XFS_REPAIR
X=$XFSRECON
PE=$top_builddir/tests/tools/planedit
[ -x "$PE" ] || fail "tests/tools/planedit is not built"
SCR=$TMPD

zstd -q -d -f -o "$SCR/base.img" "$top_srcdir/corpus/images/v5-rmap-reflink.img.zst" ||
	fail "cannot decompress the corpus image"
sh "$top_srcdir/tests/repair/make-case.sh" agi3-unlinked "$SCR/base.img" "$SCR/c.img" \
	< /dev/null > "$SCR/mk" 2>&1 || fail "cannot make the case: $(cat "$SCR/mk")"
rm -f "$SCR/base.img"
"$X" plan "$SCR/c.img" -o "$SCR/p.plan" > /dev/null 2>&1
rc=$?
[ $rc -eq 1 ] || fail "plan exits $rc"
dblocks=$("$XFS_DB" -r -c 'sb 0' -c 'p dblocks' "$SCR/c.img" | sed -n 's/^dblocks = //p')
bsize=$("$XFS_DB" -r -c 'sb 0' -c 'p blocksize' "$SCR/c.img" | sed -n 's/^blocksize = //p')
[ -n "$dblocks" ] && [ -n "$bsize" ] || fail "xfs_db does not give the geometry"
end=$((dblocks * bsize))
cp --sparse=always "$SCR/c.img" "$SCR/t.img" || fail "cannot copy"
truncate -s $((end + 1048576)) "$SCR/t.img" || fail "cannot extend the target"
head -c 4096 /dev/zero > "$SCR/before"

"$PE" "$SCR/p.plan" "$SCR/p2.plan" "$end" "$SCR/before" 0x58 || fail "planedit fails on the plan"
ht=$(file_sha "$SCR/t.img")
tail_sha=$(range_sha "$SCR/t.img" "$end" 1048576)
nfail=0
no() {
	echo "FAIL: $*" >&2
	nfail=$((nfail + 1))
}

for off in "--offset 0" ""; do
	# shellcheck disable=SC2086
	"$X" apply "$SCR/p2.plan" "$SCR/t.img" $off > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq 8 ] && grep -q 'outside the filesystem' "$SCR/out" ||
		no "apply $off of a plan writing past the filesystem exits $rc: $(cat "$SCR/out")"
done
[ "$(file_sha "$SCR/t.img")" = "$ht" ] || no "the target was written"
"$X" show-plan "$SCR/p2.plan" > "$SCR/show" 2>&1
rc=$?
[ $rc -eq 4 ] || no "show-plan of the forged plan exits $rc"
grep -q "^WARNING: 1 writes reach outside the filesystem" "$SCR/show" ||
	no "show-plan does not warn: $(head -3 "$SCR/show")"
grep -q "4096 bytes at byte $end (sb).*OUTSIDE THE FILESYSTEM" "$SCR/show" ||
	no "show-plan does not flag the write at byte $end"

# The undo file, forged the same way.
"$X" apply "$SCR/p.plan" "$SCR/t.img" --undo "$SCR/u.undo" > "$SCR/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "apply of the plan exits $rc: $(cat "$SCR/out")"
"$PE" "$SCR/u.undo" "$SCR/u2.undo" "$end" "$SCR/before" 0x58 || fail "planedit fails on the undo file"
"$X" undo "$SCR/u2.undo" "$SCR/t.img" > "$SCR/out" 2>&1
rc=$?
[ $rc -eq 8 ] && grep -q 'outside the filesystem' "$SCR/out" ||
	no "undo of a file writing past the filesystem exits $rc: $(cat "$SCR/out")"
[ "$(range_sha "$SCR/t.img" "$end" 1048576)" = "$tail_sha" ] || no "undo wrote past the filesystem"
"$X" show-plan "$SCR/u2.undo" > "$SCR/show" 2>&1
rc=$?
[ $rc -eq 4 ] && grep -q "OUTSIDE THE FILESYSTEM" "$SCR/show" ||
	no "show-plan does not flag the forged undo file (exit $rc)"
[ $nfail -eq 0 ] || fail "$nfail checks failed"
exit 0
