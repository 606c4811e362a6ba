#!/bin/sh
# tests/oracle/repair_highbits.sh - a mapping whose startblock carries a
# stray bit above its AG number.  The kernel and xfs_repair cut the AG
# number to 32 bits (xfs_agnumber_t), so they read the block below the
# bit and xfs_repair -n says nothing; xfsrecon reads it the same way,
# warns (bmapStartblockHighBits) and `repair` clears the bit.
#
# Two cases, each on a scratch copy damaged with xfs_db -x (`fuzz -d`, the
# CRC recomputed):
#   inode - the second mapping of /frag in v5-1k, held in the inode;
#   bmbt  - a mapping in a bmbt leaf of /many/extents in v5-rmap-reflink.
# Judged by xfs_db: the damaged field holds the stray bit, and after the
# repair it holds the clean image's value again; `xfsrecon check` warns
# of it before and is silent after; xfs_repair -n calls the output clean;
# the file (or directory listing) reads the same as in the clean image.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_REPAIR"
need_tool "$XFS_DB"

# db MODE IMG NAV CMD: xfs_db MODE (-r or -x) on IMG with the commands of
# NAV (separated by ';') and then CMD, fed on standard input.
db() {
	printf '%s\n%s\n' "$3" "$4" | tr ';' '\n' | "$XFS_DB" "$1" "$2" 2>/dev/null
}

# field IMG NAV FIELD: the value xfs_db prints for FIELD there.
field() {
	db -r "$1" "$2" "print $3" | awk -v k="$3 = " 'index($0, k) == 1 { print substr($0, length(k) + 1) }'
}

# one NAME IMAGE VIEW PATH NAV FIELD: run a case; VIEW PATH (`cat` of a
# file, `ls` of a directory) must read the same before and after.
one() {
	name=$1 image=$2 view=$3 path=$4 nav=$5 fld=$6
	clean="$TMPD/$image.img"
	[ -f "$clean" ] || zstd -q -d -f -o "$clean" "$top_srcdir/corpus/images/$image.img.zst" ||
		fail "$name: cannot decompress $image"
	c="$TMPD/$name.img"
	out="$TMPD/$name.out"
	cp "$clean" "$c"
	want=$(field "$clean" "$nav" "$fld")
	[ -n "$want" ] || fail "$name: xfs_db shows no $fld at $nav"
	db -x "$c" "$nav" "fuzz -d $fld firstbit" > /dev/null
	got=$(field "$c" "$nav" "$fld")
	[ "$got" = $((want + (1 << 51))) ] ||
		fail "$name: $fld is $got after the fuzz, not $want with bit 51 set"
	"$XFS_REPAIR" -n "$c" > "$TMPD/$name.xr" 2>&1 ||
		note "$name: xfs_repair -n now reports this damage: $(tail -n 3 "$TMPD/$name.xr")"
	"$XFSRECON" check "$c" > "$TMPD/$name.ck" 2>&1
	grep -q 'bmapStartblockHighBits.*the kernel reads block '"$want"'$' "$TMPD/$name.ck" ||
		fail "$name: check does not warn of the stray bit: $(head -n 5 "$TMPD/$name.ck")"
	"$XFSRECON" repair "$c" -o "$out" > "$TMPD/$name.rep" 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "$name: repair exits $rc: $(tail -n 3 "$TMPD/$name.rep")"
	after=$(field "$out" "$nav" "$fld")
	[ "$after" = "$want" ] || fail "$name: $fld is $after after the repair, the clean image has $want"
	"$XFSRECON" check "$out" > "$TMPD/$name.ck2" 2>&1 ||
		fail "$name: check of the output exits non-zero: $(tail -n 3 "$TMPD/$name.ck2")"
	grep -q '^0 errors, 0 warnings' "$TMPD/$name.ck2" ||
		fail "$name: check of the output: $(tail -n 3 "$TMPD/$name.ck2")"
	"$XFS_REPAIR" -n "$out" > "$TMPD/$name.xr2" 2>&1 ||
		fail "$name: xfs_repair -n rejects the output: $(tail -n 5 "$TMPD/$name.xr2")"
	a=$("$XFSRECON" "$view" "$clean" "$path" | cksum)
	b=$("$XFSRECON" "$view" "$out" "$path" | cksum)
	[ "$a" = "$b" ] || fail "$name: $view $path reads differently after the repair"
	echo "ok: $name: $fld $want+2^51 read as $want, warned of, and set back to $want"
}

one inode v5-1k ls /frag "path /frag" "u3.bmx[1].startblock"
one bmbt v5-rmap-reflink cat /many/extents "path /many/extents;addr u3.bmbt.ptrs[1]" \
	"recs[2].startblock"
exit 0
