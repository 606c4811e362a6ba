#!/bin/sh
# tests/io/agcount.sh - a geometry claiming 10 million AGs, consistent in
# every superblock (rewritten by xfs_db), must cost what the image holds,
# not what agcount says:
#   - served by a seekable zstd whose seek table lies (every compressed size
#     true, but 800,000 16-byte frames claiming 1 GiB each): refused at open
#     with exit 8, at once and in little memory;
#   - as a sparse raw file of 64 GiB: info and check finish in seconds and
#     in little memory, with one finding for the blank AGs and the AG table
#     summing up the blank and the missing AGs in a line each;
#   - a plain zstd bomb (the filesystem followed by 4 GiB of zeros) is
#     decompressed no further than the filesystem's size (dblocks x
#     blocksize, from xfs_db), and a repair's output is that size.
# Peak memory is measured with /usr/bin/time where it exists; the suite
# runs under ASan, so the bound (100 MB) is loose but far below the
# gigabytes these images used to cost.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/io/io-lib.sh"

need_tool xfs_db
need_tool truncate
need_tool xmllint

AGCOUNT=10000000
LIMIT_S=10
LIMIT_KB=100000
TIME_BIN=/usr/bin/time
[ -x "$TIME_BIN" ] || TIME_BIN=

# limited NAME CMD...: run CMD under the time limit, its stdout in
# $TMPD/NAME.out and stderr in $TMPD/NAME.err; sets rc; fails when the
# limit is hit or the peak RSS is over LIMIT_KB.
limited() {
	_n=$1
	shift
	if [ -n "$TIME_BIN" ]; then
		run_limited "$LIMIT_S" "$TIME_BIN" -f %M -o "$TMPD/$_n.rss" "$@" \
			>"$TMPD/$_n.out" 2>"$TMPD/$_n.err"
	else
		run_limited "$LIMIT_S" "$@" >"$TMPD/$_n.out" 2>"$TMPD/$_n.err"
	fi
	rc=$?
	[ "$rc" -ne 124 ] || fail "$_n: still running after $LIMIT_S s"
	if [ -n "$TIME_BIN" ]; then
		_kb=$(tail -n 1 "$TMPD/$_n.rss")
		[ "$_kb" -lt "$LIMIT_KB" ] || fail "$_n: peak RSS $_kb KB, over $LIMIT_KB KB"
	fi
}

fs="$TMPD/fs.img"
make_fs "$fs"
agblocks=$(xfs_db -r -c "sb 0" -c "p agblocks" "$fs" | awk '{print $3}')
blocksize=$(xfs_db -r -c "sb 0" -c "p blocksize" "$fs" | awk '{print $3}')
agcount0=$(xfs_db -r -c "sb 0" -c "p agcount" "$fs" | awk '{print $3}')
dblocks0=$(xfs_db -r -c "sb 0" -c "p dblocks" "$fs" | awk '{print $3}')
fs_bytes=$((dblocks0 * blocksize))
agbytes=$((agblocks * blocksize))

# The 10^7-AG geometry in every superblock, CRCs recomputed: consistent.
big="$TMPD/big.img"
cp "$fs" "$big" || fail "cp"
n=$((agcount0 - 1))
while [ "$n" -ge 0 ]; do
	xfs_db -x -c "sb $n" -c "write -d agcount $AGCOUNT" \
		-c "write -d dblocks $((AGCOUNT * agblocks))" -c "crc -r" "$big" >/dev/null 2>&1 ||
		fail "xfs_db: rewrite superblock $n"
	n=$((n - 1))
done
[ "$(xfs_db -r -c "sb 0" -c "p agcount" "$big" | awk '{print $3}')" = "$AGCOUNT" ] ||
	fail "xfs_db does not read agcount $AGCOUNT back"
xfs_db -r -c "sb 0" -c "p crc" "$big" | grep -q "(correct)" || fail "primary CRC"

# (1) The lying seek table: refused before any claimed size is believed.
"$MKSEEKABLE" -f 1073741824 -L 800000 "$big" "$TMPD/lie.zst" || fail "mkseekable -L"
zstd -q -t "$TMPD/lie.zst" || fail "zstd rejects the lying file (it must be valid zstd)"
for cmd in info check; do
	limited "lie-$cmd" "$XFSRECON" "$cmd" "$TMPD/lie.zst"
	[ "$rc" -eq 8 ] || fail "lying seek table, $cmd: exit $rc, expected 8: $(cat "$TMPD/lie-$cmd.err")"
	grep -q "damaged zstd seek table.*cannot come from" "$TMPD/lie-$cmd.err" ||
		fail "lying seek table, $cmd: $(cat "$TMPD/lie-$cmd.err")"
done

# (2) A sparse raw image of 64 GiB: AGs 0..agcount0-1 are real, the rest of
# the image is blank, and the AGs past its end are only counted.
truncate -s 64G "$big" || skip "no 64 GiB sparse file here"
in_image=$(( (64 * 1024 * 1024 * 1024 + agbytes - 1) / agbytes ))
limited sparse-info "$XFSRECON" info "$big"
[ "$rc" -eq 8 ] || fail "sparse info: exit $rc, expected 8 (truncated): $(cat "$TMPD/sparse-info.err")"
grep -q "^ *$agcount0-$((in_image - 1))  blank to the end of the image" "$TMPD/sparse-info.out" ||
	fail "sparse info: no line for the blank AGs $agcount0-$((in_image - 1))"
