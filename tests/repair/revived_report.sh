#!/bin/sh
# tests/repair/revived_report.sh - inodes brought back with a new core are
# reported honestly: what was recovered, what was synthesized, and from what.
#
# On the kernel-made corpus image v5-rmap-reflink, the inode cores of three
# regular files (/data/small.txt, /data/medium.txt, /data/big.txt) and of a
# block-form directory (/dirs/block) are zeroed (the whole 512-byte inode:
# nothing of the core is left).  repair -o OUT --report R must:
#   - exit 1, with OUT clean for xfs_repair -n;
#   - list each of the four in R's <revived> (schema-valid), the files with
#     source "rmapbt", recovered "extents", synthesized fields that name at
#     least mode, uid, gid, times and size; the directory with source
#     "directory-blocks", recovered "entries" and synthesized times;
#   - give each file the size the clean image has (xfs_db core.size) when
#     its last byte is not zero (size-from "last-nonzero-byte"), and its
#     content byte for byte (xfsrecon cat of OUT against the clean image);
#   - write the documented fixed values into the new cores, never another
#     inode's: times 1970-01-01T00:00:00 (xfs_db on OUT), uid and gid 0;
#   - keep every name of /dirs/block at its path.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool xmllint
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_DB"
need_tool "$XFS_REPAIR"
X=$XFSRECON
S=$TMPD
clean=$(corpus_image v5-rmap-reflink)
cp --sparse=always "$clean" "$S/c.img" || fail "cannot copy"

ino_of() {
	"$X" ls -l "$clean" "$(dirname "$1")" | awk -v n="$(basename "$1")" '$NF == n { print $1 }'
}
# zero_inode INO: the inode's whole on-disk record, where xfs_db's stack puts it.
zero_inode() {
	off=$("$XFS_DB" -r -c "inode $1" -c stack "$S/c.img" | sed -n 's/.*byte offset \([0-9]*\), length \([0-9]*\).*/\1 \2/p')
	set -- $off
	[ -n "${1:-}" ] && [ -n "${2:-}" ] || fail "xfs_db gives no offset"
	dd if=/dev/zero of="$S/c.img" bs=1 seek="$1" count="$2" conv=notrunc 2>/dev/null || fail "dd"
}

files="/data/small.txt /data/medium.txt /data/big.txt"
for p in $files /dirs/block; do
	i=$(ino_of "$p")
	[ -n "$i" ] || fail "no inode for $p in the clean image"
	zero_inode "$i"
done
dino=$(ino_of /dirs/block)
"$X" ls "$clean" /dirs/block > "$S/names.clean" || fail "ls of the clean image"

"$X" repair "$S/c.img" -o "$S/out.img" --report "$S/r.xml" > "$S/rep" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "repair exits $rc: $(tail -5 "$S/rep")"
"$XFS_REPAIR" -n "$S/out.img" > "$S/xrn" 2>&1 || fail "xfs_repair -n on OUT: $(grep -v '^ ' "$S/xrn" | tail -5)"
xmllint --noout --schema "$top_srcdir/doc/repair-report.xsd" "$S/r.xml" 2> "$S/xl" ||
	fail "the report does not validate: $(cat "$S/xl")"

# attr NAME LINE: the value of attribute NAME in one element's line.
attr() {
	printf '%s\n' "$2" | sed -n "s/.* $1=\"\([^\"]*\)\".*/\1/p"
}
has_words() {
	for w in $2; do
		case " $1 " in *" $w "*) ;; *) return 1 ;; esac
	done
}

for p in $files; do
	i=$(ino_of "$p")
	line=$(grep "<inode ino=\"$i\" " "$S/r.xml")
	[ -n "$line" ] || fail "$p ($i) is not listed as revived"
	[ "$(attr type "$line")" = regular ] || fail "$p: type $(attr type "$line")"
	[ "$(attr source "$line")" = rmapbt ] || fail "$p: source $(attr source "$line")"
	has_words "$(attr recovered "$line")" extents || fail "$p: recovered '$(attr recovered "$line")'"
	has_words "$(attr synthesized "$line")" "mode uid gid times size" ||
		fail "$p: synthesized '$(attr synthesized "$line")'"
	want=$("$XFS_DB" -r -c "inode $i" -c 'p core.size' "$clean" | sed -n 's/^core.size = //p')
	last=$("$X" cat "$clean" "$p" | tail -c 1 | od -An -tu1 | tr -d ' ')
	if [ "$last" != 0 ]; then
		[ "$(attr size-from "$line")" = last-nonzero-byte ] || fail "$p: size-from $(attr size-from "$line")"
		[ "$(attr size "$line")" = "$want" ] || fail "$p: size $(attr size "$line"), the clean image says $want"
	fi
	"$X" cat "$S/out.img" "$p" > "$S/got" 2> "$S/cat" || fail "cat $p of OUT: $(cat "$S/cat")"
	"$X" cat "$clean" "$p" > "$S/want" || fail "cat $p of the clean image"
	[ "$(file_sha "$S/got")" = "$(file_sha "$S/want")" ] || fail "$p differs after repair"
	"$XFS_DB" -r -c "inode $i" -c 'p core.mtime.sec core.ctime.sec core.atime.sec core.uid core.gid' \
		"$S/out.img" > "$S/core"
	[ "$(grep -c 'Thu Jan  1 00:00:00 1970' "$S/core")" -eq 3 ] || fail "$p: times are not the epoch: $(cat "$S/core")"
	grep -q '^core.uid = 0$' "$S/core" && grep -q '^core.gid = 0$' "$S/core" ||
		fail "$p: owner is not 0:0: $(cat "$S/core")"
done

line=$(grep "<inode ino=\"$dino\" " "$S/r.xml")
[ -n "$line" ] || fail "/dirs/block ($dino) is not listed as revived"
[ "$(attr type "$line")" = directory ] || fail "/dirs/block: type $(attr type "$line")"
[ "$(attr source "$line")" = directory-blocks ] || fail "/dirs/block: source $(attr source "$line")"
has_words "$(attr recovered "$line")" entries || fail "/dirs/block: recovered '$(attr recovered "$line")'"
has_words "$(attr synthesized "$line")" "times uid gid" || fail "/dirs/block: synthesized '$(attr synthesized "$line")'"
"$X" ls "$S/out.img" /dirs/block > "$S/names.out" || fail "ls /dirs/block of OUT"
cmp -s "$S/names.clean" "$S/names.out" || fail "/dirs/block lost names: $(diff "$S/names.clean" "$S/names.out" | head -5)"
echo "revived: $(grep -c '<inode ino=' "$S/r.xml") inodes reported"
exit 0
