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
# The cases run in $CHECK_CORRUPT_JOBS (default 2) parallel workers, each on
# its own scratch copy; messages come out in table order at the end.  The
# images and scratch copies live in /dev/shm when it is writable: rewriting
# a 400 MB sparse copy for every case on a disk-backed filesystem costs
# writeback, which on a busy machine takes longer than the cases themselves.
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
# in the uncorrupted image (e.g. @agf 3 flfirst@); HDR AG may also be
# `path /some/path`, and `+ N` or `- N` after FIELD adds or subtracts
# (e.g. @path /dirs/short core.size - 14@).  tests/corrupt-lib.sh applies
# the commands and says more.
#
# Flag `silent`: xfs_repair -n (xfsprogs 6.1) exits 0 on this corruption,
# but the kernel's verifiers or scrub reject it, so we must still flag it:
#   - AGFL header fields: xfs_repair prints "Metadata corruption detected"
#     and exits 0, because phase 5 rebuilds the AGFL anyway; the kernel's
#     AGFL verifier refuses the block.
#   - node keys that do not match the child's first key, and a leaf's
#     right-sibling pointer to the wrong block: xfs_repair does not compare
#     keys or follow sibling pointers; online scrub does.
#   - attribute leaf and node blocks with a bad CRC: xfs_repair prints
#     "Metadata CRC error detected" and exits 0; the kernel's read verifier
#     refuses the block (getfattr: "Structure needs cleaning").
#   - a short-form attribute with two namespace bits, and a remote value
#     block whose owner or offset is wrong: xfs_repair does not look; the
#     kernel refuses them (short-form verifier; "remote attribute header
#     mismatch" when the value is read).
#
# Flag `todo`: the check that should catch this is not wired into
# `xfsrecon check` yet.  The case still runs and must still be real damage
# (xfs_db applied it, xfs_repair flags it unless `silent`, no crash), but a
# miss is printed as "TODO" and does not fail the test; a todo case that
# passes is printed too, so that the mark can go.  Flags are separated by
# spaces ("silent todo").
#
# Most cases use AG 3 of v5-rmap-reflink, where every per-AG btree has two
# levels (root and leaves; see corpus/README.md).  The v5-files cases damage
# directories of every form, symlink and attribute blocks, link counts and
# the many-extent file /frag/extents (bmbt of height 2 below its inode root);
# corpus/README.md lists what each path of that image is.  The cases at the
# end name the fork-mapping findings (0x0Dxx) of formats/bmap.c, which the
# fork walk applies to every mapping of every inode.
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
v5-rmap-reflink|agi 3;addr root;addr ptrs[1];write -d recs[3].startino 30016|ichunkRmapDisagree btRecsOutOfOrder|
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
v5-rmap-reflink|agf 0;addr refcntroot;fuzz -d recs[1].refcount add|refcMismatch|
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
v5-rmap-reflink|path /data/big.reflink;write -d v3.reflink 0|inoReflinkFlagMissing|
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
v5-files|path /dirs/short;write -d u3.sfdir3.hdr.i8count 1|dirSfBadI8count/dirSfEntryOverrun|
v5-files|path /dirs/short;write -d u3.sfdir3.hdr.parent.i4 0|dirSfBadParent|
v5-files|path /dirs/short;write -d u3.sfdir3.list[2].offset 0x60|dirSfBadOffset|
v5-files|path /dirs/short;fuzz -d u3.sfdir3.list[1].namelen ones|dirSfEntryOverrun|
v5-files|path /dirs/short;write -d u3.sfdir3.list[1].namelen 0|dirBadNamelen|
v5-files|path /dirs/short;fuzz -d u3.sfdir3.hdr.count add|dirSfEntryOverrun/dirSfSizeMismatch|
v5-files|path /dirs/short;write -d core.size 3|dirSfTooShort|
v5-files|path /dirs/short;write -d core.size 400|dirSfBadSize|
v5-files|path /dirs/short;write -d u3.sfdir3.list[0].filetype 2|nsFtypeMismatch|
v5-files|path /dirs/short;write -d u3.sfdir3.list[0].filetype 9|dirBadFtype|
v5-files|path /dirs/short;write -d u3.sfdir3.list[0].inumber.i4 @path /dirs/block/block-entry-0001 v3.inumber - 1@|nsEntryBadInode|
v5-files|path /dirs/short;write -d u3.sfdir3.hdr.count 4;write -d core.size @path /dirs/short core.size - 14@|nsOrphanDir nsBadLinkCount|
v5-files|path /dirs/block;dblock 0;crc -i|daBadCrc|
v5-files|path /dirs/block;dblock 0;fuzz -d bhdr.hdr.magic zeroes|daBadMagic|
v5-files|path /dirs/block;dblock 0;fuzz -d bhdr.hdr.owner add|daBadOwner|
v5-files|path /dirs/block;dblock 0;fuzz -d bhdr.hdr.bno add|daBadBlkno|
v5-files|path /dirs/block;dblock 0;write -d bu[3].inumber @path /dirs/block/block-entry-0001 v3.inumber - 1@|nsEntryBadInode|
v5-files|path /dirs/block;dblock 0;write -d bu[3].inumber 0x10000000|dirBadInumber|
v5-files|path /dirs/block;dblock 0;write -d bu[3].namelen 0|dirBadNamelen|
v5-files|path /dirs/block;dblock 0;fuzz -d bu[3].tag add|dirBadTag|
v5-files|path /dirs/block;dblock 0;fuzz -d bhdr.bestfree[0].length add|dirBestfreeBad|
v5-files|path /dirs/block;dblock 0;write -d bhdr.bestfree[2].length 0x700|dirBestfreeOrder|
v5-files|path /dirs/block;dblock 0;write -d bu[3].filetype 2|nsFtypeMismatch|
v5-files|path /dirs/block;dblock 0;fuzz -d btail.count add|dirBlockBadCount|
v5-files|path /dirs/block;dblock 0;fuzz -d btail.stale add|dirLeafBadStale|
v5-files|path /dirs/block;dblock 0;fuzz -d bleaf[5].hashval zeroes|daHashOrder|
v5-files|path /dirs/leaf;dblock 0;write -c dhdr.hdr.crc 0|daBadCrc|
v5-files|path /dirs/leaf;dblock 0;fuzz -d dhdr.hdr.magic zeroes|daBadMagic|
v5-files|path /dirs/leaf;dblock 1;fuzz -d du[3].namelen zeroes|dirBadNamelen|
v5-files|path /dirs/leaf;dblock 1;fuzz -d du[4].tag zeroes|dirBadTag|
v5-files|path /dirs/leaf;dblock 1;write -d du[3].inumber 0x10000000|dirBadInumber|
v5-files|path /dirs/leaf;dblock 0;fuzz -d dhdr.bestfree[0].offset add|dirBestfreeBad|
v5-files|path /dirs/leaf;dblock 8388608;write -c lhdr.info.crc 0|daBadCrc|
v5-files|path /dirs/leaf;dblock 8388608;fuzz -d lhdr.info.hdr.magic zeroes|daBadMagic|
v5-files|path /dirs/leaf;dblock 8388608;fuzz -d lhdr.count add|daBadCount/dirLeafBadLive|
v5-files|path /dirs/leaf;dblock 8388608;fuzz -d lhdr.stale add|dirLeafBadStale|
v5-files|path /dirs/leaf;dblock 8388608;fuzz -d lents[10].hashval zeroes|daHashOrder|
v5-files|path /dirs/leaf;dblock 8388608;write -d lbests[1] 0x1001|dirBadBest|
v5-files|path /big;dblock 8388608;write -c nhdr.info.crc 0|daBadCrc|
v5-files|path /big;dblock 8388608;fuzz -d nhdr.info.hdr.magic zeroes|daBadMagic|
v5-files|path /big;dblock 8388608;fuzz -d nhdr.count ones|daBadCount|
v5-files|path /big;dblock 8388608;fuzz -d nhdr.level add|daBadLevel|
v5-files|path /big;dblock 8388608;fuzz -d nbtree[3].hashval zeroes|daHashOrder|
v5-files|path /big;dblock 8388608;fuzz -d nbtree[3].before ones|daBadBefore|
v5-files|path /big;dblock 8388608;addr nbtree[2].before;write -c lhdr.info.crc 0|daBadCrc|
v5-files|path /big;dblock 8388608;addr nbtree[2].before;fuzz -d lhdr.info.hdr.magic zeroes|daBadMagic|
v5-files|path /big;dblock 8388608;addr nbtree[2].before;fuzz -d lhdr.count ones|daBadCount|
v5-files|path /big;dblock 8388608;addr nbtree[2].before;fuzz -d lents[5].hashval zeroes|daHashOrder|
v5-files|path /big;dblock 16777216;fuzz -d fhdr.hdr.magic zeroes|daBadMagic|
v5-files|path /big;dblock 16777216;fuzz -d fhdr.nvalid ones|dirFreeBadNvalid|
v5-files|path /big;dblock 16777216;fuzz -d fhdr.nused add|dirFreeBadNused|
v5-files|path /big;dblock 5;write -d du[4].inumber 0x10000000|dirBadInumber|
v5-files|path /frag;dblock 3;write -c dhdr.hdr.crc 0|daBadCrc|
v5-files|path /links/original;fuzz -d core.nlinkv2 add|nsBadLinkCount|
v5-files|path /dirs;write -d core.nlinkv2 9|nsBadLinkCount|
v5-files|path /symlinks/long;dblock 0;crc -i|symBadCrc|
v5-files|path /symlinks/long;dblock 0;fuzz -d magic zeroes|symBadMagic|
v5-files|path /symlinks/long;dblock 0;fuzz -d bytes add|symHdrMismatch/symBadRange/symTargetIncomplete|
v5-files|path /symlinks/long;dblock 0;fuzz -d owner add|symBadOwner|
v5-files|path /symlinks/max-1023;fuzz -d core.size ones|symBadSize/inoBadSize|
v5-files|path /attrs/leaf;ablock 0;crc -i|daBadCrc|silent
v5-files|path /attrs/leaf;ablock 0;fuzz -d hdr.info.hdr.magic zeroes|daBadMagic|
v5-files|path /attrs/leaf;ablock 0;fuzz -d hdr.count ones|attrLeafBadCount|
v5-files|path /attrs/leaf;ablock 0;fuzz -d entries[3].hashval zeroes|attrLeafHashOrder|
v5-files|path /attrs/leaf;ablock 0;fuzz -d hdr.usedbytes add|attrLeafBadUsedbytes|
v5-files|path /attrs/node;ablock 0;crc -i|daBadCrc|silent
v5-files|path /attrs/node;ablock 0;fuzz -d hdr.info.hdr.magic zeroes|daBadMagic|
v5-files|path /attrs/node;ablock 0;addr btree[1].before;fuzz -d hdr.count ones|attrLeafBadCount|
v5-files|path /attrs/short;fuzz -d a.sfattr.hdr.totsize ones|attrSfBadTotsize|
v5-files|path /attrs/short;fuzz -d a.sfattr.hdr.count add|attrSfEntryOverflow/attrSfSizeMismatch|
v5-files|path /attrs/short;write -d a.sfattr.list[0].namelen 0|attrBadNamelen|
v5-files|path /attrs/short;write -d a.sfattr.list[1].secure 1|attrMultipleNs|silent
v5-files|path /attrs/short;fuzz -d a.sfattr.list[0].valuelen ones|attrSfEntryOverflow|
v5-files|path /attrs/remote;ablock 1;write -c hdr.crc 0|attrRmtBadCrc|
v5-files|path /attrs/remote;ablock 1;fuzz -d hdr.magic zeroes|attrRmtBadMagic|
v5-files|path /attrs/remote;ablock 1;fuzz -d hdr.owner add|attrRmtBadOwner|silent
v5-files|path /attrs/remote;ablock 2;fuzz -d hdr.offset add|attrRmtMismatch|silent
v5-files|path /attrs/leaf;fuzz -d core.naextents add|inoBadNextents/bmapCountMismatch|
v5-files|path /attrs/leaf;write -d core.aformat 3|inoBadFormat/inoBadBmdrRoot|
v5-files|path /frag/extents;fuzz -d u3.bmbt.keys[1].startoff ones|bmapRootBadKey/btKeyMismatch|
v5-files|path /frag/extents;fuzz -d u3.bmbt.ptrs[1] ones|bmapRootBadPtr/btBadPointer|
v5-files|path /frag/extents;fuzz -d u3.bmbt.level add|bmapRootTooDeep/inoBadBmdrRoot|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];crc -i|btBadCrc|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];fuzz -d level add|btBadLevel|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];fuzz -d keys[3].startoff add|btKeyMismatch/btKeysOutOfOrder|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];fuzz -d keys[3].startoff zeroes|btKeysOutOfOrder/btKeyMismatch|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];fuzz -d ptrs[3] ones|btBadPointer|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];write -d ptrs[3] @path /frag/extents u3.bmbt.ptrs[1]@|btCycle/btBadLevel|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];addr ptrs[2];crc -i|btBadCrc|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];addr ptrs[2];fuzz -d numrecs ones|btBadNumrecs|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];addr ptrs[2];fuzz -d recs[5].startoff zeroes|bmapOutOfOrder/btRecsOutOfOrder|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];addr ptrs[2];fuzz -d recs[5].startblock ones|bmapBadStartblock/btBadRecord|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];addr ptrs[2];fuzz -d recs[5].blockcount zeroes|bmapZeroLength/btBadRecord|
v5-files|path /frag/extents;addr u3.bmbt.ptrs[1];addr ptrs[2];fuzz -d rightsib add|btBadSibling/btBadSiblingPtr|
v5-files|path /frag/extents;fuzz -d core.nextents add|bmapCountMismatch/inoBadNextents|
v5-files|path /frag;fuzz -d core.nextents sub|bmapCountMismatch/inoBadNextents|
v5-files|path /frag;write -d core.format 2|inoBadFormat/inoBadNextents|
v5-files|path /attrs/short;fuzz -d core.forkoff ones|inoBadForkoff|
v5-files|path /dirs/leaf;write -d core.format 1|inoBadFormat/dirSfBadSize|
v5-files|path /special/fifo;write -d core.format 2|inoBadFormat|
v5-files|path /special/null-like;write -d core.forkoff 30|inoBadDevFork|
v5-files|path /frag/extents;fuzz -d u3.bmbt.keys[1].startoff ones|bmapRootBadKey|
v5-files|path /frag/extents;fuzz -d u3.bmbt.ptrs[1] ones|bmapRootBadPtr|
v5-files|path /frag/extents;fuzz -d u3.bmbt.level add|bmapRootTooDeep|
v5-files|path /frag/extents;fuzz -d core.nextents add|bmapCountMismatch|
v5-files|path /files/sparse;fuzz -d u3.bmx[1].startblock ones|bmapBadStartblock|
v5-files|path /files/sparse;fuzz -d u3.bmx[1].blockcount zeroes|bmapZeroLength|
v5-files|path /files/sparse;fuzz -d u3.bmx[2].startoff zeroes|bmapOutOfOrder|
v5-files|path /files/sparse;fuzz -d u3.bmx[1].startoff ones|bmapBadFileOffset|
v5-files|path /dirs/leaf;write -d u3.bmx[1].extentflag 1|bmapBadUnwritten|
EOF
}