grep -q "^ *$in_image-$((AGCOUNT - 1))  past the end of the image" "$TMPD/sparse-info.out" ||
	fail "sparse info: no line for the AGs past the end"
[ "$(grep -c "^ *[0-9]* *$agblocks " "$TMPD/sparse-info.out")" -eq "$agcount0" ] ||
	fail "sparse info: the AG table does not list exactly the $agcount0 real AGs"
limited sparse-check "$XFSRECON" check "$big"
[ "$rc" -eq 8 ] || fail "sparse check: exit $rc, expected 8 (truncated): $(cat "$TMPD/sparse-check.err")"
cp "$TMPD/sparse-check.out" "$TMPD/out"
[ "$(grep -c "imageAgsBlank" "$TMPD/out")" -eq 1 ] || fail "sparse check: not one imageAgsBlank finding"
grep -q "AG $agcount0 and the $((in_image - agcount0 - 1)) AGs after it have no header" "$TMPD/out" ||
	fail "sparse check: the blank run is not AG $agcount0 and the $((in_image - agcount0 - 1)) after it"
errors=$(sed -n 's/^\([0-9]*\) errors,.*/\1/p' "$TMPD/out")
[ "$errors" -le 2 ] || fail "sparse check: $errors errors, expected imageTruncated and imageAgsBlank"
# The XML report hashes every byte of the image: a smaller one for it.
truncate -s 2G "$big" || fail "truncate"
in_image=$(( (2 * 1024 * 1024 * 1024 + agbytes - 1) / agbytes ))
"$XFSRECON" check --xml "$TMPD/sparse.xml" "$big" >/dev/null 2>&1
[ $? -eq 8 ] || fail "sparse check --xml: exit status"
[ "$(xmllint --xpath "string(//ags/absent[@why='blank']/@first)" "$TMPD/sparse.xml")" = \
  "$agcount0" ] || fail "sparse XML: the blank run does not start at AG $agcount0"
[ "$(xmllint --xpath "string(//ags/absent[@why='pastEnd']/@first)" "$TMPD/sparse.xml")" = \
  "$in_image" ] || fail "sparse XML: the pastEnd run does not start at AG $in_image"
[ "$(xmllint --xpath "count(//ags/ag)" "$TMPD/sparse.xml")" = "$agcount0" ] ||
	fail "sparse XML: not $agcount0 <ag> elements"
xmllint --noout --schema "$top_srcdir/doc/report.xsd" "$TMPD/sparse.xml" 2>"$TMPD/xerr" ||
	fail "sparse XML report invalid: $(cat "$TMPD/xerr")"
[ "$(xmllint --xpath "count(//ags/absent)" "$TMPD/sparse.xml")" = 2 ] ||
	fail "sparse XML: not two <absent> runs"
[ "$(xmllint --xpath "string(//ags/absent[@why='pastEnd']/@last)" "$TMPD/sparse.xml")" = \
  "$((AGCOUNT - 1))" ] || fail "sparse XML: the pastEnd run does not end at AG $((AGCOUNT - 1))"

# (3) A plain zstd bomb: the filesystem, then 4 GiB of zeros in 1 GiB frames.
head -c 1073741824 /dev/zero | zstd -q -1 -c > "$TMPD/z1g.zst" || fail "zstd zeros"
{ zstd -q -c "$fs" && cat "$TMPD/z1g.zst" "$TMPD/z1g.zst" "$TMPD/z1g.zst" "$TMPD/z1g.zst"; } \
	> "$TMPD/bomb.zst" || fail "zstd bomb"
limited bomb-info "$XFSRECON" info "$TMPD/bomb.zst"
[ "$rc" -eq 0 ] || fail "bomb info: exit $rc: $(cat "$TMPD/bomb-info.err")"
grep -q "(zstd, $fs_bytes bytes)" "$TMPD/bomb-info.out" ||
	fail "bomb info: the image is not the filesystem's $fs_bytes bytes: $(head -1 "$TMPD/bomb-info.out")"
limited bomb-check "$XFSRECON" check "$TMPD/bomb.zst"
[ "$rc" -eq 0 ] || fail "bomb check: exit $rc: $(cat "$TMPD/bomb-check.err")"
grep -q "imageZstdClipped.*$fs_bytes bytes" "$TMPD/bomb-check.out" ||
	fail "bomb check: no imageZstdClipped finding"
limited bomb-repair "$XFSRECON" repair -o "$TMPD/out.img" "$TMPD/bomb.zst"
[ "$rc" -eq 0 ] || fail "bomb repair: exit $rc: $(cat "$TMPD/bomb-repair.err")"
[ "$(stat -c %s "$TMPD/out.img")" -eq "$fs_bytes" ] || fail "bomb repair: output is not $fs_bytes bytes"
cmp -s "$fs" "$TMPD/out.img" || fail "bomb repair: output differs from the filesystem"
# The same filesystem compressed without the zeros is not clipped.
zstd -q -c "$fs" > "$TMPD/plain.zst" || fail "zstd"
"$XFSRECON" check "$TMPD/plain.zst" > "$TMPD/out" 2>&1 || fail "plain check: $(cat "$TMPD/out")"
! grep -q imageZstdClipped "$TMPD/out" || fail "a plain stream of exactly the filesystem is clipped"
exit 0
