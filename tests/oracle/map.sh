#!/bin/sh
# tests/oracle/map.sh - `xfsrecon map`: the picture of block ownership.
#
# On every corpus image:
#   - the SVG is well-formed XML (xmllint) with the SVG namespace on its root;
#   - its per-AG, per-class block totals (the <metadata> block) equal the sums
#     of the fsmap records classed independently here: owners as xfs_db's
#     fsmap prints them (the rmapbt on images that have one; without one,
#     `xfsrecon fsmap --xfs-db`, the forward map, which tests/oracle/fsmap.sh
#     holds against the AGF) and file types from xfs_db's core.mode;
#   - free blocks equal the AGF's freeblks (xfs_db), nothing is unaccounted,
#     and nothing is marked damaged on these clean images;
#   - the HTML page is well-formed and its tables hold the same totals;
#   - --ag N holds the same totals for AG N alone.
# Then two damaged copies: a file whose extent is moved onto its own inode
# chunk (no rmapbt; xfs_repair -n must object) is drawn with the blocks
# claimed twice; an rmapbt record given a wrong owner is marked with the
# check's finding.  The map is refused over the image and over an existing
# file without --force, and is the same byte for byte when drawn twice.
# Where Chromium exists, it renders the SVG to PNG.
#
# Only reads the committed images and scratch copies: no root needed.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"
XMLLINT=${XMLLINT:-xmllint}
need_tool "$XMLLINT"
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}

nfail=0
report="$TMPD/report"
: > "$report"
bad() {
	echo "$*" >> "$report"
	nfail=$((nfail + 1))
}

# map_totals FILE: "AG CLASS BLOCKS" from the SVG's <metadata>, sorted.
map_totals() {
	"$XMLLINT" --format "$1" | awk '
		function attr(s, n) {
			if (!match(s, " " n "=\"[^\"]*\""))
				return ""
			return substr(s, RSTART + length(n) + 3, RLENGTH - length(n) - 4)
		}
		/<xr:ag / { ag = attr($0, "agno") }
		/<xr:class / { print ag, attr($0, "id"), attr($0, "blocks") }' | sort
}

# html_totals FILE: the same from the HTML page's totals table.
html_totals() {
	"$XMLLINT" --format "$1" | awk '
		function attr(s, n) {
			if (!match(s, " " n "=\"[^\"]*\""))
				return ""
			return substr(s, RSTART + length(n) + 3, RLENGTH - length(n) - 4)
		}
		/<tr data-class=/ { cls = attr($0, "data-class") }
		/<td data-ag=/ { print attr($0, "data-ag"), cls, attr($0, "data-blocks") }' | sort
}

# fsmap_totals IMG FSMAP: "AG CLASS BLOCKS" (nonzero) from fsmap lines in
# xfs_db's format, special owners by number, inodes by their mode.
fsmap_totals() {
	awk '$6 !~ /^-/ && $10 == 0 && $12 == 0 { print $6 }' "$2" | sort -un > "$TMPD/inos"
	awk '{ print "inode " $1; print "print core.mode" }' "$TMPD/inos" |
		"$XFS_DB" -r "$1" | sed -n 's/^core.mode = //p' > "$TMPD/modes"
	if [ "$(wc -l < "$TMPD/inos")" -ne "$(wc -l < "$TMPD/modes")" ]; then
		echo "xfs_db printed $(wc -l < "$TMPD/modes") modes for $(wc -l < "$TMPD/inos") inodes" >&2
		return 1
	fi
	paste -d ' ' "$TMPD/inos" "$TMPD/modes" | awk '
		NR == FNR { mode[$1] = $2; next }
		{
			split($2, a, "/"); o = $6
			if (o == -3) c = "fs"; else if (o == -4) c = "log"
			else if (o == -5) c = "agspace"; else if (o == -6) c = "inobt"
			else if (o == -7) c = "inodes"; else if (o == -8) c = "refcbt"
			else if (o == -9) c = "cow"; else if (o < 0) c = "other"
			else if ($10 == 1) c = "bmbt"; else if ($12 == 1) c = "xattr"
			else if (mode[o] ~ /^010/) c = "data"; else if (mode[o] ~ /^04/) c = "dir"
			else if (mode[o] ~ /^012/) c = "symlink"; else c = "inode-other"
			sum[a[1] " " c] += $4
		}
		END { for (k in sum) print k, sum[k] }' - "$2" | sort
}

