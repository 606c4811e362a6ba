#!/bin/sh
# tests/golden/layers.sh - includes go one way: formats <- analyzer <-
# reconstruct <- cli.
#
# formats/ may include only formats/ (and the C library); analyzer/ may not
# include reconstruct/ or cli/; reconstruct/ may not include cli/.  Every
# quoted #include of every .c and .h in those folders is checked; the test
# fails naming each one that reaches up, and also when it finds no include
# at all (a test that checks nothing).
#
# The libraries also print nothing and never end the process: no file of
# formats/, analyzer/ or reconstruct/ names stdout or stderr or calls
# printf, fprintf, vfprintf, puts, perror or exit.  What a library has to
# say goes through analyzer/messages.h; the report writers write to the
# FILE the command line gives them with fputs and libxml2's writer.
. "$top_srcdir/tests/lib.sh"

cd "$top_srcdir" || fail "no source tree"
bad=0
checked=0
for layer in formats analyzer reconstruct; do
	case $layer in
	formats) forbid='^(analyzer|reconstruct|cli|tests)/' ;;
	analyzer) forbid='^(reconstruct|cli|tests)/' ;;
	reconstruct) forbid='^(cli|tests)/' ;;
	esac
	for f in $(find "$layer" -name '*.[ch]' | sort); do
		for inc in $(sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$f"); do
			checked=$((checked + 1))
			if printf '%s\n' "$inc" | grep -Eq "$forbid"; then
				echo "FAIL: $f includes $inc (above $layer/)" >&2
				bad=$((bad + 1))
			fi
			if [ "$layer" = formats ] && [ "${inc#formats/}" = "$inc" ] &&
			    [ "$inc" != config.h ]; then
				echo "FAIL: $f includes $inc (formats/ includes only formats/)" >&2
				bad=$((bad + 1))
			fi
		done
	done
done
[ $checked -gt 100 ] || fail "only $checked includes found: the tree was not read"
[ $bad -eq 0 ] || fail "$bad includes reach up a layer"
echo "$checked includes checked: none reaches up a layer"

# Comments, string literals and format attributes are left out first (a
# comment may well say "printed", a finding's text "exit 4").
prints=$(find formats analyzer reconstruct -name '*.[ch]' | sort | while read -r f; do
	sed -e 's:"\([^"\\]\|\\.\)*"::g' -e 's:format(printf::g' -e 's://.*$::' \
	    -e 's:/\*.*\*/::g' -e '/\/\*/,/\*\//d' "$f" |
	    grep -nE '(^|[^_a-zA-Z0-9])(stdout|stderr|printf|fprintf|vfprintf|puts|perror|exit)([^_a-zA-Z0-9]|$)' |
	    sed "s:^:$f\::"
done)
libfiles=$(find formats analyzer reconstruct -name '*.c' | wc -l)
[ "$libfiles" -gt 50 ] || fail "only $libfiles library sources found: the tree was not read"
if [ -n "$prints" ]; then
	printf '%s\n' "$prints" >&2
	fail "library code prints or exits (above)"
fi
echo "$libfiles library sources: none prints or exits"
