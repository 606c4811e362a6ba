#!/bin/sh
# tests/oracle/show_raw.sh - `show block` of a block no structure describes
# (file data) prints its bytes, and `--as raw` prints any block's bytes.
#
# The bytes are judged against the image itself (dd and od): the hexdump of
# /files/medium.bin's first block, in text and in JSON, must be exactly the
# image's bytes there, and the command exits 0 (a data block used to be a
# usage error); `--as raw` of an inode block must dump the inode magic "IN";
# `stat` and `show inode` print an inode's CRC as xfs_db does.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool od
img=$(corpus_image v5-files)
bs=$(${XFS_DB:-xfs_db} -r -c 'sb 0' -c 'print blocksize' "$img" | sed -n 's/^blocksize = //p')
[ -n "$bs" ] || fail "xfs_db gives no block size"
# /files/medium.bin's first block: "[0..N] -> fsblock F (ag A agbno B)"
set -- $("$XFSRECON" stat "$img" /files/medium.bin |
	sed -n 's/^  \[0\.\.[0-9]*\] -> fsblock \([0-9]*\) (ag \([0-9]*\) agbno \([0-9]*\)).*/\1 \2 \3/p')
[ $# -eq 3 ] || fail "no first extent for /files/medium.bin"
fsb=$1 ag=$2 agbno=$3
want=$(dd if="$img" bs="$bs" skip="$fsb" count=1 2> /dev/null | od -An -tx1 -v | tr -d ' \n')
[ ${#want} -eq $((2 * bs)) ] || fail "dd read ${#want} hex digits"

"$XFSRECON" show "$img" block "$ag/$agbno" > "$TMPD/text" 2> "$TMPD/err"
rc=$?
[ $rc -eq 0 ] || fail "show block of a data block exits $rc: $(cat "$TMPD/err")"
got=$(sed -n 's/^#   +0x[0-9a-f]*: \(.*\)  |.*/\1/p' "$TMPD/text" | tr -d ' \n')
[ "$got" = "$want" ] || fail "the text hexdump is not the block's bytes"
grep -q 'names no structure' "$TMPD/text" || fail "no note says the block has no structure"

"$XFSRECON" show --json "$img" block "$ag/$agbno" --as raw > "$TMPD/json" ||
	fail "show --json --as raw exits $?"
got=$(sed -n 's/.*"hex": "\([0-9a-f]*\)".*/\1/p' "$TMPD/json")
[ "$got" = "$want" ] || fail "the JSON hex is not the block's bytes"

root=$(${XFS_DB:-xfs_db} -r -c 'sb 0' -c 'print rootino' "$img" | sed -n 's/^rootino = //p')
ipb=$(${XFS_DB:-xfs_db} -r -c 'sb 0' -c 'print inopblog' "$img" | sed -n 's/^inopblog = //p')
"$XFSRECON" show "$img" block "0/$((root >> ipb))" --as raw > "$TMPD/ino" || fail "--as raw of the inode block exits $?"
head -n 4 "$TMPD/ino" | grep -q '^#   +0x0000: 49 4e ' || fail "--as raw of the root's inode block does not start with IN"
# The inode CRC as xfs_db prints it, in `stat` and in `show inode` alike.
ino=$("$XFSRECON" ls -l "$img" /files | awk '$NF == "medium.bin" { print $1 }')
dbcrc=$(${XFS_DB:-xfs_db} -r -c "inode $ino" -c 'print v3.crc' "$img" | sed -n 's/^v3.crc = \(0x[0-9a-f]*\).*/\1/p')
stcrc=$("$XFSRECON" stat "$img" /files/medium.bin | sed -n 's/.*, crc \(0x[0-9a-f]*\)$/\1/p')
shcrc=$("$XFSRECON" show "$img" inode "$ino" | sed -n 's/^v3.crc = \(0x[0-9a-f]*\).*/\1/p')
[ -n "$dbcrc" ] && [ "$stcrc" = "$dbcrc" ] && [ "$shcrc" = "$dbcrc" ] ||
	fail "inode CRC: xfs_db $dbcrc, stat $stcrc, show inode $shcrc"
echo "show block: data block $ag/$agbno dumped exactly (text and JSON); --as raw on an inode block"
