#!/bin/sh
# tests/golden/check_corrupt.sh - xfsrecon check finds deliberate corruption.
#
# Each case below corrupts a scratch copy of a corpus image with `xfs_db -x`
# (deterministic verbs only: fuzz zeroes/ones/firstbit/lastbit/add/sub,
# write, crc -i), then asserts:
#   - xfs_db applied it, and `xfs_repair -n` exits non-zero (the corruption
#     is real); for cases marked `silent` (see below) the copy must differ
#     from the original instead;
#   - `xfsrecon check` finishes (no crash, no hang: exit status < 124),
#     exits 4, and names every expected finding ID in brackets ("[agfBadCrc]")
#     in its text report.  Other findings may be reported too.
#
# `fuzz -d` writes an insane value and recomputes the CRC ("good CRC,
# insane value"); `fuzz -c` leaves the CRC stale (two findings: the value
# and the CRC); `crc -i` damages only the CRC.
#
# Only reads and copies the committed images: no root needed.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_DB"
need_tool "$XFS_REPAIR"

# The table: IMAGE | xfs_db commands, separated by ';' | expected IDs | flag
#
# Every expected ID must be reported; "a/b" means either a or b (where two
# findings describe the damage equally well).  A counter that is plausible
# but disagrees with what the trees hold is a cross-check finding (cnt*),
# a root pointing at an AG header block is a collision (*RootsCollide).
#
# A token @HDR AG FIELD@ in the commands is replaced by that field's value
# in the uncorrupted image (e.g. @agf 3 flfirst@).
#
# Flag `silent`: xfs_repair -n (xfsprogs 6.1) exits 0 on this corruption,
# but the kernel's verifiers or scrub reject it, so we must still flag it:
#   - AGFL header fields: xfs_repair prints "Metadata corruption detected"
#     and exits 0, because phase 5 rebuilds the AGFL anyway; the kernel's
#     AGFL verifier refuses the block.
#   - node keys that do not match the child's first key, and a leaf's
#     right-sibling pointer to the wrong block: xfs_repair does not compare
#     keys or follow sibling pointers; online scrub does.
#
# Most cases use AG 3 of v5-rmap-reflink, where every per-AG btree has two
# levels (root and leaves; see corpus/README.md).
cases() {
	cat <<'EOF'
v5-rmap-reflink|sb 0;crc -i|sbBadCrc|
v5-rmap-reflink|sb 0;fuzz -d magicnum zeroes|sbBadMagic|
v5-rmap-reflink|sb 0;fuzz -d versionnum zeroes|sbBadVersion|
v5-rmap-reflink|sb 0;fuzz -d blocksize ones|sbBadBlocksize|
v5-rmap-reflink|sb 0;fuzz -d sectsize zeroes|sbBadSectsize|
v5-rmap-reflink|sb 0;fuzz -d inodesize ones|sbBadInodesize|
v5-rmap-reflink|sb 0;fuzz -d inopblock add|sbBadInopblock|
v5-rmap-reflink|sb 0;fuzz -d agblocks zeroes|sbBadAgblocks|
v5-rmap-reflink|sb 0;fuzz -d agcount add|sbBadAgcount|
v5-rmap-reflink|sb 0;fuzz -d agblklog add|sbBadAgblklog|
v5-rmap-reflink|sb 0;fuzz -d dblocks add|sbBadDblocks|
v5-rmap-reflink|sb 0;fuzz -d logstart ones|sbBadLogGeometry|
v5-rmap-reflink|sb 0;fuzz -d rootino ones|sbBadRootIno|
v5-rmap-reflink|sb 0;fuzz -d imax_pct ones|sbBadImaxPct|
v5-rmap-reflink|sb 0;fuzz -d shared_vn add|sbSharedVn|
v5-rmap-reflink|sb 0;fuzz -d features_incompat firstbit|sbUnknownFeature|
v5-rmap-reflink|sb 0;fuzz -d bad_features2 add|sbFeatures2Mismatch|
v5-rmap-reflink|sb 0;fuzz -d dirblklog ones|sbBadDirblklog|
v5-rmap-reflink|sb 0;fuzz -d icount ones|sbBadCounter|
v5-rmap-reflink|sb 0;fuzz -d fdblocks ones|sbBadCounter|
v5-rmap-reflink|sb 0;fuzz -c inprogress add|sbBadCrc sbInProgress|
v5-rmap-reflink|sb 1;crc -i|sbBadCrc|
v5-rmap-reflink|sb 1;fuzz -d magicnum zeroes|sbSecondaryUnreadable|
v5-rmap-reflink|sb 2;fuzz -d features_ro_compat lastbit|sbSecondaryMismatch|
v5-rmap-reflink|agf 3;crc -i|agfBadCrc|
v5-rmap-reflink|agf 3;fuzz -d magicnum zeroes|agfBadMagic|
v5-rmap-reflink|agf 3;fuzz -d versionnum add|agfBadVersion|
v5-rmap-reflink|agf 3;fuzz -d seqno add|agfBadSeqno|
v5-rmap-reflink|agf 3;fuzz -d length add|agfBadLength|
v5-rmap-reflink|agf 3;fuzz -d bnoroot ones|agfBadRoot|
v5-rmap-reflink|agf 3;fuzz -d cntroot zeroes|agfRootsCollide|
v5-rmap-reflink|agf 3;fuzz -d rmaproot ones|agfBadRoot|
v5-rmap-reflink|agf 3;fuzz -d refcntroot ones|agfBadRoot|
v5-rmap-reflink|agf 3;fuzz -d bnolevel ones|agfBadLevel|
v5-rmap-reflink|agf 3;fuzz -d rmaplevel zeroes|agfBadLevel|
v5-rmap-reflink|agf 3;fuzz -d flfirst ones|agfBadFlIndex|
v5-rmap-reflink|agf 3;fuzz -d flcount add|agfBadFlCount|
v5-rmap-reflink|agf 3;fuzz -d freeblks add|cntAgfFreeblks|
v5-rmap-reflink|agf 3;fuzz -c freeblks add|agfBadCrc cntAgfFreeblks|
v5-rmap-reflink|agf 3;fuzz -d longest sub|cntAgfLongest|
v5-rmap-reflink|agf 3;fuzz -d btreeblks add|cntAgfBtreeblks|
v5-rmap-reflink|agf 3;fuzz -d rmapblocks add|cntAgfBtreeblks|
v5-rmap-reflink|agf 3;fuzz -d refcntblocks add|cntAgfBtreeblks|
v5-rmap-reflink|agf 3;fuzz -d uuid firstbit|agfBadUuid|
v5-rmap-reflink|agi 3;crc -i|agiBadCrc|
v5-rmap-reflink|agi 3;fuzz -d magicnum zeroes|agiBadMagic|
v5-rmap-reflink|agi 3;fuzz -d versionnum add|agiBadVersion|
v5-rmap-reflink|agi 3;fuzz -d seqno add|agiBadSeqno|
v5-rmap-reflink|agi 3;fuzz -d length sub|agiBadLength|
v5-rmap-reflink|agi 3;fuzz -d root ones|agiBadRoot|
v5-rmap-reflink|agi 3;fuzz -d level ones|agiBadLevel|
v5-rmap-reflink|agi 3;fuzz -d free_root zeroes|agiRootsCollide|
v5-rmap-reflink|agi 3;fuzz -d free_level add|agiBadLevel|
v5-rmap-reflink|agi 3;fuzz -d count add|cntAgiCount|
v5-rmap-reflink|agi 3;fuzz -d freecount add|cntAgiCount|
v5-rmap-reflink|agi 3;fuzz -c freecount add|agiBadCrc cntAgiCount|
v5-rmap-reflink|agi 3;fuzz -d uuid firstbit|agiBadUuid|
v5-rmap-reflink|agi 3;write -d unlinked[3] 5|agiBadUnlinked|
v5-rmap-reflink|agi 3;fuzz -d ino_blocks add|cntAgiBlocks|
v5-rmap-reflink|agi 3;fuzz -d fino_blocks zeroes|cntAgiBlocks|
v5-rmap-reflink|agfl 3;crc -i|agflBadCrc|
v5-rmap-reflink|agfl 3;fuzz -d magicnum zeroes|agflBadMagic|silent
v5-rmap-reflink|agfl 3;fuzz -d seqno add|agflBadSeqno|silent
v5-rmap-reflink|agfl 3;fuzz -d uuid firstbit|agflBadUuid|silent
v5-rmap-reflink|agfl 3;write -d bno[@agf 3 flfirst@] 0|agflBadBlock|
v5-rmap-reflink|agfl 3;write -d bno[@agf 3 fllast@] 30000|agflBadBlock|
v5-rmap-reflink|agf 3;addr bnoroot;crc -i|btBadCrc|
v5-rmap-reflink|agf 3;addr bnoroot;fuzz -d magic zeroes|btBadMagic|
v5-rmap-reflink|agf 3;addr bnoroot;fuzz -d level add|btBadLevel|
v5-rmap-reflink|agf 3;addr bnoroot;fuzz -d numrecs ones|btBadNumrecs|
v5-rmap-reflink|agf 3;addr bnoroot;fuzz -d bno add|btBadBlkno|
v5-rmap-reflink|agf 3;addr bnoroot;fuzz -d uuid firstbit|btBadUuid|
v5-rmap-reflink|agf 3;addr bnoroot;fuzz -d owner add|btBadOwner|
v5-rmap-reflink|agf 3;addr bnoroot;fuzz -d leftsib zeroes|btBadSibling|
v5-rmap-reflink|agf 3;addr bnoroot;fuzz -d keys[2].startblock add|btKeyMismatch|silent
v5-rmap-reflink|agf 3;addr bnoroot;fuzz -d ptrs[2] ones|btBadPointer|
v5-rmap-reflink|agf 3;addr bnoroot;addr ptrs[1];crc -i|btBadCrc|
v5-rmap-reflink|agf 3;addr bnoroot;addr ptrs[1];fuzz -d magic zeroes|btBadMagic|
v5-rmap-reflink|agf 3;addr bnoroot;addr ptrs[1];fuzz -d level add|btBadLevel|
v5-rmap-reflink|agf 3;addr bnoroot;addr ptrs[1];fuzz -d rightsib add|btBadSibling|silent
v5-rmap-reflink|agf 3;addr bnoroot;addr ptrs[1];fuzz -d leftsib zeroes|btBadSibling|
v5-rmap-reflink|agf 3;addr bnoroot;addr ptrs[1];fuzz -d recs[2].startblock zeroes|btRecsOutOfOrder|
v5-rmap-reflink|agf 3;addr bnoroot;addr ptrs[1];fuzz -d recs[2].blockcount add|btRecsOverlap|
v5-rmap-reflink|agf 3;addr cntroot;crc -i|btBadCrc|
v5-rmap-reflink|agf 3;addr cntroot;fuzz -d magic ones|btBadMagic|
v5-rmap-reflink|agf 3;addr cntroot;addr ptrs[1];fuzz -d numrecs ones|btBadNumrecs|
v5-rmap-reflink|agf 3;addr cntroot;addr ptrs[1];fuzz -d recs[3].blockcount add|btRecsOutOfOrder|
v5-rmap-reflink|agf 3;addr rmaproot;crc -i|btBadCrc|
v5-rmap-reflink|agf 3;addr rmaproot;fuzz -d magic zeroes|btBadMagic|
v5-rmap-reflink|agf 3;addr rmaproot;fuzz -d owner add|btBadOwner|
v5-rmap-reflink|agf 3;addr rmaproot;addr ptrs[1];fuzz -d level add|btBadLevel|
v5-rmap-reflink|agf 3;addr rmaproot;addr ptrs[1];fuzz -d bno zeroes|btBadBlkno|
v5-rmap-reflink|agf 3;addr refcntroot;crc -i|btBadCrc|
v5-rmap-reflink|agf 3;addr refcntroot;fuzz -d magic zeroes|btBadMagic|
v5-rmap-reflink|agf 3;addr refcntroot;addr ptrs[1];fuzz -d uuid firstbit|btBadUuid|
v5-rmap-reflink|agf 3;addr refcntroot;addr ptrs[1];fuzz -d recs[1].refcount zeroes|btBadRecord|
v5-rmap-reflink|agi 3;addr root;crc -i|btBadCrc|
v5-rmap-reflink|agi 3;addr root;fuzz -d magic zeroes|btBadMagic|
v5-rmap-reflink|agi 3;addr root;fuzz -d numrecs zeroes|btEmptyBlock|
v5-rmap-reflink|agi 3;addr root;addr ptrs[1];fuzz -d level add|btBadLevel|
v5-rmap-reflink|agi 3;addr root;addr ptrs[1];fuzz -d recs[2].startino add|ichunkMisaligned|
v5-rmap-reflink|agi 3;addr root;addr ptrs[1];fuzz -d recs[2].freecount add|ichunkBadCount|
v5-rmap-reflink|agi 3;addr free_root;crc -i|btBadCrc|
v5-rmap-reflink|agi 3;addr free_root;fuzz -d magic zeroes|btBadMagic|
v5-rmap-reflink|agi 3;addr free_root;addr ptrs[1];fuzz -d owner add|btBadOwner|
v5-rmap-reflink|path /many/extents;addr u3.bmbt.ptrs[1];crc -i|btBadCrc|
v5-rmap-reflink|path /many/extents;addr u3.bmbt.ptrs[1];fuzz -d magic zeroes|btBadMagic|
v5-rmap-reflink|path /many/extents;addr u3.bmbt.ptrs[1];fuzz -d level add|btBadLevel|
v5-rmap-reflink|path /many/extents;addr u3.bmbt.ptrs[1];fuzz -d owner add|btBadOwner|
v5-rmap-reflink|path /many/extents;addr u3.bmbt.ptrs[1];fuzz -d bno add|btBadBlkno|
v5-rmap-reflink|path /many/extents;addr u3.bmbt.ptrs[1];fuzz -d leftsib zeroes|btBadSibling/btBadSiblingPtr|
v5-rmap-reflink|path /many/extents;addr u3.bmbt.ptrs[1];fuzz -d numrecs ones|btBadNumrecs|
v5-rmap-reflink|path /data/small.txt;crc -i|inoBadCrc|
v5-rmap-reflink|path /data/small.txt;fuzz -d core.magic zeroes|inoBadMagic|
v5-rmap-reflink|path /data/small.txt;write -d core.mode 0170644|inoBadMode|
v5-rmap-reflink|path /data/small.txt;fuzz -d core.format ones|inoBadFormat|
v5-rmap-reflink|path /data/small.txt;fuzz -c core.format ones|inoBadCrc inoBadFormat|
v5-rmap-reflink|path /attrs/local;fuzz -d core.forkoff ones|inoBadForkoff|
v5-rmap-reflink|path /data/small.txt;fuzz -d core.nextents ones|inoBadNextents|
v5-rmap-reflink|path /data/small.txt;fuzz -d core.size ones|inoBadSize|
v5-rmap-reflink|path /data/small.txt;fuzz -d core.version ones|inoBadVersion|
v5-rmap-reflink|path /data/small.txt;fuzz -d v3.inumber add|inoBadInumber|
v5-rmap-reflink|path /data/small.txt;fuzz -d v3.uuid firstbit|inoBadUuid|
v5-rmap-reflink|path /data/small.txt;fuzz -d core.onlink add|inoBadOnlink|
v5-rmap-reflink|path /data/small.txt;fuzz -d core.nblocks add|inoBadNblocks|
v5-rmap-reflink|path /dirs/block;fuzz -d core.format zeroes|inoBadFormat|
v5-rmap-reflink|path /links/short;fuzz -d core.size add|inoBadSize/inoBadFormat|
v4|sb 1;fuzz magicnum zeroes|sbSecondaryUnreadable|
v4|agf 1;fuzz magicnum zeroes|agfBadMagic|
v4|agi 2;fuzz seqno add|agiBadSeqno|
v4|agi 0;addr root;fuzz magic zeroes|btBadMagic|
v4|path /home/notes.txt;fuzz core.magic zeroes|inoBadMagic|
v4|path /home/notes.txt;fuzz core.version add|inoBadVersion|
v5-4ksect|agfl 2;crc -i|agflBadCrc|
v5-4ksect|agi 1;fuzz -d length add|agiBadLength|
v5-1k|agf 0;addr bnoroot;addr ptrs[1];crc -i|btBadCrc|
v5-1k|agf 0;fuzz -d cntlevel ones|agfBadLevel|
v5-nrext64-bigtime|path /home/user/notes.txt;fuzz -d core.nextents ones|inoBadNextents|
v5-nrext64-bigtime|agf 2;fuzz -d freeblks add|cntAgfFreeblks|
v5-normap|agf 1;fuzz -d bnoroot zeroes|agfRootsCollide|
v5-normap|agi 2;addr root;fuzz -d owner add|btBadOwner|
EOF
}

