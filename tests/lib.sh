# tests/lib.sh - helpers for the shell tests (sourced, not run).
#
# Every test gets its own scratch directory under tests/tmp/, removed on
# success.  Exit 77 means "skipped" to automake's test driver.

set -u

: "${XFSRECON:?XFSRECON must point at the built program}"
: "${top_srcdir:?}"
: "${top_builddir:?}"

# A repair that ties a finding to an action whose row in the actions table
# (reconstruct/actions.def) lacks the finding's fix class fails (exit 8)
# instead of noting it: no test passes over a planner or table bug.
XFSRECON_STRICT_ACTIONS=1
export XFSRECON_STRICT_ACTIONS

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

# file_sha FILE: its SHA-256 (hex).
file_sha() {
	sha256sum "$1" | cut -d' ' -f1
}

# range_sha FILE OFFSET LENGTH: SHA-256 of bytes [OFFSET, OFFSET+LENGTH).
range_sha() {
	dd if="$1" bs=1M iflag=skip_bytes,count_bytes skip="$2" count="$3" 2>/dev/null |
		sha256sum | cut -d' ' -f1
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

# problem_ids: every finding ID in formats/problems.def, one a line.
problem_ids() {
	sed -n 's/^XPROB([^,]*,[ 	]*\([A-Za-z0-9_]*\),.*/\1/p' "$top_srcdir/formats/problems.def"
}

# report_ids FILE: the finding IDs a text report names in brackets
# ("[agfBadCrc]"), sorted, each once.  Bracketed words that are not IDs
# from problems.def are ignored.
report_ids() {
	problem_ids | awk 'NR == FNR { known[$1] = 1; next }
		{
			s = $0
			while (match(s, /\[[A-Za-z][A-Za-z0-9_]*\]/)) {
				id = substr(s, RSTART + 1, RLENGTH - 2)
				if (id in known)
					print id
				s = substr(s, RSTART + RLENGTH)
			}
		}' - "$1" | sort -u
}

# run_limited SECONDS CMD...: run CMD with a time limit where timeout(1)
# exists (exit status 124 when the limit is hit), plainly otherwise.
run_limited() {
	_limit=$1
	shift
	if command -v timeout >/dev/null 2>&1; then
		timeout "$_limit" "$@"
	else
		"$@"
	fi
}
