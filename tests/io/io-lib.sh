# tests/io/io-lib.sh - helpers of the image I/O shell tests (sourced after
# tests/lib.sh).  Images are read through tests/tools/imgcat, which opens them
# with ximg_open exactly as the analyzer does; dd and sha256sum of the same
# bytes are the reference.

IMGCAT="$top_builddir/tests/tools/imgcat"
MKSEEKABLE="$top_builddir/tests/tools/mkseekable"
[ -x "$IMGCAT" ] || fail "$IMGCAT is not built"
[ -x "$MKSEEKABLE" ] || fail "$MKSEEKABLE is not built"
: "${MKFS_XFS:=}"
[ -n "$MKFS_XFS" ] || MKFS_XFS=$(command -v mkfs.xfs || echo mkfs.xfs)
need_tool "$MKFS_XFS"
need_tool sha256sum
need_tool dd
need_tool zstd

# pattern BYTES: deterministic, non-repeating, non-zero bytes.
pattern() {
	seq 1 10000000 | head -c "$1"
}

# make_fs FILE: a small XFS filesystem with a non-zero pattern in its free
# space (so that every range we compare is distinct).  mkfs.xfs refuses
# filesystems under 300 MB unless it runs under the XFS test suite's
# variables; use those for a 48 MiB one, else make the 320 MiB minimum.
make_fs() {
	rm -f "$1"
	truncate -s 48M "$1"
	if ! TEST_DIR="$TMPD" TEST_DEV="$1" QA_CHECK_FS=1 "$MKFS_XFS" -q -f "$1" >/dev/null 2>&1; then
		rm -f "$1"
		truncate -s 320M "$1"
		"$MKFS_XFS" -q -f "$1" || fail "mkfs.xfs $1"
	fi
	pattern 3000000 | dd of="$1" bs=1M seek=20 conv=notrunc 2>/dev/null || fail "dd into $1"
}

# sfdisk_part DISK N: "START SIZE" in sectors of partition N, from sfdisk -d.
sfdisk_part() {
	sfdisk -d "$1" 2>/dev/null | awk -v dev="$1$2" '
		$1 == dev {
			for (i = 2; i <= NF; i++) {
				if ($i == "start=") s = $(i + 1)
				else if ($i ~ /^start=/) s = substr($i, 7)
				if ($i == "size=") z = $(i + 1)
				else if ($i ~ /^size=/) z = substr($i, 6)
			}
			gsub(",", "", s); gsub(",", "", z)
			print s, z
		}'
}

# expect_info "OUTPUT" KEY VALUE: imgcat --info output has the line "KEY VALUE".
expect_info() {
	printf '%s\n' "$1" | grep -qx "$2 $3" || fail "expected '$2 $3' in: $1"
}

# check_ranges FILE BASE IMGCAT-ARGS... IMAGE: compare a few --cat ranges of
# the image imgcat opens with those arguments against the bytes of FILE at
# BASE + offset (ranges cross pages, frames and the pattern at 20 MiB).
check_ranges() {
	_file=$1 _base=$2
	shift 2
	for _r in "0 4096" "512 1" "20971520 65536" "20975000 300001" "1048573 9000"; do
		_off=${_r% *} _len=${_r#* }
		"$IMGCAT" "$@" --cat "$_off" "$_len" > "$TMPD/got" || fail "imgcat $* --cat $_r"
		dd if="$_file" bs=1M iflag=skip_bytes,count_bytes skip=$((_base + _off)) \
			count="$_len" of="$TMPD/want" 2>/dev/null
		cmp -s "$TMPD/got" "$TMPD/want" || fail "imgcat $* --cat $_r differs from dd"
	done
}
