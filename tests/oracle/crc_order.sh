#!/bin/sh
# tests/oracle/crc_order.sh - every CRC xfsrecon shows is in xfs_db's byte
# order.
#
# xfs_db prints a CRC field as its four stored bytes read big-endian.  On the
# clean v5-files image, the root inode's CRC from `stat`, from `show inode`
# and from xfs_db must be one number; after `crc -i` (xfs_db breaks the
# stored CRC) on a copy, the observed value of check's inoBadCrc and
# agfBadCrc findings must be what xfs_db then prints for the field.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"
img=$(corpus_image v5-files)
root=$("$XFS_DB" -r -c 'sb 0' -c 'print rootino' "$img" | sed -n 's/^rootino = //p')
[ -n "$root" ] || fail "xfs_db gives no root inode"

db=$("$XFS_DB" -r -c "inode $root" -c 'print v3.crc' "$img" | sed -n 's/^v3.crc = \(0x[0-9a-f]*\).*/\1/p')
st=$("$XFSRECON" stat "$img" "$root" | sed -n 's/.* crc \(0x[0-9a-f]*\).*/\1/p')
sh=$("$XFSRECON" show "$img" inode "$root" | sed -n 's/^ *v3.crc = \(0x[0-9a-f]*\).*/\1/p' | head -n 1)
[ -n "$db" ] && [ -n "$st" ] && [ -n "$sh" ] || fail "a CRC is missing: xfs_db '$db', stat '$st', show '$sh'"
[ "$st" = "$db" ] || fail "stat prints the root's CRC as $st, xfs_db as $db"
[ "$sh" = "$db" ] || fail "show prints the root's CRC as $sh, xfs_db as $db"

cp "$img" "$TMPD/bad.img" || fail "cannot copy the image"
"$XFS_DB" -x -c "inode $root" -c 'crc -i' -c 'agf 0' -c 'crc -i' "$TMPD/bad.img" > /dev/null 2>&1 ||
	fail "xfs_db cannot break the CRCs"
dbi=$("$XFS_DB" -r -c "inode $root" -c 'print v3.crc' "$TMPD/bad.img" 2>/dev/null |
	sed -n 's/^v3.crc = \(0x[0-9a-f]*\).*/\1/p')
dba=$("$XFS_DB" -r -c 'agf 0' -c 'print crc' "$TMPD/bad.img" 2>/dev/null |
	sed -n 's/^crc = \(0x[0-9a-f]*\).*/\1/p')
"$XFSRECON" check "$TMPD/bad.img" > "$TMPD/check" 2>&1
obi=$(sed -n 's/.*\[inoBadCrc\].*inode CRC is \(0x[0-9a-f]*\),.*/\1/p' "$TMPD/check" | head -n 1)
oba=$(sed -n 's/.*\[agfBadCrc\].* CRC is \(0x[0-9a-f]*\),.*/\1/p' "$TMPD/check" | head -n 1)
[ -n "$obi" ] || fail "check reports no inoBadCrc: $(head -n 5 "$TMPD/check")"
[ "$((obi))" -eq "$((dbi))" ] || fail "check says the root's stored CRC is $obi, xfs_db prints $dbi"
[ -n "$oba" ] || fail "check reports no agfBadCrc with a value: $(grep agfBadCrc "$TMPD/check")"
[ "$((oba))" -eq "$((dba))" ] || fail "check says AGF 0's stored CRC is $oba, xfs_db prints $dba"
echo "stat, show and check print CRCs as xfs_db does ($db; broken: $dbi, $dba)"
