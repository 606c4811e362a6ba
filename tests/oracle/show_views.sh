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
#     and the hash printed for each component is `xfs_db hash`'s; in
#     --json, each component's lookup entry names the component, the
#     directory it was looked up in, the form, the hash and the inode found
#     (all as xfs_db has them), and its node and leaf steps name the
#     nbtree, lents and bleaf entries xfs_db prints at those blocks;
#   - attr: every attr block `show attr` prints (leaf, node, remote value)
#     holds every field and array element of `xfs_db -c 'ablock K' -c 'type
#     attr3' -c p`, and a shortform list the a.sfattr fields of the inode;
#   - block: attr leaf, remote value, remote symlink and directory data
#     blocks found by their magic, and a DA node (generic, or --as attr3)
#     agree with xfs_db under `type attr3`, `dir3` and `symlink`; a directory
#     data block of a clean image passes every check; the value bytes of a
#     remote block in --json agree with their hex;
#   - a damaged attr leaf entry (hash) and shortform entry (two namespaces)
#     show their failed checks under that entry, in text and JSON;
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

# split_structs FILE PATTERN: like split_blocks, but only a structure's
# header line ("# TYPE: ...") ends a block, so notes inside one are kept
split_structs() {
	awk -v pat="$2" -v base="$1" '
		/^# [a-z0-9 ]+: / { out = ""; if ($0 ~ pat) { n = $0; sub(pat, "", n); sub(/[^0-9].*/, "", n); out = base "." n; print n > (base ".list") }; next }
		out != "" { print > out }' "$1"
}

