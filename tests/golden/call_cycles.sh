#!/bin/sh
# tests/golden/call_cycles.sh - no two files of the product call each other.
#
# A pair of source files where each calls a function the other defines is a
# circle: neither can be read, changed or tested without the other, and the
# helpers they share belong in a file of their own (design.md).  The test
# reads the symbol tables of the built libraries with nm: for every object,
# the functions and data it defines and those it takes from elsewhere; it
# fails naming every pair of objects that take something from each other,
# and also when it finds too few cross-file references (a test that checks
# nothing).
. "$top_srcdir/tests/lib.sh"

need_tool nm
libs=
for l in libxfmt.a libxa.a libxr.a libxcli.a; do
	[ -f "$top_builddir/$l" ] || fail "$top_builddir/$l is not built"
	libs="$libs $top_builddir/$l"
done

# One line per symbol: "D OBJECT NAME" (defined) or "U OBJECT NAME" (used).
# nm names each member "ARCHIVE[MEMBER]:" or prints "MEMBER:" before its
# symbols; both forms are read.
for l in $libs; do
	nm "$l" 2>/dev/null | awk -v lib="$(basename "$l")" '
		/:$/ { obj = lib ":" substr($0, 1, length($0) - 1); next }
		NF == 2 && $1 == "U" { print "U", obj, $2; next }
		NF == 3 && $2 ~ /^[TDBRG]$/ { print "D", obj, $3 }'
done > "$TMPD/syms" || fail "nm failed"

awk '
	$1 == "D" { def[$3] = $2; next }
	{ use[++n] = $2 " " $3 }
	END {
		for (i = 1; i <= n; i++) {
			split(use[i], u, " ")
			if ((u[2] in def) && def[u[2]] != u[1]) {
				edge[u[1] " " def[u[2]]] = edge[u[1] " " def[u[2]]] " " u[2]
				refs++
			}
		}
		for (e in edge) {
			split(e, p, " ")
			back = p[2] " " p[1]
			if ((back in edge) && p[1] < p[2])
				printf "%s calls%s\n  and %s calls%s\n", p[1], edge[e], p[2], edge[back]
		}
		print refs > "/dev/stderr"
	}' "$TMPD/syms" > "$TMPD/cycles" 2> "$TMPD/refs"

refs=$(cat "$TMPD/refs")
[ "${refs:-0}" -gt 500 ] || fail "only ${refs:-0} cross-file references found: the libraries were not read"
if [ -s "$TMPD/cycles" ]; then
	cat "$TMPD/cycles" >&2
	fail "$(grep -c '^  and' "$TMPD/cycles") pairs of files call each other"
fi
echo "$refs cross-file references in the four libraries: no two files call each other"
