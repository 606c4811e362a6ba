#!/bin/sh
# tests/oracle/dirs_xfsdb.sh - every directory's entries (name, inode) as
# xfsrecon lists them equal what `xfs_db ls` prints, on every corpus image,
# including the ones the kernel cannot mount (v4).  Directories are taken
# from our own recursive listing and checked up to a bound per image, so a
# huge directory tree keeps the test short.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"
MAX_DIRS=40

# Names made of plain characters only: xfs_db prints raw bytes and we print
# escapes, and spaces split fields; files.sh compares the others with the
# kernel.  A count check below keeps the filter from hiding missing names.
plain() {
	LC_ALL=C grep -E '^[A-Za-z0-9._+=,:@%-]+ [0-9]+$'
}

for name in $(corpus_names); do
	img=$(corpus_image "$name")
	# every directory path, plus the root
	{ echo /; "$XFSRECON" ls -R -l "$img" / | awk '$2 ~ /^d/ {p = $9; for (i = 10; i <= NF; i++) p = p " " $i; print p}'; } |
		head -n $MAX_DIRS > "$TMPD/dirs"
	n=0
	while IFS= read -r d; do
		# names with spaces or escapes are left to the kernel oracle
		case "$d" in *' '*|*'\'*) continue ;; esac
		"$XFS_DB" -r -c "path $d" -c ls "$img" 2>/dev/null > "$TMPD/db"
		# namelen ($5) must match the last word, or the name had spaces
		awk 'NF == 7 && $NF == "(good)" && $(NF-1) != "." && $(NF-1) != ".." && length($(NF-1)) == $5 {
			print $(NF-1), $2 }' "$TMPD/db" | plain | LC_ALL=C sort > "$TMPD/want"
		want_n=$(awk '$NF == "(good)" && $(NF-1) != "." && $(NF-1) != ".."' "$TMPD/db" | wc -l)
		got_n=$("$XFSRECON" ls "$img" "$d" | wc -l)
		[ "$want_n" -eq "$got_n" ] || fail "$name:$d: $got_n entries, xfs_db lists $want_n"
		# a symlink's line ends "-> TARGET" (a target with spaces is left out
		# like a name with spaces: the count check above still holds it)
		"$XFSRECON" ls -l "$img" "$d" |
			awk '$2 ~ /^l/ && NF == 11 && $10 == "->" {print $9, $1; next} NF == 9 {print $9, $1}' | plain |
			LC_ALL=C sort > "$TMPD/got"
		[ -s "$TMPD/want" ] || [ ! -s "$TMPD/got" ] || fail "$name:$d: xfs_db listed nothing"
		diff "$TMPD/want" "$TMPD/got" > "$TMPD/diff" ||
			fail "$name:$d: entries differ from xfs_db: $(head -10 "$TMPD/diff")"
		n=$((n + 1))
	done < "$TMPD/dirs"
	[ $n -gt 0 ] || fail "$name: no directory compared"
	echo "ok: $name: $n directories agree with xfs_db"
	rm -f "$img"
done
exit 0
