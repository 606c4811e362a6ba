#!/bin/sh
# tests/golden/output.sh - the output image writer (reconstruct/output.c).
#
# Judged with cmp, sha256sum, du and stat, never with the writer itself:
#   - OUT may not be the input, whether named directly, through a symlink or
#     through a hard link, even when forced; the input's bytes never change;
#   - an existing OUT is kept unless forced, and a forced one is rewritten;
#   - a new OUT is mode 0600 and as sparse as the input (holes stay holes);
#   - planned changes land at their offsets and nowhere else (cmp -l);
#   - the SHA-256 the writer reports is the one sha256sum computes on OUT,
#     and the input's is the one sha256sum computes on the input (both come
#     from one read of the input), with a change across the writer's 1 MiB
#     chunks too;
#   - a zstd input is written decompressed, identical to the raw image;
#   - repair's report carries the same digests, also with --verify-output
#     (OUT read back), and none with --no-hash.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool sha256sum
need_tool cmp
XRWRITE="$top_builddir/tests/tools/xrwrite"
[ -x "$XRWRITE" ] || fail "$XRWRITE is not built"

img=$(corpus_image v5-normap)
zimg="$top_srcdir/corpus/images/v5-normap.img.zst"
in_hash=$(sha256sum < "$img")
size=$(stat -c %s "$img")

# refuse: xrwrite [-f] write IMAGE OUT must fail, naming why
refuse() {
	_why=$1
	shift
	if "$XRWRITE" "$@" > "$TMPD/out.txt" 2> "$TMPD/err.txt"; then
		fail "xrwrite $* succeeded"
	fi
	grep -q "$_why" "$TMPD/err.txt" || { cat "$TMPD/err.txt" >&2; fail "xrwrite $*: no '$_why'"; }
}

# --- OUT is the input, by any name -------------------------------------
ln -s "$img" "$TMPD/symlink.img"
ln "$img" "$TMPD/hardlink.img"
refuse "exists" write "$img" "$img"
refuse "is the input image" -f write "$img" "$img"
refuse "is the input image" -f write "$img" "$TMPD/symlink.img"
refuse "is the input image" -f write "$img" "$TMPD/hardlink.img"
refuse "is the input image" -f write "$TMPD/symlink.img" "$TMPD/hardlink.img" 0:00
[ "$(sha256sum < "$img")" = "$in_hash" ] || fail "the input changed"
rm -f "$TMPD/symlink.img" "$TMPD/hardlink.img"

# --- an existing OUT is kept unless forced --------------------------------
out="$TMPD/out.img"
echo "keep me" > "$out"
refuse "exists" write "$img" "$out"
[ "$(cat "$out")" = "keep me" ] || fail "an existing OUT was changed without force"
"$XRWRITE" -f write "$img" "$out" > "$TMPD/out.txt" || fail "forced write failed"
cmp -s "$img" "$out" || fail "forced OUT differs from the input"
rm -f "$out"

# --- a plan's changes land at their offsets, holes stay holes -----------
# 4 bytes in the primary superblock's unused tail, 2 bytes in a hole
# of the input (2 MiB), 3 bytes straddling no block boundary at 1 MiB+5.
"$XRWRITE" write "$img" "$out" 0x1F0:deadbeef 0x200000:0102 0x100005:aabbcc \
	> "$TMPD/out.txt" || fail "write with changes failed"
cmp -l "$img" "$out" > "$TMPD/cmp.txt"
# cmp -l: 1-based decimal offset, old and new byte in octal
cat > "$TMPD/cmp.want" <<EOT
497 0 336
498 0 255
499 0 276
500 0 357
1048582 $(od -An -t o1 -j 1048581 -N 1 "$img" | tr -d ' ') 252
1048583 $(od -An -t o1 -j 1048582 -N 1 "$img" | tr -d ' ') 273
1048584 $(od -An -t o1 -j 1048583 -N 1 "$img" | tr -d ' ') 314
2097153 0 1
2097154 0 2
EOT
# cmp pads columns with spaces; compare the numbers only
awk '{ print $1, $2 + 0, $3 + 0 }' "$TMPD/cmp.txt" > "$TMPD/cmp.got"
awk '{ print $1, $2 + 0, $3 + 0 }' "$TMPD/cmp.want" > "$TMPD/cmp.want2"
# a byte the input already held is no change: drop such lines from the want
awk '$2 != $3' "$TMPD/cmp.want2" > "$TMPD/cmp.want3"
diff "$TMPD/cmp.want3" "$TMPD/cmp.got" || fail "changes landed elsewhere (diff: want got)"
[ "$(stat -c %s "$out")" = "$size" ] || fail "OUT is not the input's size"
[ "$(stat -c %a "$out")" = 600 ] || fail "OUT mode is $(stat -c %a "$out"), not 600"
want=$(sed -n 's/^out_sha256 //p' "$TMPD/out.txt")
got=$(sha256sum < "$out" | cut -d' ' -f1)
[ "$want" = "$got" ] || fail "reported SHA-256 $want, sha256sum says $got"
[ "$(sed -n 's/^in_sha256 //p' "$TMPD/out.txt")" = "$(echo "$in_hash" | cut -d' ' -f1)" ] ||
	fail "the input's reported SHA-256 is not sha256sum's"