# Every ID in the table must exist: a typo would make a case unpassable.
problem_ids > "$TMPD/known"
cases | awk -F '|' '{ n = split($3, w, /[ \/]/); for (i = 1; i <= n; i++) print w[i] }' | sort -u > "$TMPD/wanted"
unknown=$(grep -vxF -f "$TMPD/known" "$TMPD/wanted" | tr '\n' ' ')
[ -z "$unknown" ] || fail "IDs in the case table but not in formats/problems.def: $unknown"
badflag=$(cases | awk -F '|' '{ n = split($4, w, / /); for (i = 1; i <= n; i++) if (w[i] != "silent" && w[i] != "todo") print NR ": " w[i] }' | head -n 3)
[ -z "$badflag" ] || fail "unknown flags in the case table: $badflag"

. "$top_srcdir/tests/corrupt-lib.sh"

# Images and scratch copies: in memory when possible (see the header).
SCR=$TMPD
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	SCR=$(mktemp -d /dev/shm/xfsrecon-check_corrupt.XXXXXX) || SCR=$TMPD
fi
pids=""
trap 'rc=$?; [ -z "$pids" ] || kill $pids 2> /dev/null; [ "$SCR" = "$TMPD" ] || rm -rf "$SCR"; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT
# a killed run must not leave its images in memory
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP
# base_image NAME: the raw image of corpus/images/NAME.img.zst in $SCR
base_image() {
	_src="$top_srcdir/corpus/images/$1.img.zst"
	[ -f "$SCR/$1.img" ] || zstd -q -d -f -o "$SCR/$1.img" "$_src" || return 1
	printf '%s\n' "$SCR/$1.img"
}