# check_image NAME IMG: the clean-image checks above.
check_image() {
	name=$1 img=$2
	if ! "$XFSRECON" map "$img" -o "$TMPD/$name.svg" 2> "$TMPD/map.err"; then
		bad "$name: map failed: $(head -n 3 "$TMPD/map.err")"
		return
	fi
	if ! "$XMLLINT" --noout "$TMPD/$name.svg" 2> "$TMPD/lint.err"; then
		bad "$name: the SVG is not well-formed: $(head -n 3 "$TMPD/lint.err")"
		return
	fi
	root=$("$XMLLINT" --xpath 'concat(namespace-uri(/*), " ", local-name(/*))' "$TMPD/$name.svg")
	[ "$root" = "http://www.w3.org/2000/svg svg" ] ||
		bad "$name: the root is not an svg element in the SVG namespace: $root"

	map_totals "$TMPD/$name.svg" > "$TMPD/map.tot"
	[ -s "$TMPD/map.tot" ] || { bad "$name: no totals in the SVG"; return; }
	if "$XFS_DB" -r -c fsmap "$img" 2>&1 | grep -q 'does not support reverse mapping'; then
		src="xfsrecon fsmap --xfs-db"
		"$XFSRECON" fsmap --xfs-db "$img" > "$TMPD/fsmap" 2>&1 ||
			{ bad "$name: fsmap failed"; return; }
	else
		src="xfs_db fsmap"
		"$XFS_DB" -r -c fsmap "$img" > "$TMPD/fsmap" 2>&1
	fi
	fsmap_totals "$img" "$TMPD/fsmap" > "$TMPD/fsmap.tot" ||
		{ bad "$name: cannot class the fsmap owners"; return; }
	awk '$2 != "free" && $2 != "unaccounted" && $3 != 0' "$TMPD/map.tot" > "$TMPD/map.own"
	if ! cmp -s "$TMPD/fsmap.tot" "$TMPD/map.own"; then
		bad "$name: map totals (>) differ from $src by class (<):"
		diff "$TMPD/fsmap.tot" "$TMPD/map.own" | sed -n '1,12p' >> "$report"
	fi
	classes=$(awk '{ print $2 }' "$TMPD/map.own" | sort -u | wc -l)
	[ "$classes" -ge 5 ] || bad "$name: only $classes owner classes drawn"

	agcount=$("$XFS_DB" -r -c 'sb 0' -c 'p agcount' "$img" | sed -n 's/^agcount = //p')
	ag=0
	while [ "$ag" -lt "$agcount" ]; do
		free=$("$XFS_DB" -r -c "agf $ag" -c 'p freeblks' "$img" | sed -n 's/^freeblks = //p')
		ours=$(awk -v ag="$ag" '$1 == ag && $2 == "free" { print $3 }' "$TMPD/map.tot")
		[ "$ours" = "$free" ] || bad "$name AG $ag: map free $ours, AGF freeblks $free"
		ag=$((ag + 1))
	done
	unacc=$(awk '$2 == "unaccounted" { n += $3 } END { print n + 0 }' "$TMPD/map.tot")
	[ "$unacc" -eq 0 ] || bad "$name: $unacc blocks unaccounted on a clean image"
	marks=$(grep -c 'class="mark"' "$TMPD/$name.svg")
	[ "$marks" -eq 0 ] || bad "$name: $marks damage marks on a clean image"

	# The HTML page: well-formed, the SVG inside, the same totals in its table.
	if ! "$XFSRECON" map "$img" --html -o "$TMPD/$name.html" 2> "$TMPD/map.err"; then
		bad "$name: map --html failed: $(head -n 3 "$TMPD/map.err")"
	elif ! "$XMLLINT" --noout "$TMPD/$name.html" 2> "$TMPD/lint.err"; then
		bad "$name: the HTML page is not well-formed: $(head -n 3 "$TMPD/lint.err")"
	else
		grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$TMPD/$name.html" ||
			bad "$name: no SVG in the HTML page"
		html_totals "$TMPD/$name.html" > "$TMPD/html.tot"
		cmp -s "$TMPD/map.tot" "$TMPD/html.tot" ||
			bad "$name: the HTML tables and the SVG totals differ"
	fi

	# One AG alone: the last one, with the same totals.
	last=$((agcount - 1))
	if "$XFSRECON" map "$img" --ag "$last" -o "$TMPD/$name.ag.svg" 2> "$TMPD/map.err"; then
		map_totals "$TMPD/$name.ag.svg" > "$TMPD/ag.tot"
		awk -v ag="$last" '$1 == ag' "$TMPD/map.tot" > "$TMPD/ag.want"
		cmp -s "$TMPD/ag.want" "$TMPD/ag.tot" || bad "$name: --ag $last totals differ"
	else
		bad "$name: map --ag $last failed"
	fi
}