# dbino IMG PATH: the inode xfs_db finds at PATH (empty if none)
dbino() {
	"$XFS_DB" -r -c "path $2" -c inode "$1" 2>/dev/null |
		sed -n 's/^current inode number is \([0-9]*\)$/\1/p'
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

	# --- attr: every attr block against xfs_db's ablock, shortform lists against the inode
	for p in /attrs/short /attrs/leaf /attrs/node /attrs/remote /attrs/dir /home/user/notes.txt; do
		ino=$(dbino "$img" "$p")
		[ -n "$ino" ] || continue
		"$XFSRECON" show "$img" attr "$p" > "$TMPD/attr.out" 2> "$TMPD/attr.err" ||
			{ bad "$name: show attr $p failed: $(head -n 1 "$TMPD/attr.err")"; continue; }
		if grep -q '^# shortform attributes' "$TMPD/attr.out"; then
			"$XFS_DB" -r -c "inode $ino" -c p "$img" | grep '^a\.sfattr' > "$TMPD/x"
			same "$name: attr $p (shortform)" "$TMPD/x" "$TMPD/attr.out"
			continue
		fi
		rm -f "$TMPD/attr.out".*
		split_structs "$TMPD/attr.out" '^# attr [a-z ]+: inode [0-9]+, attr block '
		[ -s "$TMPD/attr.out.list" ] || { bad "$name: show attr $p shows no block"; continue; }
		nab=0
		for ab in $(cat "$TMPD/attr.out.list"); do
			"$XFS_DB" -r -c "inode $ino" -c "ablock $ab" -c "type attr3" -c p "$img" > "$TMPD/x" 2>&1
			same "$name: attr $p block $ab" "$TMPD/x" "$TMPD/attr.out.$ab"
			nab=$((nab + 1))
			[ $nab -ge 24 ] && break  # the 2000-name fork: two dozen blocks suffice
		done
	done

	# --- block: attr, DA node and symlink blocks found by their magic (or --as)
	# PATH:FORK:ARG:DBTYPE:SHOWN, ARG an attr block number or an --as type
	for spec in /attrs/leaf:a::attr3:attr_leaf /attrs/remote:a:1:attr3:attr_remote_value \
		/attrs/node:a::dir3:da_node /attrs/node:a:attr3:attr3:attr_node \
		/symlinks/long:d::symlink:symlink_block /symlinks/max-1023:d::symlink:symlink_block \
		/big:d::dir3:dir_data; do
		p=${spec%%:*}; rest=${spec#*:}
		fork=${rest%%:*}; rest=${rest#*:}
		arg=${rest%%:*}; rest=${rest#*:}
		dbtype=${rest%%:*}; want=$(echo "${rest#*:}" | tr _ ' ')
		ino=$(dbino "$img" "$p")
		[ -n "$ino" ] || continue
		ab=0; as=""
		case "$arg" in [0-9]*) ab=$arg ;; ?*) as="--as $arg" ;; esac
		# (bmap with a length loops in some xfs_db versions: map the whole fork)
		blk=$("$XFS_DB" -r -c "inode $ino" -c "bmap -$fork" "$img" 2>/dev/null |
			awk -v b="$ab" '$2 == "offset" && b >= $3 && b < $3 + $8 {
				split(substr($6, 2, length($6) - 2), a, "/"); print a[1] "/" a[2] + b - $3; exit }')
		[ -n "$blk" ] || { bad "$name: xfs_db bmap of $p gives no block"; continue; }
		# shellcheck disable=SC2086
		"$XFSRECON" show "$img" $as block "$blk" > "$TMPD/blk.out" 2>&1 ||
			{ bad "$name: show block $blk ($p) failed: $(head -n 1 "$TMPD/blk.out")"; continue; }
		head -n 1 "$TMPD/blk.out" | grep -q "^# $want: block $blk," ||
			bad "$name: show $as block $blk ($p) is not shown as $want: $(head -n 1 "$TMPD/blk.out")"
		# xfs_db reads a symlink block whole only through its inode
		if [ "$fork" = d ]; then
			"$XFS_DB" -r -c "inode $ino" -c "dblock 0" -c "type $dbtype" -c p "$img" > "$TMPD/x" 2>&1
		else
			"$XFS_DB" -r -c "inode $ino" -c "ablock $ab" -c "type $dbtype" -c p "$img" > "$TMPD/x" 2>&1
		fi
		same "$name: block $blk ($p, $want)" "$TMPD/x" "$TMPD/blk.out" "$OPT_DIR"
		# a directory block of a clean image, shown alone, is judged sound
		# (its owner is the one its own header names)
		if [ "$want" = "dir data" ]; then
			tail -n 1 "$TMPD/blk.out" | grep -q '^# verifier: every check passed' ||
				bad "$name: show block $blk ($p): a sound directory block fails: $(grep 'check failed' "$TMPD/blk.out" | head -n 2)"
		fi
		[ "$want" = "attr remote value" ] || continue
		"$XFSRECON" show --json "$img" block "$blk" > "$TMPD/j.json" ||
			{ bad "$name: show --json block $blk failed"; continue; }
		python3 - "$TMPD/j.json" <<'EOF' || bad "$name: show --json block $blk ($p): value bytes and hex disagree"
import json, sys
st = json.load(open(sys.argv[1]))["structures"][0]
data = [c for c in st["content"] if c["kind"] == "data"]
assert len(data) == 1 and data[0]["size"] > 0, data
assert bytes.fromhex(data[0]["hex"]) == data[0]["value"].encode("latin-1")
assert data[0]["verdict"] == "ok" and st["verified"] and not st["problems"], st["problems"]
EOF
		ncmp=$((ncmp + 1))
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

	# --- path --json: the lookup entries and their steps against xfs_db
	rootino=$(dbfield "$img" "sb 0" rootino)
	for d in short block leaf node; do
		dino=$(dbino "$img" "/dirs/$d")
		[ -n "$dino" ] || continue
		# xfs_db ls: "DIROFF INODE TYPE HASH NAMELEN NAME (good)"; the first entry not . or ..
		ent=$("$XFS_DB" -r -c "ls /dirs/$d" "$img" 2>/dev/null |
			awk 'NF == 7 && $6 !~ /^\.\.?$/ { print $6; exit }')
		want=$(dbino "$img" "/dirs/$d/$ent")
		[ -n "$want" ] || { bad "$name: no entry of /dirs/$d found with xfs_db ls"; continue; }
		"$XFSRECON" show --json "$img" path "/dirs/$d/$ent" > "$TMPD/p.json" ||
			{ bad "$name: show --json path /dirs/$d/$ent failed"; continue; }
		hash=$(printf '%d' "$("$XFS_DB" -r -c "hash $ent" "$img" | awk '{print $NF}')")
		python3 - "$TMPD/p.json" "$rootino $(dbino "$img" /dirs) $dino" "dirs $d $ent" \
			"$want" "$hash" "$d" > "$TMPD/p.chk" 2> "$TMPD/p.err" <<'EOF' ||
import json, sys
doc = json.load(open(sys.argv[1]))
dirs = [int(x) for x in sys.argv[2].split()]
comps, want, hash, form = sys.argv[3].split(), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
look = [c for st in doc["structures"] for c in st["content"] if c["kind"] == "lookup"]
assert len(look) == 3, "%d lookup entries" % len(look)
for k, (lk, comp, d) in enumerate(zip(look, comps, dirs)):
    assert lk["position"] == k + 1 and lk["component"] == comp, lk
    assert lk["directory"] == d, (lk["directory"], d)
    assert lk["resolved_by"] == "index" and lk["found"], lk
    if k + 1 < len(dirs):
        assert lk["found"]["inode"] == dirs[k + 1], lk["found"]
    assert lk["steps"] and all("action" in s and "text" in s for s in lk["steps"])
    assert lk["steps"][0]["action"] == "hash" and lk["steps"][0]["hash"] == lk["hash"]
last = look[-1]
assert last["found"]["inode"] == want, (last["found"], want)
assert last["found"]["name"].encode("latin-1") == comps[-1].encode(), last["found"]
assert last["hash"] == hash, (last["hash"], hash)
assert last["form"] == ("shortform" if form == "short" else form), last["form"]
match = [s for s in last["steps"] if s["action"] == "entry" and s["result"] == "match"]
assert len(match) == 1, match
# the index entries each step read, for the caller to look up with xfs_db
block = 0
for s in last["steps"]:
    if s["action"] in ("leaf", "node"):
        block = s["block"]
    if s["action"] == "node":
        print("%d nbtree[%d] x%x x%x" % (block, s["index"], s["hashval"], s["child"]))
    if s["action"] == "entry" and s["array"] in ("lents", "bleaf"):
        print("%d %s[%d] x%x x%x" % (block, s["array"], s["index"], hash, s["address"]))
EOF
			{ bad "$name: show --json path /dirs/$d/$ent: $(tail -n 1 "$TMPD/p.err")"; continue; }
		ncmp=$((ncmp + 1))
		[ "$d" = short ] || [ -s "$TMPD/p.chk" ] ||
			bad "$name: show --json path /dirs/$d/$ent: no index step names an entry"
		while read -r blk elem v1 v2; do
			"$XFS_DB" -r -c "inode $dino" -c "dblock $blk" -c "p $elem" "$img" |
				awk -f "$NORM" > "$TMPD/x"
			f2=address
			case "$elem" in nbtree*) f2=before ;; esac
			# canonical values (normalize.awk): "x" and lower-case hex
			x1=$(awk -F '\t' -v n="$elem.hashval" '$2 == n { print $3 }' "$TMPD/x")
			x2=$(awk -F '\t' -v n="$elem.$f2" '$2 == n { print $3 }' "$TMPD/x")
			if [ "$x1" != "$v1" ] || [ "$x2" != "$v2" ]; then
				bad "$name: path /dirs/$d/$ent: $elem of fork block $blk: steps say $v1 $v2, xfs_db $x1 $x2"
			fi
			ncmp=$((ncmp + 1))
		done < "$TMPD/p.chk"
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
		"btree 0 bnobt" "btree 0 inobt" "dir /" "path /" "log" "dir /names" "attr /attrs/remote" \
		"attr /attrs/short"; do
		# hostile names (bytes that are not UTF-8, quotes, controls) where the image has them
		case "$what" in
		"dir /names"|attr*) [ -n "$(dbino "$img" "${what#* }")" ] || continue ;;
		esac
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
	# --- a failed check lands on its attr entry (xfs_db -x writes; the copy goes next)
	lino=$(dbino "$img" /attrs/leaf)
	sino=$(dbino "$img" /attrs/short)
	if [ -n "$lino" ] && [ -n "$sino" ]; then
		"$XFS_DB" -x -c "inode $lino" -c "ablock 0" -c "type attr3" \
			-c "write -d entries[3].hashval 0x1" "$img" > /dev/null 2>&1 &&
		"$XFS_DB" -x -c "inode $sino" -c "write -d a.sfattr.list[1].root 1" \
			-c "write -d a.sfattr.list[1].secure 1" "$img" > /dev/null 2>&1 ||
			fail "xfs_db -x cannot write the attr forks"
		"$XFSRECON" show "$img" attr /attrs/leaf | grep -A1 '^entries\[3\] = hashval 0x1 ' |
			grep -q '^#   ^ entries\[3\]: check failed: attrLeafHashOrder' ||
			bad "$name: damaged attr leaf: no failed check under entries[3]"
		"$XFSRECON" show --json "$img" attr /attrs/leaf > "$TMPD/a.json" &&
		"$XFSRECON" show --json "$img" attr /attrs/short > "$TMPD/s.json" &&
		python3 - "$TMPD/a.json" "$TMPD/s.json" <<'EOF' ||
import json, sys
def items(path, array):
    doc = json.load(open(path))
    return {c["index"]: c for st in doc["structures"] for c in st["content"]
            if c["kind"] == "item" and c["array"] == array}
e = items(sys.argv[1], "entries")
ids = [p["id"] for p in e[3].get("problems", [])]
assert e[3]["verdict"] == "failed" and "attrBadHash" in ids, e[3]
assert all(e[i]["verdict"] == "ok" for i in e if i != 3)
s = items(sys.argv[2], "a.sfattr.list")
assert s[1]["verdict"] == "failed", s[1]
assert "attrMultipleNs" in [p["id"] for p in s[1]["problems"]], s[1]
assert s[0]["verdict"] == "ok", s[0]
EOF
			bad "$name: damaged attr forks: the failed checks are not on their entries"
		ncmp=$((ncmp + 2))
	fi

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
