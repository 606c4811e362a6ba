#!/bin/sh
# tests/io/rtdev.sh - a realtime file's data is read from the realtime
# device's image (--rtdev), and never from the data device.
#
# No kernel here mounts a realtime section, so the file is made by hand:
# mkfs.xfs lays a 200,000-byte file on the data device from a protofile,
# xfs_db marks it realtime and points its one mapping at realtime block 100,
# and the same bytes are written there in the realtime device's image.
#   - without --rtdev: extract writes zeros for it, the manifest calls it
#     damaged with every byte unreadable, and the data device's bytes at the
#     same block number are not passed off as the file's;
#   - with --rtdev: extract and cat give the original SHA-256;
#   - repair refuses to write its output over the realtime device's image.
. "$top_srcdir/tests/lib.sh"

need_tool mkfs.xfs
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"
X=$XFSRECON
S=$TMPD
mkdir "$S/src"
head -c 200000 /dev/urandom > "$S/src/a"
printf 'hello\n' > "$S/src/c"
cat > "$S/proto" <<PROTO
/dev/null
0 0
d--755 0 0
a ---644 0 0 $S/src/a
c ---644 0 0 $S/src/c
\$
PROTO
truncate -s 512M "$S/data"
truncate -s 64M "$S/rt"
mkfs.xfs -q -f -r rtdev="$S/rt" -p "$S/proto" "$S/data" > "$S/mkfs" 2>&1 || fail "mkfs.xfs: $(cat "$S/mkfs")"
"$XFS_DB" -x -c 'path /a' -c 'write core.realtime 1' -c 'write u3.bmx[0].startblock 100' \
	"$S/data" > "$S/db" 2>&1 || fail "xfs_db: $(cat "$S/db")"
"$XFS_DB" -r -c 'path /a' -c bmap "$S/data" | grep -q 'startblock 100 .*count 49' ||
	fail "the file does not map realtime block 100: $("$XFS_DB" -r -c 'path /a' -c bmap "$S/data")"
dd if="$S/src/a" of="$S/rt" bs=4096 seek=100 conv=notrunc 2>/dev/null || fail "dd"
want=$(file_sha "$S/src/a")

mkdir "$S/x1" "$S/x2"
"$X" extract "$S/data" / -C "$S/x1" --manifest "$S/m1" > "$S/e1" 2>&1
awk -F '\t' '$1 == "/a" { print $6 }' "$S/m1" | grep -q '^damaged:unreadable=0-199999$' ||
	fail "without --rtdev the file is not named unreadable: $(grep '^/a' "$S/m1")"
[ "$(file_sha "$S/x1/a")" = "$(head -c 200000 /dev/zero | sha256sum | cut -d' ' -f1)" ] ||
	fail "without --rtdev the file holds bytes that are not its own"
awk -F '\t' '$1 == "/c" { print $6 }' "$S/m1" | grep -q '^intact$' || fail "/c is not intact"

"$X" extract "$S/data" --rtdev "$S/rt" / -C "$S/x2" --manifest "$S/m2" > "$S/e2" 2>&1 ||
	fail "extract --rtdev: $(tail -2 "$S/e2")"
[ "$(file_sha "$S/x2/a")" = "$want" ] || fail "extract --rtdev: the realtime file's bytes differ"
[ "$("$X" cat "$S/data" /a --rtdev "$S/rt" | sha256sum | cut -d' ' -f1)" = "$want" ] ||
	fail "cat --rtdev: the realtime file's bytes differ"

cp "$S/rt" "$S/rtcopy"
"$X" repair "$S/data" --rtdev "$S/rtcopy" -o "$S/rtcopy" --force > "$S/r" 2>&1 &&
	fail "repair wrote its output over the realtime device's image"
cmp -s "$S/rt" "$S/rtcopy" || fail "the realtime device's image changed"
echo "realtime file: unreadable without --rtdev, its SHA-256 with it"
exit 0