for name in $(corpus_names); do
	img=$(corpus_image "$name")
	check_image "$name" "$img"
	[ "$name" = v5-normap ] || [ "$name" = v5-rmap-reflink ] || rm -f "$img"
done

# --- the same image gives the same bytes
img=$(corpus_image v5-normap)
"$XFSRECON" map "$img" -o "$TMPD/again.svg" &&
	cmp -s "$TMPD/v5-normap.svg" "$TMPD/again.svg" || bad "two maps of one image differ"

# --- refusals: over the image, over an existing file, a bad AG
sum=$(cksum < "$img")
"$XFSRECON" map "$img" -o "$img" --force 2> /dev/null
rc=$?
[ $rc -eq 16 ] || bad "map over the image: exit $rc, expected 16"
[ "$(cksum < "$img")" = "$sum" ] || fail "map wrote over the image"
echo keep > "$TMPD/exists.svg"
"$XFSRECON" map "$img" -o "$TMPD/exists.svg" 2> /dev/null
rc=$?
[ $rc -eq 16 ] && [ "$(cat "$TMPD/exists.svg")" = keep ] ||
	bad "map over an existing file without --force: exit $rc"
"$XFSRECON" map "$img" -o "$TMPD/exists.svg" --force ||
	bad "map --force over an existing file failed"
"$XFSRECON" map "$img" --ag 4096 -o "$TMPD/badag.svg" 2> /dev/null
rc=$?
[ $rc -eq 16 ] || bad "map --ag 4096: exit $rc, expected 16"

# --- a double claim: /home/user/notes.txt's extent moved onto its own inode's block
dc="$TMPD/double.img"
cp --sparse=always "$img" "$dc"
ino=$("$XFS_DB" -r -c 'path /home/user/notes.txt' -c 'p v3.inumber' "$dc" |
	sed -n 's/^v3.inumber = //p')
fsb=$("$XFS_DB" -r -c "convert ino $ino fsblock" "$dc" | sed -n 's/.*(\([0-9]*\)).*/\1/p')
agbno=$("$XFS_DB" -r -c "convert ino $ino agblock" "$dc" | sed -n 's/.*(\([0-9]*\)).*/\1/p')
agno=$("$XFS_DB" -r -c "convert ino $ino agnumber" "$dc" | sed -n 's/.*(\([0-9]*\)).*/\1/p')
[ -n "$fsb" ] && [ -n "$agbno" ] && [ -n "$agno" ] || fail "cannot locate the inode of notes.txt"
"$XFS_DB" -x -c 'path /home/user/notes.txt' -c "write u3.bmx[0].startblock $fsb" "$dc" > /dev/null
if command -v "$XFS_REPAIR" > /dev/null 2>&1; then
	"$XFS_REPAIR" -n "$dc" > /dev/null 2>&1 && bad "xfs_repair -n finds the double claim clean"
