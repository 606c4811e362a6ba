#!/bin/sh
# tests/golden/errors.sh - bad input gets one clear line on stderr and the
# fsck exit code: 8 for an operational error (missing file, not XFS,
# truncated image, unreadable container), 16 for a usage error; and a
# damaged primary superblock is not fatal (the secondaries are voted).
. "$top_srcdir/tests/lib.sh"

need_tool zstd

# expect CODE PATTERN CMD...: exit status CODE, stderr matching PATTERN
expect() {
	_code=$1 _pat=$2
	shift 2
	"$@" >"$TMPD/out" 2>"$TMPD/err"
	_rc=$?
	[ "$_rc" -eq "$_code" ] || fail "'$*' exited $_rc, expected $_code: $(cat "$TMPD/err")"
	grep -q -- "$_pat" "$TMPD/err" || fail "'$*' stderr lacks '$_pat': $(cat "$TMPD/err")"
	[ "$_rc" -ne 8 ] || [ "$(wc -l < "$TMPD/err")" -le 2 ] || fail "'$*' printed more than one error line"
}

img=$(corpus_image v5-normap)

# operational errors: 8
expect 8 "No such file" "$XFSRECON" check "$TMPD/missing.img"
head -c 4000000 /dev/zero > "$TMPD/zeros.img"
expect 8 "not an XFS filesystem" "$XFSRECON" check "$TMPD/zeros.img"
expect 8 "not an XFS filesystem" "$XFSRECON" info "$TMPD/zeros.img"
head -c 104857600 "$img" > "$TMPD/cut.img"
expect 8 "truncated" "$XFSRECON" check "$TMPD/cut.img"
grep -q "imageTruncated" "$TMPD/out" || fail "truncated image: no imageTruncated finding"
# A path through an inode the cut took away cannot be read: exit 8 for cat,
# stat, ls and show (not 16: the path is right, the image is short); a path
# that does not exist is still a usage error.  The directory is found from
# the full image: the one with the highest inode number past the cut.
fimg=$(corpus_image v5-files)
head -c 314572800 "$fimg" > "$TMPD/fcut.img"
geo=$(${XFS_DB:-xfs_db} -r -c 'sb 0' -c 'print agblocks agblklog inopblog blocksize inodesize' "$fimg" |
	awk '{ printf "%s ", $3 }')
far=$("$XFSRECON" ls -R -l "$fimg" / | awk -v geo="$geo" '
	BEGIN { split(geo, g, " ") }
	$2 ~ /^d/ && NF == 9 {
		ag = int($1 / 2 ^ (g[2] + g[3])); agino = $1 % 2 ^ (g[2] + g[3])
		byte = (ag * g[1] + int(agino / 2 ^ g[3])) * g[4] + (agino % 2 ^ g[3]) * g[5]
		if (byte > 314572800) print $1, $9
	}' | sort -n | tail -n 1 | cut -d' ' -f2)
[ -n "$far" ] || fail "v5-files has no directory past 300 MiB to cut away"
expect 8 "cannot be read" "$XFSRECON" ls "$TMPD/fcut.img" "$far"
expect 8 "cannot be read" "$XFSRECON" stat "$TMPD/fcut.img" "$far/x"
expect 8 "cannot be read" "$XFSRECON" cat "$TMPD/fcut.img" "$far/x"
expect 8 "cannot be read" "$XFSRECON" show "$TMPD/fcut.img" dir "$far"
expect 8 "cannot be read" "$XFSRECON" show "$TMPD/fcut.img" path "$far/x"
expect 16 "no such entry" "$XFSRECON" cat "$TMPD/fcut.img" /no-such-name
# An unreadable stretch of a file is named once, as a range, not a block at
# a time: the image cut one block into /files/medium.bin's only extent.
ext=$("$XFSRECON" stat "$fimg" /files/medium.bin | sed -n 's/^  \[0\.\.\([0-9]*\)\] -> fsblock \([0-9]*\) .*/\1 \2/p')
set -- $ext
[ $# -eq 2 ] || fail "/files/medium.bin is no longer one extent from offset 0: $ext"
bs=$(${XFS_DB:-xfs_db} -r -c 'sb 0' -c 'print blocksize' "$fimg" | sed -n 's/^blocksize = //p')
ino=$("$XFSRECON" ls -l "$fimg" /files | awk '$9 == "medium.bin" { print $1 }')
head -c $((($2 + 1) * bs)) "$fimg" > "$TMPD/mcut.img"
expect 8 "bytes $bs\.\.$((($1 + 1) * bs - 1)) could not be read" "$XFSRECON" cat "$TMPD/mcut.img" "$ino"
[ "$(wc -c < "$TMPD/out")" -eq $((($1 + 1) * bs)) ] || fail "cat of the cut file is not its whole size"
rm -f "$fimg"
printf '\050\265\057\375garbage-not-a-zstd-frame' > "$TMPD/bad.img.zst"
expect 8 "xfsrecon:" "$XFSRECON" check "$TMPD/bad.img.zst"

# usage errors: 16
mkdir "$TMPD/dir"
expect 16 "not a regular file or block device" "$XFSRECON" check "$TMPD/dir"
expect 16 "unknown command" "$XFSRECON" frobnicate "$img"
expect 16 "a command and an image" "$XFSRECON" check
expect 16 "offset" "$XFSRECON" check --offset nonsense "$img"
expect 16 "exclude each other" "$XFSRECON" check --offset 0 --partition 1 "$img"
expect 16 "show WHAT" "$XFSRECON" show "$img" nonsense
expect 16 "AG number below" "$XFSRECON" show "$img" agf 99
expect 16 "outside the filesystem" "$XFSRECON" stat "$img" 99999999999
expect 16 "beyond the end" "$XFSRECON" check --offset 999999999999 "$img"

# a zeroed primary superblock: the geometry comes from the vote, exit 4
cp "$img" "$TMPD/nosb.img"
dd if=/dev/zero of="$TMPD/nosb.img" bs=512 count=1 conv=notrunc 2>/dev/null
"$XFSRECON" check "$TMPD/nosb.img" > "$TMPD/out" 2>&1
rc=$?
[ $rc -eq 4 ] || fail "zeroed primary superblock: exit $rc, expected 4"
grep -q "sbGeometryFromVote" "$TMPD/out" || fail "zeroed primary superblock: no vote reported"
"$XFSRECON" info "$TMPD/nosb.img" | grep -q "vote of the secondary" ||
	fail "info does not say the geometry came from the vote"
exit 0
