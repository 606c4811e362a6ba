#!/bin/sh
# tests/io/outpath_symlink.sh - a symlink planted at an output path is not
# followed, and a PATH.partial that a run did not create is not removed.
#
# With a clean corpus image I and a victim file V (its SHA-256 the oracle):
#   - check I --no-hash --xml S, S a symlink to V: refused (16), V unchanged;
#   - the same with S a dangling symlink to N: refused, N never created;
#   - map I -o S (S a symlink to V): refused, V unchanged;
#   - repair I -o S (dangling, to N): refused, N never created;
#   - plan I -o P with P.partial an existing file: refused, P.partial kept
#     as it was and P not created; with P.partial a symlink to V: refused,
#     the symlink kept and V unchanged.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool sha256sum
X=$XFSRECON
img=$(corpus_image v5-files)
printf 'victim\n' > "$TMPD/v"
hv=$(file_sha "$TMPD/v")
nfail=0
no() {
	echo "FAIL: $*" >&2
	nfail=$((nfail + 1))
}

# refused WHAT CMD...: CMD must exit 16.
refused() {
	_what=$1
	shift
	run_limited 300 "$@" > "$TMPD/out" 2>&1 < /dev/null
	_rc=$?
	[ $_rc -eq 16 ] || no "$_what: exit $_rc, not refused: $(head -c 600 "$TMPD/out")"
}

ln -s "$TMPD/v" "$TMPD/s.xml"
refused "check --xml through a symlink" "$X" check "$img" --no-hash --xml "$TMPD/s.xml"
ln -s "$TMPD/n" "$TMPD/d.xml"
refused "check --xml through a dangling symlink" "$X" check "$img" --no-hash --xml "$TMPD/d.xml"
[ -e "$TMPD/n" ] && no "check --xml created the dangling symlink's target"
rm -f "$TMPD/n"
ln -s "$TMPD/v" "$TMPD/s.svg"
refused "map -o through a symlink" "$X" map "$img" -o "$TMPD/s.svg"
ln -s "$TMPD/n" "$TMPD/d.img"
refused "repair -o through a dangling symlink" "$X" repair "$img" -o "$TMPD/d.img"
[ -e "$TMPD/n" ] && no "repair -o created the dangling symlink's target"
[ "$(file_sha "$TMPD/v")" = "$hv" ] || no "the symlink's target was written"

printf 'someone else\n' > "$TMPD/p.plan.partial"
hpp=$(file_sha "$TMPD/p.plan.partial")
"$X" plan "$img" -o "$TMPD/p.plan" > "$TMPD/out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 1 ] || no "plan with an existing P.partial exits $rc"
[ -f "$TMPD/p.plan.partial" ] && [ "$(file_sha "$TMPD/p.plan.partial")" = "$hpp" ] ||
	no "plan removed or changed a P.partial it did not create"
[ -e "$TMPD/p.plan" ] && no "plan wrote P beside a P.partial it did not create"
rm -f "$TMPD/p.plan.partial" "$TMPD/p.plan"
ln -s "$TMPD/v" "$TMPD/p.plan.partial"
"$X" plan "$img" -o "$TMPD/p.plan" > "$TMPD/out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 1 ] || no "plan with P.partial a symlink exits $rc"
[ -L "$TMPD/p.plan.partial" ] || no "plan removed a P.partial symlink it did not create"
[ "$(file_sha "$TMPD/v")" = "$hv" ] || no "plan wrote through a P.partial symlink"
[ $nfail -eq 0 ] || fail "$nfail checks failed"
exit 0