in_used=$(du -k "$img" | cut -f1)
out_used=$(du -k "$out" | cut -f1)
# the input is sparse (zstd -d writes holes); OUT may add the one block
# the change in a hole needs, and nothing like the full size
[ "$in_used" -lt $((size / 1024 / 4)) ] || skip "the scratch filesystem keeps no holes"
[ "$out_used" -le $((in_used + 64)) ] || fail "OUT uses ${out_used}K, the input ${in_used}K: holes were filled"
rm -f "$out"

# --- a zstd input is written decompressed ------------------------------
"$XRWRITE" write "$zimg" "$out" > "$TMPD/out.txt" || fail "write from zstd failed"
cmp -s "$img" "$out" || fail "OUT from the zstd image differs from the raw image"
out_used=$(du -k "$out" | cut -f1)
[ "$out_used" -le $((in_used + 64)) ] || fail "OUT from zstd uses ${out_used}K: holes were filled"
want=$(sed -n 's/^out_sha256 //p' "$TMPD/out.txt")
[ "$want" = "$(sha256sum < "$out" | cut -d' ' -f1)" ] || fail "zstd: reported SHA-256 is wrong"
rm -f "$out"

# --- the reader's path writes the changes too, across its chunks ---------
# (a zstd input cannot be copied by the kernel: OUT is written from the
# one read that hashes; 0xFFFFE..0x100001 straddles its 1 MiB chunks)
"$XRWRITE" write "$zimg" "$out" 0xFFFFE:11223344 0x200000:0102 > "$TMPD/out.txt" ||
	fail "write from zstd with changes failed"
cmp -l "$img" "$out" | awk '{ print $1, $3 + 0 }' > "$TMPD/cmp.got"
printf '1048575 21\n1048576 42\n1048577 63\n1048578 104\n2097153 1\n2097154 2\n' |
	while read -r o v; do
		[ "$(od -An -t o1 -j $((o - 1)) -N 1 "$img" | tr -d ' ')" -eq "$v" ] || echo "$o $v"
	done > "$TMPD/cmp.want"
diff "$TMPD/cmp.want" "$TMPD/cmp.got" || fail "zstd: changes landed elsewhere (diff: want got)"
want=$(sed -n 's/^out_sha256 //p' "$TMPD/out.txt")
[ "$want" = "$(sha256sum < "$out" | cut -d' ' -f1)" ] || fail "zstd with changes: reported SHA-256 is wrong"
[ "$(sed -n 's/^in_sha256 //p' "$TMPD/out.txt")" = "$(echo "$in_hash" | cut -d' ' -f1)" ] ||
	fail "zstd: the input's SHA-256 is not that of its decompressed bytes"
rm -f "$out"

# --- repair's report: the digests, read back or not, or none -------------
cp --sparse=always "$img" "$TMPD/dmg.img"
printf '\377' | dd of="$TMPD/dmg.img" bs=1 seek=$((0x1F0)) conv=notrunc 2> /dev/null
dmg_hash=$(sha256sum < "$TMPD/dmg.img" | cut -d' ' -f1)
for opt in "" --verify-output --no-hash; do
	rm -f "$out" "$TMPD/r.xml"
	"$XFSRECON" repair $opt "$TMPD/dmg.img" -o "$out" --report "$TMPD/r.xml" > "$TMPD/rep.txt" 2>&1
	[ -s "$out" ] || { cat "$TMPD/rep.txt" >&2; fail "repair $opt wrote no OUT"; }
	shas=$(grep -o 'sha256="[0-9a-f]*"' "$TMPD/r.xml" | tr '\n' ' ')
	if [ "$opt" = --no-hash ]; then
		[ -z "$shas" ] || fail "repair --no-hash: the report has digests: $shas"
		continue
	fi
	want="sha256=\"$dmg_hash\" sha256=\"$(sha256sum < "$out" | cut -d' ' -f1)\" "
	[ "$shas" = "$want" ] || fail "repair $opt: report digests '$shas', want '$want'"
done

[ "$(sha256sum < "$img")" = "$in_hash" ] || fail "the input changed"
exit 0
