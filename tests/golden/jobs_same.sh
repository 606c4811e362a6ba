#!/bin/sh
# tests/golden/jobs_same.sh - threads (--jobs) change speed, never a result.
#
# The inode pass reads chunks ahead on a second thread where the image is a
# raw file (analyzer/io/prefetch.h).  Against -j 1 (no thread), with -j 4:
#   - check prints the same findings on a clean image, on a copy of
#     v5-rmap-reflink with an inode chunk, AG 3's inobt root and AG 1's
#     bnobt root zeroed, and on that copy cut short inside its last AG (the
#     reads past the end fail on the reader and are redone, and reported,
#     by the pass itself);
#   - repair of the damaged copy writes the same bytes, which xfs_repair -n
#     finds clean, and its report gives sha256sum's digests of the input and
#     of OUT (-j 4 hashes while the kernel copies, -j 1 one after the other);
#   - the same holds for the zstd-compressed image, which is never read
#     ahead.
# Under strace, -j 4 on a raw image starts a thread and -j 1 does not (so
# the comparison above compares two ways of reading).  --jobs 0 is a usage
# error (exit 16).
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_REPAIR"

"$XFSRECON" check --jobs 0 "$(corpus_image v5-normap)" > /dev/null 2> "$TMPD/err"
rc=$?
[ $rc -eq 16 ] || fail "--jobs 0 exits $rc, expected 16"
grep -q -- '--jobs needs' "$TMPD/err" || fail "--jobs 0: $(cat "$TMPD/err")"

# same_check WHAT IMAGE: check -j 1 and -j 4 print the same.
same_check() {
	"$XFSRECON" check -j 1 "$2" > "$TMPD/j1" 2>&1
	r1=$?
	"$XFSRECON" check -j 4 "$2" > "$TMPD/j4" 2>&1
	r4=$?
	[ $r1 -eq $r4 ] || fail "$1: check exits $r1 with -j 1, $r4 with -j 4"
	cmp -s "$TMPD/j1" "$TMPD/j4" ||
		fail "$1: check differs with -j 4: $(diff "$TMPD/j1" "$TMPD/j4" | head -n 5)"
}

same_check "a clean image" "$(corpus_image v5-files)"

img=$(corpus_image v5-rmap-reflink)
ichunk=$("$XFS_DB" -r -c 'agi 2' -c 'addr root' -c 'p recs[1].startino' "$img" 2>/dev/null |
	sed -n 's/.*= *\([0-9]*\).*/\1/p')
[ -n "$ichunk" ] || fail "xfs_db finds no inode chunk in AG 2"
"$XFS_DB" -x -c "convert agno 2 agino $ichunk daddr" "$img" > "$TMPD/daddr" 2>&1
daddr=$(sed -n 's/.*(\([0-9]*\)).*/\1/p' "$TMPD/daddr")
[ -n "$daddr" ] || fail "xfs_db cannot place inode chunk $ichunk: $(cat "$TMPD/daddr")"
# One inode in use with a stale CRC: the reader thread checksums what it reads ahead.
crcino=$("$XFSRECON" ls -lR "$img" / | awk '$2 ~ /^-/ { print $1; exit }')
[ -n "$crcino" ] || fail "no regular file in $img"
"$XFS_DB" -x -c "inode $crcino" -c 'write -c core.gen 7' "$img" > /dev/null 2>&1 ||
	fail "xfs_db cannot corrupt inode $crcino"
"$XFS_DB" -x -c "daddr $daddr" -c 'type data' -c 'write fill 0' \
	-c 'agi 3' -c 'addr root' -c 'type data' -c 'write fill 0' \
	-c 'agf 1' -c 'addr bnoroot' -c 'type data' -c 'write fill 0' "$img" > /dev/null 2>&1 ||
	fail "xfs_db cannot damage the image"
same_check "a damaged image" "$img"
errors=$(grep -c '^error ' "$TMPD/j1")
[ "$errors" -gt 0 ] || fail "the damaged image shows no error: $(tail -n 3 "$TMPD/j1")"
grep -q "inoBadCrc\] .*inode $crcino " "$TMPD/j1" ||
	fail "the stale CRC of inode $crcino is not reported: $(grep -c inoBadCrc "$TMPD/j1") inoBadCrc"

"$XFSRECON" repair -j 1 --no-hash "$img" -o "$TMPD/o1.img" > "$TMPD/r1" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "repair -j 1 exits $rc: $(tail -n 3 "$TMPD/r1")"
"$XFSRECON" repair -j 4 --no-hash "$img" -o "$TMPD/o4.img" > "$TMPD/r4" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "repair -j 4 exits $rc: $(tail -n 3 "$TMPD/r4")"
cmp -s "$TMPD/o1.img" "$TMPD/o4.img" || fail "repair wrote other bytes with -j 4"
"$XFS_REPAIR" -n "$TMPD/o4.img" > "$TMPD/xr" 2>&1 ||
	fail "xfs_repair -n finds the output damaged: $(head -n 5 "$TMPD/xr")"

# With digests: the kernel's copy runs beside the hashing (-j 4) or after
# it (-j 1); both reports give sha256sum's digests of the input and OUT.
in_sum=$(sha256sum < "$img" | cut -d' ' -f1)
for j in 1 4; do
	"$XFSRECON" repair -j $j "$img" -o "$TMPD/h$j.img" --report "$TMPD/h$j.xml" > "$TMPD/rh" 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "repair -j $j with digests exits $rc: $(tail -n 3 "$TMPD/rh")"
	cmp -s "$TMPD/o1.img" "$TMPD/h$j.img" || fail "repair -j $j with digests wrote other bytes"
	out_sum=$(sha256sum < "$TMPD/h$j.img" | cut -d' ' -f1)
	for sum in "$in_sum" "$out_sum"; do
		grep -q "sha256=\"$sum\"" "$TMPD/h$j.xml" ||
			fail "repair -j $j: the report lacks the digest $sum: $(grep -o 'sha256="[0-9a-f]*"' "$TMPD/h$j.xml")"
	done
done

zstd -q -f -o "$TMPD/damaged.img.zst" "$img" || fail "cannot compress the damaged copy"
same_check "a compressed image" "$TMPD/damaged.img.zst"

# Cut inside the last AG's inode chunks: the reader's reads past the end fail.
size=$(stat -c %s "$img")
cp --sparse=always "$img" "$TMPD/short.img" && truncate -s $((size - size / 8)) "$TMPD/short.img" ||
	fail "cannot cut the image"
same_check "a truncated image" "$TMPD/short.img"

if command -v strace > /dev/null 2>&1; then
	# LeakSanitizer cannot run under ptrace (sanitizer builds).
	for j in 1 4; do
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq \
			-o "$TMPD/trace$j" -e trace=clone,clone3 \
			"$XFSRECON" check -j $j "$(corpus_image v5-files)" > /dev/null 2>&1
	done
	[ -s "$TMPD/trace4" ] && grep -q clone "$TMPD/trace4" || fail "check -j 4 starts no thread"
	grep -q clone "$TMPD/trace1" && fail "check -j 1 starts a thread: $(head -n 2 "$TMPD/trace1")"
fi
echo "jobs: the same findings ($errors errors on the damaged copy) and the same repair with -j 1 and -j 4"