fi
if "$XFSRECON" map "$dc" -o "$TMPD/double.svg" 2> "$TMPD/map.err"; then
	"$XMLLINT" --noout "$TMPD/double.svg" || bad "double claim: the SVG is not well-formed"
	disp=$("$XMLLINT" --format "$TMPD/double.svg" |
		sed -n "s/.*<xr:ag agno=\"$agno\".* disputed-blocks=\"\([0-9]*\)\".*/\1/p")
	[ "${disp:-0}" -gt 0 ] || bad "double claim: AG $agno has no disputed blocks"
	# A marked cell covers the inode's block, names both owners and the claim.
	awk -v ag="$agno" -v b="$agbno" '
		/<g class="mark">/ { inmark = 1; next }
		inmark && /<title>AG / {
			split($0, w, " "); split(w[4], r, "-")
			hit = w[2] == ag && r[1] + 0 <= b && b <= r[2] + 0
		}
		inmark && hit && /INODES/ { inodes = 1 }
		inmark && hit && /claimed twice/ { twice = 1 }
		/<\/title>/ { inmark = 0; hit = 0 }
		END { exit !(inodes && twice) }' "$TMPD/double.svg" ||
		bad "double claim: no marked cell at AG $agno block $agbno naming INODES and the claim"
else
	bad "double claim: map failed: $(head -n 3 "$TMPD/map.err")"
fi

# --- an rmapbt record with a wrong owner: marked with the check's finding
img=$(corpus_image v5-rmap-reflink)
rm_img="$TMPD/rmap.img"
cp --sparse=always "$img" "$rm_img"
rec=$("$XFS_DB" -r -c 'agf 0' -c 'addr rmaproot' -c 'p level' -c 'p recs' "$rm_img" |
	awk '/^level = / { lvl = $3 } lvl == 0 && /^[0-9]+:\[/ {
		split(substr($0, index($0, "[") + 1), f, ",")
		if (f[3] + 0 > 0 && f[6] + 0 == 0 && f[7] + 0 == 0) { sub(":.*", ""); print $0, f[1]; exit } }')
set -- $rec
[ $# -eq 2 ] || fail "no inode record in AG 0's rmapbt root leaf"
"$XFS_DB" -x -c 'agf 0' -c 'addr rmaproot' -c "write recs[$1].owner 99999" "$rm_img" > /dev/null
"$XFSRECON" check "$rm_img" > "$TMPD/check.out"
ids=$(report_ids "$TMPD/check.out" | grep '^rmap')
[ -n "$ids" ] || bad "rmap owner: the check reports no rmap finding"
if "$XFSRECON" map "$rm_img" -o "$TMPD/rmap.svg" 2> "$TMPD/map.err"; then
	for id in $ids; do
		grep -A 3 '<g class="mark">' "$TMPD/rmap.svg" | grep -q "$id" ||
			bad "rmap owner: no mark names $id"
	done
	grep -A 3 '<g class="mark">' "$TMPD/rmap.svg" | grep -q "AG 0 blocks" ||
		bad "rmap owner: no mark in AG 0"
else
	bad "rmap owner: map failed: $(head -n 3 "$TMPD/map.err")"
fi

# --- a browser renders it (Chromium only where installed)
for c in chromium chromium-browser google-chrome; do
	command -v "$c" > /dev/null 2>&1 || continue
	"$c" --headless --no-sandbox --disable-gpu --screenshot="$TMPD/map.png" \
		--window-size=1100,1000 "file://$TMPD/v5-normap.svg" > /dev/null 2>&1
	size=$(wc -c < "$TMPD/map.png" 2> /dev/null || echo 0)
	[ "$size" -gt 10000 ] || bad "$c rendered no picture (PNG of $size bytes)"
	break
done

echo "map: $nfail failures"
if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
