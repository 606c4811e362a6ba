#!/bin/sh
# tests/golden/layers.sh - includes go one way: formats <- analyzer <-
# reconstruct <- cli.
#
# formats/ may include only formats/ (and the C library); analyzer/ may not
# include reconstruct/ or cli/; reconstruct/ may not include cli/.  Every
# quoted #include of every .c and .h in those folders is checked; the test
# fails naming each one that reaches up, and also when it finds no include
# at all (a test that checks nothing).
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