# Every ID in the table must exist: a typo would make a case unpassable.
problem_ids > "$TMPD/known"
cases | awk -F '|' '{ n = split($3, w, /[ \/]/); for (i = 1; i <= n; i++) print w[i] }' | sort -u > "$TMPD/wanted"
unknown=$(grep -vxF -f "$TMPD/known" "$TMPD/wanted" | tr '\n' ' ')
[ -z "$unknown" ] || fail "IDs in the case table but not in formats/problems.def: $unknown"

# field_of IMG "HDR AG FIELD": raw value of one field of a header
field_of() {
	set -- "$1" $2
	"$XFS_DB" -r -c "$2 $3" -c "p $4" "$1" | sed -n "s/^$4 = //p"
}

# expand IMG CMDS: replace each @HDR AG FIELD@ by its value in IMG
expand() {
	_c=$2
	while :; do
		case "$_c" in *@*@*) ;; *) break ;; esac
		_tok=${_c#*@}
		_tok=${_tok%%@*}
		_v=$(field_of "$1" "$_tok")
		[ -n "$_v" ] || { echo "cannot read $_tok" >&2; return 1; }
		_c=$(printf '%s' "$_c" | sed "s|@$_tok@|$_v|")
	done
	printf '%s\n' "$_c"
}

# corrupt IMG CMDS: run the ';'-separated xfs_db commands in expert mode
corrupt() {
	_img=$1
	_old=$IFS
	IFS=';'
	# shellcheck disable=SC2086
	set -- $2
	IFS=$_old
	_args=""
	for _c in "$@"; do
		_args="$_args -c '$_c'"
	done
	eval "\"\$XFS_DB\" -x $_args \"\$_img\""
}

