#!/bin/sh
# tests/golden/check_rmap.sh - the ownership cross-checks find deliberate
# damage to the reverse map, to free space and to file mappings.
#
# Each case corrupts a scratch copy of a corpus image with `xfs_db -x`
# (`fuzz -d` / `write -d`: the value changes and the CRC is recomputed, so only the
# cross-check can notice), then asserts:
#   - xfs_db applied it, and `xfs_repair -n` exits non-zero (the damage is
#     real by an independent checker);
#   - `xfsrecon check` exits 4 and names every expected finding ID; other
#     findings may be reported too.
# Rmap damage uses AG 0 of v5-rmap-reflink (a one-level rmapbt: its root is
# its leaf) and AG 3 (two levels); the free-space coverage check also runs
# on a filesystem without rmapbt (v5-normap).  Also the XML report's
# per-AG verdict on which side to believe (agree / primary / rmapbt).
#
# Only reads and copies the committed images: no root needed.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_DB"
need_tool "$XFS_REPAIR"

# IMAGE | xfs_db commands separated by ';' | expected IDs (space separated)
cases() {
	cat <<'CASES'
v5-rmap-reflink|agf 3;addr rmaproot;addr ptrs[1];fuzz -d recs[3].owner add|rmapWrongOwner
v5-rmap-reflink|agf 0;addr rmaproot;fuzz -d recs[5].startblock add|rmapMissing rmapUnowned
v5-rmap-reflink|agf 0;addr rmaproot;fuzz -d recs[5].blockcount add|rmapWrongLength
v5-rmap-reflink|agf 0;addr rmaproot;fuzz -d recs[8].offset add|rmapWrongOffset
v5-rmap-reflink|agf 0;addr rmaproot;fuzz -d recs[8].attrfork ones|rmapWrongFlags
v5-rmap-reflink|agf 1;addr bnoroot;fuzz -d recs[1].blockcount add|spaceFreeAndOwned
v5-rmap-reflink|agf 1;addr bnoroot;write -d recs[1].blockcount 1|spaceUnaccounted
v5-rmap-reflink|inode 134;fuzz -d u3.bmx[0].startblock add|rmapMissing rmapUnowned spaceFreeAndOwned
v5-normap|agf 1;addr bnoroot;fuzz -d recs[1].startblock sub|spaceUnaccounted
v5-normap|agf 1;addr bnoroot;write -d recs[1].blockcount 9|spaceFreeAndOwned
CASES
}

nfail=0
n=0
report="$TMPD/report"
: > "$report"
cases > "$TMPD/cases"
while IFS='|' read -r image cmds want; do
	[ -n "$image" ] || continue
	n=$((n + 1))
	src=$(corpus_image "$image")
	img="$TMPD/case.img"
	cp "$src" "$img" || fail "cannot copy $src"
	set --
	old_ifs=$IFS
	IFS=';'
	for c in $cmds; do
		set -- "$@" -c "$c"
	done
	IFS=$old_ifs
	"$XFS_DB" -x "$@" "$img" > "$TMPD/db.out" 2>&1
	if grep -qi -e 'not found' -e 'error' -e 'invalid' "$TMPD/db.out" || cmp -s "$src" "$img"; then
		echo "case $n ($image: $cmds): xfs_db did not apply the corruption" >> "$report"
		sed -n '1,5p' "$TMPD/db.out" >> "$report"
		nfail=$((nfail + 1))
		continue
	fi
	if "$XFS_REPAIR" -n "$img" > "$TMPD/repair.out" 2>&1; then
		echo "case $n ($image: $cmds): xfs_repair -n exits 0: the damage is not real" >> "$report"
		nfail=$((nfail + 1))
		continue
	fi
	run_limited 300 "$XFSRECON" check "$img" > "$TMPD/check.out" 2> "$TMPD/check.err"
	rc=$?
	got=$(report_ids "$TMPD/check.out" | tr '\n' ' ')
	missing=
	for id in $want; do
		case " $got " in *" $id "*) ;; *) missing="$missing $id" ;; esac
	done
	if [ $rc -ne 4 ] || [ -n "$missing" ]; then
		echo "case $n ($image: $cmds): exit status $rc (expected 4); missing:${missing:- none}; reported: ${got:-none}" >> "$report"
		sed -n '1,8p' "$TMPD/check.err" >> "$report"
		nfail=$((nfail + 1))
	fi
done < "$TMPD/cases"

# Which side each AG believes (check --xml, <ag believed=...>): a clean image
# agrees everywhere; a damaged rmapbt leaves the primary metadata believed;
# a lost inode btree leaves the rmapbt believed.
believed() {  # IMAGE-FILE AG -> the believed value of that AG
	"$XFSRECON" check --no-hash --xml "$TMPD/b.xml" "$1" > /dev/null 2>&1
	tr '<' '\n' < "$TMPD/b.xml" | sed -n "s/^ag number=\"$2\" .* believed=\"\([a-z]*\)\".*/\1/p"
}
src=$(corpus_image v5-rmap-reflink)
for ag in 0 1 2 3; do
	b=$(believed "$src" $ag)
	[ "$b" = agree ] || { echo "clean image AG $ag: believed=\"$b\" (expected agree)" >> "$report"; nfail=$((nfail + 1)); }
done
for spec in "agf 0;addr rmaproot;crc -i|0|primary" "agi 1;fuzz -d root ones|1|rmapbt"; do
	cmds=${spec%%|*} rest=${spec#*|}
	ag=${rest%%|*} want=${rest#*|}
	cp "$src" "$TMPD/b.img" || fail "cannot copy $src"
	set --
	old_ifs=$IFS
	IFS=';'
	for c in $cmds; do
		set -- "$@" -c "$c"
	done
	IFS=$old_ifs
	"$XFS_DB" -x "$@" "$TMPD/b.img" > /dev/null 2>&1
	b=$(believed "$TMPD/b.img" "$ag")
	[ "$b" = "$want" ] || { echo "$cmds: AG $ag believed=\"$b\" (expected $want)" >> "$report"; nfail=$((nfail + 1)); }
done

[ $n -gt 0 ] || fail "no cases ran"
echo "ran $n cases, $nfail failures"
if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