# run_case W N NAME CMDS WANT FLAGS: one case in worker W's scratch files.
# Prints "N<TAB>message" lines for the report; the first word of a message
# says what it is: FAIL (counts as a failure), TODO (a todo case missed),
# note (nothing to fix here).
run_case() {
	w=$1 n=$2 name=$3 cmds=$4 want=$5 flag=$6
	label="case $n ($name: $cmds)"
	silent=0 todo=0
	case " $flag " in *" silent "*) silent=1 ;; esac
	case " $flag " in *" todo "*) todo=1 ;; esac
	scratch="$SCR/case.$w.img"
	base=$(base_image "$name") || { printf '%s\tFAIL: %s: cannot decompress the image\n' "$n" "$label"; return; }
	cmds=$(expand "$base" "$cmds" < /dev/null) || { printf '%s\tFAIL: %s: cannot expand\n' "$n" "$label"; return; }
	cp "$base" "$scratch" || { printf '%s\tFAIL: %s: cannot copy %s\n' "$n" "$label" "$base"; return; }
	corrupt "$scratch" "$cmds" < /dev/null > "$TMPD/db.$w" 2>&1
	# xfs_db exits 0 even when a command fails: look at what it said.  A
	# non-silent case is proven real by xfs_repair below; a silent one is
	# also compared byte for byte (slow on 400 MB, so only there).
	if db_failed "$TMPD/db.$w" ||
		{ [ $silent -eq 1 ] && cmp -s "$base" "$scratch"; }; then
		printf '%s\tFAIL: %s: xfs_db did not apply the corruption: %s\n' "$n" "$label" \
			"$(grep -v '^Allowing' "$TMPD/db.$w" | head -n 2 | tr '\n' ' ')"
		return
	fi

	"$XFS_REPAIR" -n "$scratch" < /dev/null > "$TMPD/repair.$w" 2>&1
	rc=$?
	if [ $silent -eq 1 ]; then
		[ $rc -eq 0 ] || printf '%s\tnote: %s: xfs_repair -n now flags this (exit status %s); the silent mark can go\n' "$n" "$label" $rc
	elif [ $rc -eq 0 ]; then
		printf '%s\tFAIL: %s: xfs_repair -n exits 0: the corruption is not real\n' "$n" "$label"
	fi

	run_limited 300 "$XFSRECON" check "$scratch" < /dev/null > "$TMPD/check.$w" 2> "$TMPD/check.err.$w"
	rc=$?
	if [ $rc -ge 124 ]; then
		printf '%s\tFAIL: %s: xfsrecon check crashed or hung (exit status %s): %s\n' "$n" "$label" $rc \
			"$(sed -n '1,10p' "$TMPD/check.err.$w" | tr '\n' ' ')"
		return
	fi
	got=$(report_ids "$TMPD/check.$w")
	missing=""
	for alt in $want; do
		found=0
		for id in $(printf '%s\n' "$alt" | tr '/' ' '); do
			printf '%s\n' "$got" | grep -qxF "$id" && found=1
		done
		[ $found -eq 1 ] || missing="$missing $alt"
	done
	if [ $rc -ne 4 ] || [ -n "$missing" ]; then
		what=FAIL
		[ $todo -eq 1 ] && what=TODO
		printf '%s\t%s: %s: exit status %s (expected 4); missing:%s; reported: %s%s\n' "$n" "$what" "$label" $rc \
			"${missing:- none}" "$(printf '%s' "$got" | tr '\n' ' ')" \
			"$([ $rc -eq 4 ] || sed -n '1,3p' "$TMPD/check.err.$w" | tr '\n' ' ')"
	elif [ $todo -eq 1 ]; then
		printf '%s\tnote: %s: todo case passes; the todo mark can go\n' "$n" "$label"
	fi
}

