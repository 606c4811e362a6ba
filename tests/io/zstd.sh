#!/bin/sh
# tests/io/zstd.sh - zstd-compressed XFS images read in place: plain
# single-frame and multi-frame files from the zstd command line, and
# seekable files from tests/tools/mkseekable (which zstd itself must accept
# and decompress to the same bytes).  Every way must read what dd reads from
# the uncompressed image.  Then: the memory cap, truncation and garbage, and
# (with strace) that nothing is opened for writing - no decompressed copy.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/io/io-lib.sh"

fs="$TMPD/fs.img"
make_fs "$fs"
fs_size=$(stat -c %s "$fs")
fs_sha=$(file_sha "$fs")

# Plain, one frame.
zstd -q -f "$fs" -o "$TMPD/plain.zst" || fail "zstd"
info=$("$IMGCAT" --info "$TMPD/plain.zst") || fail "imgcat --info plain"
expect_info "$info" kind zstd
expect_info "$info" size "$fs_size"
[ "$("$IMGCAT" --sha256 "$TMPD/plain.zst")" = "$fs_sha" ] || fail "sha256 of plain zstd"
check_ranges "$fs" 0 "$TMPD/plain.zst"

# Plain, three frames (cut at odd sizes) with a skippable frame between.
half=$((fs_size / 2 + 12345))
head -c "$half" "$fs" | zstd -q -c > "$TMPD/multi.zst"
printf '\120\052\115\030\003\000\000\000abc' >> "$TMPD/multi.zst"
tail -c +$((half + 1)) "$fs" | head -c 777 | zstd -q -c >> "$TMPD/multi.zst"
tail -c +$((half + 778)) "$fs" | zstd -q -c --no-check >> "$TMPD/multi.zst"
zstd -q -t "$TMPD/multi.zst" || fail "zstd rejects the multi-frame file"
info=$("$IMGCAT" --info "$TMPD/multi.zst") || fail "imgcat --info multi"
expect_info "$info" size "$fs_size"
[ "$("$IMGCAT" --sha256 "$TMPD/multi.zst")" = "$fs_sha" ] || fail "sha256 of multi-frame zstd"
check_ranges "$fs" 0 "$TMPD/multi.zst"

# Seekable, with and without checksums, small and large frames.
for args in "-c -f 65536" "-f 1048576" "-c -f 4096 -l 1"; do
	# shellcheck disable=SC2086
	"$MKSEEKABLE" $args "$fs" "$TMPD/seek.zst" || fail "mkseekable $args"
	zstd -q -t "$TMPD/seek.zst" || fail "zstd rejects mkseekable $args output"
	[ "$(zstd -q -d -c "$TMPD/seek.zst" | sha256sum | cut -d' ' -f1)" = "$fs_sha" ] ||
		fail "zstd decompresses mkseekable $args output to other bytes"
	info=$("$IMGCAT" --info "$TMPD/seek.zst") || fail "imgcat --info seekable $args"
	expect_info "$info" size "$fs_size"
	[ "$("$IMGCAT" --sha256 "$TMPD/seek.zst")" = "$fs_sha" ] || fail "sha256 of seekable $args"
	check_ranges "$fs" 0 "$TMPD/seek.zst"
	check_ranges "$fs" 0 --cache "$TMPD/seek.zst"
done

# The memory cap: a plain file whose non-zero pages exceed it is refused with
# advice; a seekable one with small frames needs only a few frames of memory.
"$MKSEEKABLE" -f 65536 "$fs" "$TMPD/seek.zst" || fail "mkseekable"
XFSRECON_ZSTD_MAX_MEM=1M "$IMGCAT" --info "$TMPD/plain.zst" 2> "$TMPD/err"
[ $? -eq 8 ] || fail "over the memory cap: exit status"
grep -q "decompress it to a file" "$TMPD/err" || fail "cap message: $(cat "$TMPD/err")"
[ "$(XFSRECON_ZSTD_MAX_MEM=1M "$IMGCAT" --sha256 "$TMPD/seek.zst")" = "$fs_sha" ] ||
	fail "seekable under a 1 MiB cap"
XFSRECON_ZSTD_MAX_MEM=much "$IMGCAT" --info "$TMPD/plain.zst" 2> "$TMPD/err"
[ $? -eq 16 ] || fail "bad XFSRECON_ZSTD_MAX_MEM: exit status"

# Damage: truncated, garbage after the end, a seek table that lies.
size=$(stat -c %s "$TMPD/plain.zst")
head -c $((size - 100)) "$TMPD/plain.zst" > "$TMPD/trunc.zst"
"$IMGCAT" --info "$TMPD/trunc.zst" 2> "$TMPD/err"
[ $? -eq 8 ] || fail "truncated: exit status"
grep -q "truncated" "$TMPD/err" || fail "truncated: $(cat "$TMPD/err")"
{ cat "$TMPD/plain.zst"; printf 'not zstd at all'; } > "$TMPD/garbage.zst"
"$IMGCAT" --info "$TMPD/garbage.zst" 2> "$TMPD/err"
[ $? -eq 8 ] || fail "trailing garbage: exit status"
grep -q "damaged" "$TMPD/err" || fail "garbage: $(cat "$TMPD/err")"
cp "$TMPD/seek.zst" "$TMPD/lie.zst"
size=$(stat -c %s "$TMPD/lie.zst")
printf '\377\377\377\000' | dd of="$TMPD/lie.zst" bs=1 seek=$((size - 9)) conv=notrunc 2>/dev/null
"$IMGCAT" --info "$TMPD/lie.zst" 2> "$TMPD/err"
[ $? -eq 8 ] || fail "lying seek table: exit status"
grep -q "seek table" "$TMPD/err" || fail "lying seek table: $(cat "$TMPD/err")"

# Nothing is opened for writing while a compressed image is read.
if command -v strace >/dev/null 2>&1 &&
	strace -f -qq -e trace=open,openat,creat -o "$TMPD/trace" true 2>/dev/null; then
	for z in plain.zst seek.zst; do
		# LeakSanitizer cannot run under ptrace; the other tests cover leaks.
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=open,openat,openat2,creat,truncate,ftruncate -o "$TMPD/trace" \
			"$IMGCAT" --sha256 "$TMPD/$z" > /dev/null || fail "imgcat under strace"
		grep -q "$z" "$TMPD/trace" || fail "strace saw no open of $z"
		if grep -E 'O_WRONLY|O_RDWR|O_CREAT|creat\(|truncate\(' "$TMPD/trace" | grep -v 'ENOENT' > "$TMPD/w"; then
			fail "opened for writing while reading $z: $(cat "$TMPD/w")"
		fi
	done
else
	echo "note: strace unusable here; the no-write check was not run" >&2
fi
exit 0
