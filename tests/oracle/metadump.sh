#!/bin/sh
# tests/oracle/metadump.sh - xfs_metadump files read directly.
#
# For every corpus image, xfs_metadump writes a dump with names kept (-o)
# and one with names obfuscated (the default); xfs_mdrestore turns each
# into an image.  `info` (less its first line, which names the input),
# `check`, `ls -R` and `fsmap --xfs-db` on the dump must print exactly what
# they print on the restored image.  Version 2 dumps (which this xfsprogs
# cannot write) are made from the v1 dump of one image by re-packing its
# blocks as v2 extents, and must read the same; where the current xfsprogs
# can be had (tests/tools/xfsprogs-current.sh), its own v2 dump too.  A dump cut short is
# refused cleanly (exit 8), never crashes.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool perl
need_tool xfs_metadump
need_tool xfs_mdrestore

nfail=0
ncmp=0
report="$TMPD/report"
: > "$report"

# same NAME DUMP RESTORED: the four views agree
same() {
	for v in info check "ls -R" "fsmap --xfs-db"; do
		# shellcheck disable=SC2086
		"$XFSRECON" $v "$2" > "$TMPD/a" 2>&1
		ra=$?
		# shellcheck disable=SC2086
		"$XFSRECON" $v "$3" > "$TMPD/b" 2>&1
		rb=$?
		if [ "$v" = info ]; then
			sed -i 1d "$TMPD/a"
			sed -i 1d "$TMPD/b"
		fi
		sed -i "s|$2|IMG|g" "$TMPD/a"
		sed -i "s|$3|IMG|g" "$TMPD/b"
		ncmp=$((ncmp + 1))
		if [ $ra -ne $rb ] || ! cmp -s "$TMPD/a" "$TMPD/b"; then
			echo "$1: '$v' differs on the dump (exit $ra) and the restored image (exit $rb):" >> "$report"
			diff "$TMPD/a" "$TMPD/b" | head -6 >> "$report"
			nfail=$((nfail + 1))
		fi
	done
}

for name in $(corpus_names); do
	img=$(corpus_image "$name")
	for mode in plain obfuscated; do
		opt=-o
		[ $mode = obfuscated ] && opt=
		# shellcheck disable=SC2086
		xfs_metadump $opt "$img" "$TMPD/$name.md" > /dev/null 2>&1 ||
			fail "$name: xfs_metadump $opt failed"
		xfs_mdrestore "$TMPD/$name.md" "$TMPD/$name.rest" > /dev/null 2>&1 ||
			fail "$name: xfs_mdrestore failed"
		same "$name ($mode)" "$TMPD/$name.md" "$TMPD/$name.rest"
		if [ "$name" = v5-files ] && [ $mode = plain ]; then
			# v1 -> v2: the same blocks as extents
			perl -e '
				local $/; my $d = <STDIN>; my $o = "XMD2" . pack("NNNQ>", 2, 0, 0, 0);
				my $off = 0;
				while (1) {
					my ($m, $cnt, $bl) = unpack("a4 n C", substr($d, $off, 7));
					my $bs = 1 << $bl; my $max = ($bs - 8) / 8;
					last if $off > 0 && $cnt == 0;
					for my $i (0 .. $cnt - 1) {
						my $da = unpack("Q>", substr($d, $off + 8 + 8 * $i, 8));
						$o .= pack("Q>N", $da, $bs / 512) . substr($d, $off + $bs * (1 + $i), $bs);
					}
					$off += $bs * (1 + $cnt);
					last if $cnt < $max || $off >= length($d);
				}
				print $o;' < "$TMPD/$name.md" > "$TMPD/$name.md2"
			same "$name (v2)" "$TMPD/$name.md2" "$TMPD/$name.rest"
			# cut short: refused, no crash
			head -c 100000 "$TMPD/$name.md" > "$TMPD/cut.md"
			"$XFSRECON" check "$TMPD/cut.md" > "$TMPD/cut.out" 2>&1
			rc=$?
			if [ $rc -ne 8 ] || ! grep -q 'damaged metadump' "$TMPD/cut.out"; then
				echo "$name: a dump cut short: exit $rc, $(head -2 "$TMPD/cut.out")" >> "$report"
				nfail=$((nfail + 1))
			fi
		fi
		rm -f "$TMPD/$name.md" "$TMPD/$name.md2" "$TMPD/$name.rest"
	done
	rm -f "$img"
done

# Version 2 as xfs_metadump writes it (xfsprogs 6.6 and later): the current
# xfsprogs (tests/tools/xfsprogs-current.sh, built on first use).
cur=$(sh "$top_srcdir/tests/tools/xfsprogs-current.sh" 2> "$TMPD/cur.err") && [ -x "$cur/xfs_db" ] || cur=
if [ -n "$cur" ]; then
	img=$(corpus_image v5-files)
	PATH="$cur:$PATH" xfs_metadump -v 2 -o "$img" "$TMPD/v2.md" > /dev/null 2>&1 ||
		fail "xfs_metadump -v 2 ($cur) failed"
	"$cur/xfs_mdrestore" "$TMPD/v2.md" "$TMPD/v2.rest" > /dev/null 2>&1 ||
		fail "xfs_mdrestore ($cur) of a v2 dump failed"
	same "v5-files (v2, xfs_metadump $("$cur/xfs_db" -V | sed 's/.* //'))" "$TMPD/v2.md" "$TMPD/v2.rest"
	rm -f "$TMPD/v2.md" "$TMPD/v2.rest" "$img"
else
	echo "note: no current xfsprogs here ($(tail -1 "$TMPD/cur.err")): v2 as xfs_metadump writes it not compared"
fi

echo "metadump: $ncmp views compared; $nfail differ"
if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
