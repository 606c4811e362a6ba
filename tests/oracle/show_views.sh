#!/bin/sh
# tests/oracle/show_views.sh - the teaching views of `xfsrecon show` against
# xfs_db, xfs_logprint and python's JSON parser, on every corpus image:
#
#   - dir: every directory block `show dir` prints (data, block, leaf, node,
#     free) holds every field and array element `xfs_db -c 'dblock DA' -c p`
#     prints for the same fork block, with the same values; a shortform
#     directory the same for the fork fields of `xfs_db -c 'inode N' -c p`;
#   - btree AG TREE: every block of each two-level tree is shown and agrees
#     with `xfs_db -c 'fsblock B' -c 'type T' -c p` (records, keys, pointers);
#   - path: the inode each path resolves to is the one `xfs_db path` gives,
#     and the hash printed for each component is `xfs_db hash`'s;
#   - log: the record headers walked are the ones `xfs_logprint -d` lists
#     (block, cycle, length, ops), when xfs_logprint is installed;
#   - --json: every view parses with `python3 -m json.tool`, its field values
#     agree with xfs_db like the text, and on a clean image every verdict is
#     "ok"; after `xfs_db -x` writes a bad bnoroot into a copy, that field's
#     verdict is "failed" with agfBadRoot.
#
# Only reads the committed images (and a scratch copy): no root needed.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool python3
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_DB"
TZ=UTC
export TZ

here="$top_srcdir/tests/oracle"
NORM="$here/normalize.awk"
CMP="$here/compare.awk"
nfail=0
ncmp=0
report="$TMPD/report"
: > "$report"

bad() {
	echo "$*" >> "$report"
	nfail=$((nfail + 1))
}

# dbfield IMG CMD... FIELD: one scalar of an xfs_db print
dbfield() {
	_img=$1
	shift
	_n=$#
	_f=$(eval "printf '%s' \"\${$_n}\"")
	_args=""
	_i=1
	for _c in "$@"; do
		[ $_i -lt $_n ] && _args="$_args -c '$_c'"
		_i=$((_i + 1))
	done
	eval "\"\$XFS_DB\" -r $_args -c p \"\$_img\"" 2>/dev/null | awk -f "$NORM" |
		awk -F '\t' -v f="$_f" '$2 == f { print $4; exit }'
}

# same NAME XDB-OUTPUT OURS-OUTPUT [OPTIONAL]: strict field comparison
same() {
	ncmp=$((ncmp + 1))
	awk -f "$NORM" "$2" > "$2.n"
	awk -f "$NORM" "$3" > "$3.n"
	if ! grep -q . "$2.n"; then
		bad "$1: xfs_db printed nothing"
	elif ! awk -f "$CMP" -v strict=1 -v optional="${4:-}" "$2.n" "$3.n" > "$TMPD/diff"; then
		bad "$1:"
		cat "$TMPD/diff" >> "$report"
	fi
}

# split_blocks FILE PATTERN: one file FILE.N per structure whose header
# line matches PATTERN, named by the number the header's sed extracts
split_blocks() {
	awk -v pat="$2" -v base="$1" '
		/^# / { out = ""; if ($0 ~ pat) { n = $0; sub(pat, "", n); sub(/[^0-9].*/, "", n); out = base "." n; print n > (base ".list") }; next }
		out != "" { print > out }' "$1"
}

# Fields xfs_db prints for unused directory regions that are not fields.
OPT_DIR='^(bu|du)\[[0-9]+\]\.filetype$'