nfail=0
ncase=0
report="$TMPD/report"
: > "$report"
scratch="$TMPD/case.img"

cases > "$TMPD/cases"
while IFS='|' read -r name cmds want flag; do
	ncase=$((ncase + 1))
	label="case $ncase ($name: $cmds)"
	base=$(corpus_image "$name")
	cmds=$(expand "$base" "$cmds" < /dev/null) || { echo "$label: cannot expand" >> "$report"; nfail=$((nfail + 1)); continue; }
	cp "$base" "$scratch" || fail "cannot copy $base"
	corrupt "$scratch" "$cmds" < /dev/null > "$TMPD/db.out" 2>&1
	# xfs_db exits 0 even when a command fails: look at what it said.  A
	# non-silent case is proven real by xfs_repair below; a silent one is
	# also compared byte for byte (slow on 400 MB, so only there).
	if grep -qE 'not found|no current|No such|out of range|parsing error|Usage|unknown|invalid|bad input|cannot' "$TMPD/db.out" ||
		{ [ "$flag" = silent ] && cmp -s "$base" "$scratch"; }; then
		echo "$label: xfs_db did not apply the corruption: $(grep -v '^Allowing' "$TMPD/db.out" | head -n 2 | tr '\n' ' ')" >> "$report"
		nfail=$((nfail + 1))
		continue
	fi

	"$XFS_REPAIR" -n "$scratch" < /dev/null > "$TMPD/repair.out" 2>&1
	rc=$?
	if [ "$flag" = silent ]; then
		[ $rc -eq 0 ] || echo "note: $label: xfs_repair -n now flags this (exit status $rc); the silent mark can go"
	elif [ $rc -eq 0 ]; then
		echo "$label: xfs_repair -n exits 0: the corruption is not real" >> "$report"
		nfail=$((nfail + 1))
	fi

	run_limited 300 "$XFSRECON" check "$scratch" < /dev/null > "$TMPD/check.out" 2> "$TMPD/check.err"
	rc=$?
	if [ $rc -ge 124 ]; then
		echo "$label: xfsrecon check crashed or hung (exit status $rc)" >> "$report"
		sed -n '1,10p' "$TMPD/check.err" >> "$report"
		nfail=$((nfail + 1))
		continue
	fi
	got=$(report_ids "$TMPD/check.out")
	missing=""
	for alt in $want; do
		found=0
		for id in $(printf '%s\n' "$alt" | tr '/' ' '); do
			printf '%s\n' "$got" | grep -qxF "$id" && found=1
		done
		[ $found -eq 1 ] || missing="$missing $alt"
	done
	if [ $rc -ne 4 ] || [ -n "$missing" ]; then
		echo "$label: exit status $rc (expected 4); missing:${missing:- none}; reported: $(printf '%s' "$got" | tr '\n' ' ')" >> "$report"
		[ $rc -eq 4 ] || sed -n '1,3p' "$TMPD/check.err" >> "$report"
		nfail=$((nfail + 1))
	fi
done < "$TMPD/cases"

echo "$ncase corruption cases, $nfail failures"
if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
