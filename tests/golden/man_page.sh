#!/bin/sh
# tests/golden/man_page.sh - the manual page is current, lints clean, and
# documents every command and option the program accepts.
#
# doc/xfsrecon.8 is generated from the command table by doc/gen_man; a page
# that differs from what gen_man prints now is stale (`make man-page`).  It
# must pass `mandoc -T lint` without warnings and render with `man`.  Each
# command of `xfsrecon help` must have its own section, `xfsrecon help CMD`
# and `xfsrecon CMD --help` must both exit 0 with the same text, and every
# option that text lists must be in the page.
. "$top_srcdir/tests/lib.sh"

page=$top_srcdir/doc/xfsrecon.8
gen=$top_builddir/doc/gen_man
[ -x "$gen" ] || fail "doc/gen_man was not built"
"$gen" > "$TMPD/new.8" || fail "gen_man failed"
cmp -s "$TMPD/new.8" "$page" || fail "doc/xfsrecon.8 is stale: run 'make man-page' ($(diff "$page" "$TMPD/new.8" | head -n 5))"

need_tool mandoc
mandoc -T lint -W warning "$page" > "$TMPD/lint" 2>&1 || true
[ ! -s "$TMPD/lint" ] || fail "mandoc -T lint: $(head -n 5 "$TMPD/lint")"
if command -v man > /dev/null 2>&1; then
	MANWIDTH=80 man --warnings -l "$page" > "$TMPD/man.txt" 2> "$TMPD/man.err" ||
		fail "man cannot render the page: $(head -n 3 "$TMPD/man.err")"
	[ ! -s "$TMPD/man.err" ] || fail "man --warnings: $(head -n 3 "$TMPD/man.err")"
fi

"$XFSRECON" help > "$TMPD/help" || fail "xfsrecon help exits $?"
cmds=$(sed -n 's/^  \([a-z-]*\) .*/\1/p' "$TMPD/help")
[ "$(echo "$cmds" | wc -w)" -ge 15 ] || fail "xfsrecon help lists only: $cmds"
n=0
for c in $cmds; do
	grep -q "^\.SS $c\$" "$page" || fail "the page has no section for $c"
	"$XFSRECON" help "$c" > "$TMPD/h1" || fail "xfsrecon help $c exits $?"
	"$XFSRECON" "$c" --help > "$TMPD/h2" || fail "xfsrecon $c --help exits $?"
	cmp -s "$TMPD/h1" "$TMPD/h2" || fail "help $c and $c --help differ"
	grep -q "^usage: xfsrecon $c " "$TMPD/h1" || fail "help $c prints no usage line"
	for o in $(grep -o -- '--[a-z][a-z-]*' "$TMPD/h1" | sort -u); do
		esc=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
		grep -q -- "$esc" "$page" || fail "option $o of $c is not in the page"
		n=$((n + 1))
	done
done
"$XFSRECON" help nosuchcommand > /dev/null 2>&1
rc=$?
[ $rc -eq 16 ] || fail "help of an unknown command exits $rc, not 16"
echo "$(echo "$cmds" | wc -w) commands, $n command options documented; the page lints clean"