# worker W JOBS: the cases whose number is W modulo JOBS
worker() {
	_n=0
	while IFS='|' read -r name cmds want flag; do
		_n=$((_n + 1))
		[ $((_n % $2)) -eq "$1" ] || continue
		run_case "$1" "$_n" "$name" "$cmds" "$want" "$flag"
	done < "$TMPD/cases" > "$TMPD/out.$1"
}

cases > "$TMPD/cases"
ncase=$(wc -l < "$TMPD/cases")
# decompress every image once, before the workers share them
for name in $(cut -d '|' -f 1 "$TMPD/cases" | sort -u); do
	[ -f "$top_srcdir/corpus/images/$name.img.zst" ] || fail "corpus image $name is missing"
	base_image "$name" > /dev/null || fail "cannot decompress $name"
done

jobs=${CHECK_CORRUPT_JOBS:-2}
w=0
while [ $w -lt "$jobs" ]; do
	worker $w "$jobs" &
	pids="$pids $!"
	w=$((w + 1))
done
for p in $pids; do
	wait "$p" || fail "a worker stopped early (exit status $?)"
done
pids=""

sort -n -k1,1 "$TMPD"/out.* | cut -f 2- > "$TMPD/messages"
grep -v '^FAIL: ' "$TMPD/messages"
nfail=$(grep -c '^FAIL: ' "$TMPD/messages")
ntodo=$(grep -c '^TODO: ' "$TMPD/messages")
echo "$ncase corruption cases, $nfail failures, $ntodo todo"
if [ "$nfail" -ne 0 ]; then
	grep '^FAIL: ' "$TMPD/messages" >&2
	exit 1
fi
exit 0