for name in $(corpus_names); do
	img=$(corpus_image "$name")

	# --- dir: every block against xfs_db's dblock
	for p in / /dirs/short /dirs/block /dirs/leaf /dirs/node /many /home /etc; do
		ino=$("$XFS_DB" -r -c "path $p" -c inode "$img" 2>/dev/null |
			sed -n 's/^current inode number is \([0-9]*\)$/\1/p')
		[ -n "$ino" ] || continue
		"$XFSRECON" show "$img" dir "$p" > "$TMPD/dir.out" 2> "$TMPD/dir.err" ||
			{ bad "$name: show dir $p failed: $(head -n 1 "$TMPD/dir.err")"; continue; }
		if grep -q '^# shortform directory' "$TMPD/dir.out"; then
			"$XFS_DB" -r -c "inode $ino" -c p "$img" | grep -E '^u3?\.sfdir' > "$TMPD/x"
			same "$name: dir $p (shortform)" "$TMPD/x" "$TMPD/dir.out"
			continue
		fi
		rm -f "$TMPD/dir.out".*
		split_blocks "$TMPD/dir.out" '^# dir [a-z0-9]+: inode [0-9]+, fork block '
		[ -s "$TMPD/dir.out.list" ] || { bad "$name: show dir $p shows no block"; continue; }
		nda=0
		for da in $(cat "$TMPD/dir.out.list"); do
			"$XFS_DB" -r -c "inode $ino" -c "dblock $da" -c p "$img" > "$TMPD/x" 2>&1
			same "$name: dir $p fork block $da" "$TMPD/x" "$TMPD/dir.out.$da" "$OPT_DIR"
			nda=$((nda + 1))
			[ $nda -ge 12 ] && break  # a huge directory: a dozen blocks suffice
		done
	done

	# --- btree AG TREE: each two-level tree in full
	agcount=$(dbfield "$img" "sb 0" agcount)
	agblklog=$(dbfield "$img" "sb 0" agblklog)
	ag=0
	while [ "$ag" -lt "$agcount" ]; do
		for spec in agf:bnolevel:bnobt:bnobt agf:cntlevel:cntbt:cntbt agf:rmaplevel:rmapbt:rmapbt \
			agf:refcntlevel:refcountbt:refcntbt agi:level:inobt:inobt agi:free_level:finobt:finobt; do
			hdr=${spec%%:*}; rest=${spec#*:}
			lvf=${rest%%:*}; rest=${rest#*:}
			tree=${rest%%:*}; dbtype=${rest#*:}
			level=$(dbfield "$img" "$hdr $ag" "$lvf")
			[ "$level" = 2 ] || continue
			"$XFSRECON" show "$img" btree "$ag" "$tree" > "$TMPD/bt.out" ||
				{ bad "$name: show btree $ag $tree failed"; continue; }
			rm -f "$TMPD/bt.out".*
			split_blocks "$TMPD/bt.out" '^# [a-z]+ block: AG [0-9]+ block '
			nblk=$(wc -l < "$TMPD/bt.out.list")
			nptr=$(grep -c '^ptrs\[' "$TMPD/bt.out")
			[ "$nblk" -eq $((nptr + 1)) ] ||
				bad "$name: btree $ag $tree: $nblk blocks shown, the root has $nptr pointers"
			# the root, the first and the last leaf
			for agbno in $(sed -n '1p;2p;$p' "$TMPD/bt.out.list" | sort -u); do
				fsb=$(( (ag << agblklog) + agbno ))
				"$XFS_DB" -r -c "fsblock $fsb" -c "type $dbtype" -c p "$img" > "$TMPD/x" 2>&1
				same "$name: btree $ag $tree block $agbno" "$TMPD/x" "$TMPD/bt.out.$agbno"
			done
		done
		ag=$((ag + 1))
	done

	# --- path: the inode and every component's hash
	for p in /dirs/leaf /dirs/node /etc/motd /home/user/notes.txt /many/extents; do
		want=$("$XFS_DB" -r -c "path $p" -c inode "$img" 2>/dev/null |
			sed -n 's/^current inode number is \([0-9]*\)$/\1/p')
		[ -n "$want" ] || continue
		"$XFSRECON" show "$img" path "$p" > "$TMPD/path.out" 2>&1 ||
			{ bad "$name: show path $p failed: $(head -n 1 "$TMPD/path.out")"; continue; }
		got=$(sed -n 's/^# resolved: inode \([0-9]*\)$/\1/p' "$TMPD/path.out")
		[ "$got" = "$want" ] || bad "$name: show path $p resolves to '$got', xfs_db to $want"
		ncmp=$((ncmp + 1))
		sed -n 's/^# hash of "\([^"]*\)": \(0x[0-9a-f]*\).*/\1 \2/p' "$TMPD/path.out" |
		while read -r comp h; do
			dbh=$("$XFS_DB" -r -c "hash $comp" "$img" | awk '{print $NF}')
			[ "$(printf '%d' "$dbh")" = "$(printf '%d' "$h")" ] ||
				echo "$name: path $p: hash of $comp is $h, xfs_db says $dbh"
		done >> "$TMPD/hashbad"
	done

	# --- log: record headers against xfs_logprint
	"$XFSRECON" show "$img" log > "$TMPD/log.out" || bad "$name: show log failed"
	if command -v xfs_logprint >/dev/null 2>&1; then
		awk '/^# log record: log block/ { b = $6; sub(/,/, "", b) }
			/^cycle = / { c = $3 } /^len = / { l = $3 }
			/^num_logops = / { print b, c, l, $3 }' "$TMPD/log.out" > "$TMPD/log.ours"
		xfs_logprint -d "$img" 2>/dev/null |
			awk '$2 == "HEADER" { print $1, $4, $8, $10 }' > "$TMPD/log.want"
		[ -s "$TMPD/log.ours" ] || bad "$name: show log walked no record"
		# xfs_logprint goes on past the head into older cycles: compare our prefix
		head -n "$(wc -l < "$TMPD/log.ours")" "$TMPD/log.want" > "$TMPD/log.wantp"
		diff "$TMPD/log.wantp" "$TMPD/log.ours" > "$TMPD/diff" ||
			bad "$name: log records differ from xfs_logprint -d: $(head -5 "$TMPD/diff")"
		ncmp=$((ncmp + 1))
	fi

	# --- JSON: parses; values as xfs_db; clean verdicts
	rootino=$(dbfield "$img" "sb 0" rootino)
	for what in "sb" "sb 1" "agf 0" "agi 0" "agfl 0" "inode $rootino" "block 0/0" \
		"btree 0 bnobt" "btree 0 inobt" "dir /" "path /" "log" "dir /names"; do
		# hostile names (bytes that are not UTF-8, quotes, controls) where the image has them
		[ "$what" = "dir /names" ] && ! "$XFS_DB" -r -c "path /names" -c inode "$img" 2>/dev/null |
			grep -q '^current inode number' && continue
		# shellcheck disable=SC2086
		"$XFSRECON" show --json "$img" $what > "$TMPD/j.json" ||
			{ bad "$name: show --json $what failed"; continue; }
		python3 -m json.tool "$TMPD/j.json" > /dev/null 2> "$TMPD/j.err" ||
			{ bad "$name: show --json $what is not JSON: $(head -n 1 "$TMPD/j.err")"; continue; }
		python3 - "$TMPD/j.json" > "$TMPD/j.txt" 2> "$TMPD/j.err" <<'EOF' ||
import json, sys
doc = json.load(open(sys.argv[1]))
for st in doc["structures"]:
    for c in st["content"]:
        if c["kind"] == "field":
            print("%s = %s" % (c["name"], c["value"]))
            if c["verdict"] == "failed" and st["type"] != "log record":
                print("VERDICT failed %s %s" % (st["type"], c["name"]), file=sys.stderr)
                sys.exit(1)
EOF
			bad "$name: show --json $what: $(head -n 2 "$TMPD/j.err")"
		case "$what" in
		"agf 0"|"agi 0"|"inode $rootino")
			"$XFS_DB" -r -c "$what" -c p "$img" > "$TMPD/x"
			ncmp=$((ncmp + 1))
			awk -f "$NORM" "$TMPD/x" > "$TMPD/x.n"
			awk -f "$NORM" "$TMPD/j.txt" > "$TMPD/j.n"
			awk -f "$CMP" -v optional='^(u|u3|a)(\.|$)|^unlinked' "$TMPD/x.n" "$TMPD/j.n" > "$TMPD/diff" ||
				{ bad "$name: show --json $what disagrees with xfs_db:"; cat "$TMPD/diff" >> "$report"; }
			;;
		esac
	done
	rm -f "$img"
done
if [ -s "$TMPD/hashbad" ]; then
	cat "$TMPD/hashbad" >> "$report"
	nfail=$((nfail + $(wc -l < "$TMPD/hashbad")))
fi

# --- a failed check shows at its field: a bnoroot outside the AG
img=$(corpus_image v5-normap)
"$XFS_DB" -x -c "agf 1" -c "write -d bnoroot 4000000" "$img" > /dev/null 2>&1 ||
	fail "xfs_db -x cannot write the AGF"
"$XFSRECON" show --json "$img" agf 1 > "$TMPD/c.json" || fail "show --json agf 1 failed on the damaged copy"
python3 - "$TMPD/c.json" <<'EOF' || bad "damaged AGF: bnoroot's verdict is not agfBadRoot"
import json, sys
st = json.load(open(sys.argv[1]))["structures"][0]
f = [c for c in st["content"] if c["kind"] == "field" and c["name"] == "bnoroot"][0]
ok = [c for c in st["content"] if c["kind"] == "field" and c["name"] == "cntroot"][0]
assert f["value"] == "4000000", f
assert f["verdict"] == "failed", f
assert "agfBadRoot" in [p["id"] for p in f["problems"]], f
assert ok["verdict"] == "ok", ok
EOF
"$XFSRECON" show "$img" agf 1 | grep -A1 '^bnoroot = 4000000$' | grep -q 'check failed: agfBadRoot' ||
	bad "damaged AGF: the text shows no failed check under bnoroot"
ncmp=$((ncmp + 1))
rm -f "$img"

echo "compared $ncmp views, $nfail disagree"
if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
