# tests/lib.sh - helpers for the shell tests (sourced, not run).
#
# Every test gets its own scratch directory under tests/tmp/, removed on
# success.  Exit 77 means "skipped" to automake's test driver.

set -u

: "${XFSRECON:?XFSRECON must point at the built program}"
: "${top_srcdir:?}"
: "${top_builddir:?}"

SKIP=77
test_name=$(basename "$0" .sh)
TMPD="$top_builddir/tests/tmp/$test_name.$$"
mkdir -p "$TMPD"
trap 'rc=$?; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "SKIP: $*" >&2
	exit $SKIP
}

need_tool() {
	command -v "$1" >/dev/null 2>&1 || [ -x "$1" ] || skip "$1 not available"
}

# corpus_image NAME: decompress corpus/NAME.img.zst into the scratch
# directory (once per test) and print the path of the raw image.
corpus_image() {
	local src="$top_srcdir/corpus/images/$1.img.zst" dst="$TMPD/$1.img"
	[ -f "$src" ] || fail "corpus image $src is missing"
	[ -f "$dst" ] || zstd -q -d -f -o "$dst" "$src" || fail "cannot decompress $src"
	printf '%s\n' "$dst"
}

# corpus_names: the names of all committed corpus images.
corpus_names() {
	local f
	for f in "$top_srcdir"/corpus/images/*.img.zst; do
		[ -f "$f" ] || continue
		f=$(basename "$f")
		printf '%s\n' "${f%.img.zst}"
	done
}
