#!/bin/sh
# findings_doc.sh - doc/findings.md is exactly what doc/gen_findings prints
# from the current findings table (formats/problems.def) and actions table
# (reconstruct/actions.def).  A row added, changed or removed without `make
# findings-doc` fails here.

. "$top_srcdir/tests/lib.sh"

gen="$top_builddir/doc/gen_findings"
[ -x "$gen" ] || fail "$gen is not built"

"$gen" "$top_srcdir/formats/problems.def" > "$TMPD/findings.md" || fail "gen_findings failed"

# The generator must really list the table: a row for the first and the
# last code, and one row per XPROB line of problems.def.
rows=$(grep -c '^| 0x[0-9A-F]\{4\} | `' "$TMPD/findings.md")
defs=$(grep -c '^XPROB(' "$top_srcdir/formats/problems.def")
[ "$rows" -gt 0 ] || fail "no finding rows generated"
[ "$rows" -eq "$defs" ] || fail "$rows rows generated for $defs XPROB lines in problems.def"
# ... and one row per action of actions.def.
rows=$(sed -n '/^## Repair actions/,$p' "$TMPD/findings.md" | grep -c '^| `[a-z]')
defs=$(grep -c '^XACTION(' "$top_srcdir/reconstruct/actions.def")
[ "$rows" -gt 0 ] || fail "no action rows generated"
[ "$rows" -eq "$defs" ] || fail "$rows action rows generated for $defs XACTION lines in actions.def"

if ! diff -u "$top_srcdir/doc/findings.md" "$TMPD/findings.md"; then
	fail "doc/findings.md is stale: run 'make findings-doc' and commit it"
fi
exit 0
