#!/bin/sh
# region-sweep.sh - destroy whole regions of corpus images (the disasters of
# real disks: a wiped start, a lost AG, scattered bad sectors, a truncated
# copy) and judge `xfsrecon repair IMG -o OUT` on each against xfs_repair.
#
# usage: tests/fuzz/region-sweep.sh [OPTIONS]
#   --out DIR            results (default: a new directory under TMPDIR or
#                        /tmp); a second run with the same DIR skips the
#                        cases already judged
#   --images "A B"       corpus images by name (default: v5-rmap-reflink
#                        v5-normap v4 v5-files)
#   --disasters "P.."    only disasters matching one of these shell patterns
#   --add-image FILE     judge FILE too (named by its base name without
#                        .img), e.g. an image with a dirty log made by
#                        corpus/recipes/dirty-log.sh; may be repeated
#   --seed S             seed of the seeded disasters (default 1)
#   --timeout S          limit of every command (default 300 s)
#   --summary            print the table of DIR and stop
#
# The disasters (applied to a copy C of a clean image):
#   zero-1m        the first 1 MiB zeroed (a partition tool or a stray dd)
#   zero-64m       the first 64 MiB zeroed
#   root-inode     the root inode zeroed
#   root-dir       the root inode and every block of its directory zeroed
#   ag-meta        one AG's headers and every block of its AG btrees
#                  zeroed: the AG (not 0) with most btree blocks, AG 1 on
#                  a tie
#   truncate-70    the image cut at 70 % of its size (to a block boundary);
#                  xfs_repair, which cannot read a short image at all, gets
#                  it extended back to the filesystem's size with zeros
#   sectors-0.5pct 0.5 % of the sectors of the metadata blocks zeroed,
#                  picked by the seed
#   bitflip-200    one bit flipped in each of 200 metadata blocks (all of
#                  them when there are fewer), blocks and bits by the seed
#   dir-chunk      the inode chunk holding most directory inodes zeroed (the
#                  root's chunk only when no other will do); of those, the
#                  first whose blocks are on disk (a chunk a dirty log
#                  allocated lives only in the log); only the chunk's blocks
#                  that hold inodes (sparse chunks)
#   inobt-half     half of the blocks (rounded up) of every inode btree
#                  (inobt and finobt of every AG) zeroed, picked by the seed
#   log-zero       the log zeroed, on images whose log is dirty (xfs_repair
#                  -n on the clean image warns of changes in the log); on a
#                  clean log the case is skipped (nothing would be lost)
# "Metadata blocks" are those xfs_db's `blockget` + `blockuse` classes as
# anything but file data, free space, the AGFL's free blocks and the log:
# AG headers, every AG btree, inode chunks, directory, attribute and symlink
# blocks (xfs_db 6.1 classes bmbt blocks as none of these, so they are not
# among them).  A seeded pick ranks candidates by an arithmetic hash of the
# seed and the candidate, so every awk picks the same.
#
# Each case:
#   xfs_repair -n C                        is the damage real
#   xfsrecon repair C -o OURS              its exit status (a refusal is a
#                                          failure, with its reason)
#   xfs_repair THEIRS (a copy of C, -L when it asks for the log to be zeroed)
#   on OURS and on THEIRS: xfs_repair -n (clean?), xfsrecon check, a
#   read-only loop mount (where the kernel mounts the clean image at all:
#   not V4), and the clean image's entries (`xfsrecon bodyfile`, every path
#   but /) counted three ways:
#     at-path     the same path exists
#     reachable   at its path, or its inode is in the tree anywhere (with
#                 the same type, and size for a regular file): in
#                 lost+found or wherever a repair linked it
#     below-top   the path with its first component dropped (/a/b/c gives
#                 /b/c) ends some path of the tree, so /a/b/c kept as
#                 /lost+found/123/b/c counts; an entry of the root
#                 directory itself counts when it is reachable (its name
#                 was in the root directory)
# The case passes when OURS exists, xfs_repair -n calls it clean, the kernel
# mounts it (where it mounts the clean image), it keeps at least as many
# entries reachable as THEIRS, and, for zero-1m, at least 90 % of the entries
# whose inode lies past the first MiB (the others' cores are gone) keep their
# path below the top-level directory.
#
# Results: DIR/cases/KEY.res (one TSV line per case, KEY = IMAGE.DISASTER,
# written when the case ends, so an interrupted run resumes),
# DIR/cases/KEY.txt (what the damage was and what every tool said),
# DIR/matrix.tsv (a header line, then every case) and DIR/table.txt (image x
# disaster, ours against xfs_repair's), also printed.  Exits 1 when a case
# fails, 2 on a setup error.  Needs root (loop mounts) and xfsprogs; a case
# takes 1-10 s in a plain build, the whole run minutes: not part of `make check`.
#
# Environment: REGION_KEEP=DIR keeps the damaged copy of every case there
# (DIR/KEY.damaged.img); XFSRECON (default: an ASan+UBSan build, see sweep-lib.sh),
# XFS_DB, XFS_REPAIR.
# The g_ variables (the geometry) are set by eval of geometry's output.
# shellcheck disable=SC2154
set -u
LC_ALL=C
export LC_ALL

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
sweep_srcdir=$srcdir
. "$srcdir/tests/fuzz/sweep-lib.sh"
. "$srcdir/tests/corrupt-lib.sh"
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
export XFS_DB XFS_REPAIR

DISASTERS="zero-1m zero-64m root-inode root-dir ag-meta truncate-70 sectors-0.5pct bitflip-200 dir-chunk inobt-half log-zero"

# ---------------------------------------------------------------- an image
# geometry IMG: the superblock fields the disasters need, as g_NAME=VALUE
# lines for eval.
geometry() {
	"$XFS_DB" -r -c 'sb 0' -c 'p agblocks agblklog agcount blocksize sectsize inodesize inopblog rootino logstart logblocks dblocks' "$1" 2> /dev/null |
		awk '$2 == "=" && $3 ~ /^[0-9]+$/ { print "g_" $1 "=" $3 }'
}

# prepare NAME: what the disasters and the counts need of the clean image,
# once, in DIR/base: NAME.geo, NAME.body (inode, type, size, path of every
# entry), NAME.use ("AG AGBNO TYPE INODE" for every block that is not free
# space or file data), NAME.mounts, NAME.xrn (xfs_repair -n).
prepare() {
	_b=$out/base/$1
	[ -f "$_b.done" ] && return 0
	geometry "$_b.img" > "$_b.geo"
	eval "$(cat "$_b.geo")"
	[ -n "${g_agblocks:-}" ] || { echo "region-sweep.sh: cannot read the geometry of $1" >&2; exit 2; }
	"$XFSRECON" bodyfile "$_b.img" 2> /dev/null | entries > "$_b.body"
	# blockuse walks AG by AG: fsblock numbers are AG << agblklog | agbno
	_cmds="-c blockget"
	_a=0
	while [ $_a -lt "$g_agcount" ]; do
		_n=$g_agblocks
		[ $_a -eq $((g_agcount - 1)) ] && _n=$((g_dblocks - _a * g_agblocks))
		_cmds="$_cmds -c 'fsblock $((_a << g_agblklog))' -c 'blockuse -c $_n'"
		_a=$((_a + 1))
	done
	"$XFS_REPAIR" -n "$_b.img" > "$_b.xrn" 2>&1
	_src=$_b.img
	if grep -q 'metadata changes in a log' "$_b.xrn"; then
		# xfs_db refuses blockget on a dirty log; the blocks in place are
		# the same with the log zeroed
		_src=$out/base/nolog.img
		cp --sparse=always "$_b.img" "$_src"
		_ag=$((g_logstart >> g_agblklog))
		wipe "$_src" $(((_ag * g_agblocks + g_logstart - (_ag << g_agblklog)) * g_blocksize)) \
			$((g_logblocks * g_blocksize)) > /dev/null
	fi
	eval "\"\$XFS_DB\" -r $_cmds \"\$_src\"" 2> /dev/null < /dev/null |
		awk '$1 == "block" && $4 == "type" {
			split(substr($3, 2, length($3) - 2), p, "/")
			t = $5
			if (t ~ /^(data|rldata|free1|free2|freelist|log|unknown)$/) next
			print p[1], p[2], t, ($6 == "inode" ? $7 : "-")
		}' > "$_b.use"
	rm -f "$out/base/nolog.img"
	[ -s "$_b.use" ] || { echo "region-sweep.sh: xfs_db blockuse found no metadata in $1" >&2; exit 2; }
	echo no > "$_b.mounts"
	if mount_ro "$_b.img" "$out/mnt"; then
		umount "$out/mnt" && echo yes > "$_b.mounts"
	fi
	: > "$_b.done"
}

# entries: bodyfile lines to "INODE TYPE SIZE PATH" (tab-separated), / left
# out.  Names are escaped by bodyfile, so a path is one field.
entries() {
	awk -F '|' 'NF >= 11 && $2 != "/" { print $3 "\t" substr($4, 1, 1) "\t" $7 "\t" $2 }'
}

# mount_ro IMG DIR: the kernel mounts IMG read-only (norecovery: a dirty log
# is not replayed into it)
mount_ro() {
	mkdir -p "$2" && timeout 60 mount -o loop,ro,norecovery,nouuid "$1" "$2" < /dev/null > /dev/null 2>&1
}

# ---------------------------------------------------------------- disasters
# Each disaster NAME is a function d_NAME IMG that damages IMG (a copy of
# the clean image whose files are $b.*, geometry in g_*) and prints one line
# saying what it did; exit status 3 means "does not apply here", the line
# then says why.

# zero_blocks IMG: zero the blocks "AG AGBNO" read from standard input.
zero_blocks() {
	_z=0
	while read -r _ag _bno _rest; do
		dd if=/dev/zero of="$1" bs="$g_blocksize" seek=$((_ag * g_agblocks + _bno)) count=1 \
			conv=notrunc 2> /dev/null || return 1
		_z=$((_z + 1))
	done
	echo "$_z"
}

# ranked SALT: the lines of standard input ordered by a hash of the seed,
# SALT and the line (the seeded pick).
ranked() {
	awk -v s="$seed:$1" '
	BEGIN { for (i = 32; i < 127; i++) ord[sprintf("%c", i)] = i }
	function h(t,    x, i) {
		x = 5381
		for (i = 1; i <= length(t); i++)
			x = (x * 33 + ord[substr(t, i, 1)]) % 2147483647
		return x
	}
	{ printf "%010d\t%s\n", h(s ":" $0), $0 }' | sort -k1,1 -k2 | cut -f 2-
}

d_zero_1m() {
	wipe "$1" 0 1048576 > /dev/null && echo "bytes 0-1048575 zeroed"
}

d_zero_64m() {
	wipe "$1" 0 67108864 > /dev/null && echo "bytes 0-67108863 zeroed"
}

d_root_inode() {
	corrupt "$1" "inode $g_rootino;zero" > "$w/db" 2>&1 || { cat "$w/db"; return 1; }
	echo "root inode $g_rootino zeroed"
}

d_root_dir() {
	corrupt "$1" "inode $g_rootino;zero" > "$w/db" 2>&1 || { cat "$w/db"; return 1; }
	_n=$(awk -v r="$g_rootino" '$3 == "dir" && $4 == r' "$b.use" | zero_blocks "$1") || return 1
	echo "root inode $g_rootino and its $_n directory blocks zeroed"
}

d_ag_meta() {
	_ag=$(awk '$1 != 0 && $3 ~ /^bt/ { n[$1]++ } END { best = 1; for (a in n) if (n[a] > n[best] + 0 || (n[a] == n[best] && a + 0 < best)) best = a + 0; print best }' "$b.use")
	[ "$_ag" -lt "$g_agcount" ] || { echo "no AG besides AG 0"; return 3; }
	# the superblock, AGF, AGI and AGFL are the AG's first four sectors
	wipe "$1" $((_ag * g_agblocks * g_blocksize)) $((4 * g_sectsize)) > /dev/null || return 1
	_n=$(awk -v a="$_ag" '$1 == a && $3 ~ /^bt/' "$b.use" | zero_blocks "$1") || return 1
	echo "AG $_ag: headers and $_n btree blocks zeroed"
}

d_truncate_70() {
	_sz=$(wc -c < "$1")
	_to=$((_sz * 7 / 10 / g_blocksize * g_blocksize))
	truncate -s "$_to" "$1" && echo "cut from $_sz to $_to bytes"
}

d_sectors_0_5pct() {
	_spb=$((g_blocksize / g_sectsize))
	awk -v k="$_spb" '{ for (s = 0; s < k; s++) print $1, $2, s }' "$b.use" | ranked sectors > "$w/sectors"
	_all=$(wc -l < "$w/sectors")
	_k=$(((_all * 5 + 999) / 1000))
	head -n "$_k" "$w/sectors" | while read -r _ag _bno _s; do
		dd if=/dev/zero of="$1" bs="$g_sectsize" count=1 conv=notrunc 2> /dev/null \
			seek=$(((_ag * g_agblocks + _bno) * _spb + _s)) || exit 1
	done || return 1
	echo "$_k of $_all metadata sectors zeroed (seed $seed)"
}

d_bitflip_200() {
	awk '{ print $1, $2 }' "$b.use" | ranked bitflip | head -n 200 > "$w/flips"
	_bits=$((g_blocksize * 8))
	_i=0
	while read -r _ag _bno; do
		_i=$((_i + 1))
		# the bit: a hash of the seed and the block, reduced to the block
		_bit=$(printf '%s\n' "$seed:$_ag/$_bno" | cksum | awk -v n="$_bits" '{ print $1 % n }')
		_off=$(((_ag * g_agblocks + _bno) * g_blocksize + _bit / 8))
		_v=$(od -An -tu1 -j "$_off" -N 1 "$1" | tr -d ' ')
		_v=$((_v ^ (1 << (_bit % 8))))
		# shellcheck disable=SC2059
		printf "\\$(printf '%03o' "$_v")" |
			dd of="$1" bs=1 seek="$_off" conv=notrunc 2> /dev/null || return 1
	done < "$w/flips"
	echo "one bit flipped in each of $_i metadata blocks (seed $seed)"
}

d_dir_chunk() {
	# chunks of directory inodes, most directories first: "COUNT AG FIRST-AG-INODE";
	# the root's chunk last
	awk -F '\t' -v ib="$((g_agblklog + g_inopblog))" -v r="$g_rootino" '
		function key(i,    ag, agi) { ag = int(i / 2 ^ ib); agi = i - ag * 2 ^ ib; return ag " " (agi - agi % 64) }
		$2 == "d" { n[key($1)]++ }
		END {
			rk = key(r); n[rk]++
			for (k in n) print (k == rk), n[k], k
		}' "$b.body" | sort -k1,1n -k2,2nr -k3,3n -k4,4n | cut -d ' ' -f 2- > "$w/chunks"
	_ipb=$((1 << g_inopblog))
	# the first whose inode blocks are on disk: a chunk a dirty log
	# allocated exists only in the log, and zeroing its place proves nothing
	while read -r _dirs _ag _agino; do
		_first=$((_agino / _ipb))
		_last=$(((_agino + 63) / _ipb))
		awk -v a="$_ag" -v f="$_first" -v l="$_last" '$1 == a && $2 >= f && $2 <= l && $3 == "inode"' \
			"$b.use" > "$w/chunk.blocks"
		[ -s "$w/chunk.blocks" ] || continue
		_n=$(zero_blocks "$1" < "$w/chunk.blocks") || return 1
		echo "AG $_ag inode chunk at AG inode $_agino ($_dirs directories): $_n blocks zeroed"
		return 0
	done < "$w/chunks"
	echo "no chunk of directory inodes has its inode blocks on disk"
	return 1
}

d_inobt_half() {
	awk '$3 == "btino" || $3 == "btfino"' "$b.use" | ranked inobt > "$w/inobt"
	awk '{ n[$1 " " $3]++; l[NR] = $0; k[NR] = $1 " " $3 }
		END { for (i = 1; i <= NR; i++) if (t[k[i]]++ < int((n[k[i]] + 1) / 2)) print l[i] }' "$w/inobt" > "$w/inobt.z"
	_n=$(zero_blocks "$1" < "$w/inobt.z") || return 1
	echo "$_n of $(wc -l < "$w/inobt") inobt/finobt blocks zeroed (seed $seed)"
}

d_log_zero() {
	grep -q 'metadata changes in a log' "$b.xrn" ||
		{ echo "the log is clean (no dirty-log image of this kind at hand)"; return 3; }
	_ag=$((g_logstart >> g_agblklog))
	_bno=$((g_logstart - (_ag << g_agblklog)))
	wipe "$1" $(((_ag * g_agblocks + _bno) * g_blocksize)) $((g_logblocks * g_blocksize)) > /dev/null || return 1
	echo "the dirty log ($g_logblocks blocks at $_ag/$_bno) zeroed"
}

# ---------------------------------------------------------------- judging
# counts CLEAN TREE: "AT-PATH REACHABLE BELOW-TOP" of CLEAN's entries in
# TREE (both as `entries` writes them).
counts() {
	awk -F '\t' '
	FILENAME == ARGV[1] { n++; ino[n] = $1; ty[n] = $2; sz[n] = $3; p[n] = $4; next }
	{
		at[$4] = 1
		id[$1 "/" $2 "/" ($2 == "r" ? $3 : "")] = 1
		# every ending of the path at a component boundary, the whole too
		s = $4
		while (s != "") {
			end[s] = 1
			i = index(substr(s, 2), "/")
			s = i ? substr(s, i + 1) : ""
		}
	}
	END {
		for (i = 1; i <= n; i++) {
			a = (p[i] in at)
			r = a || ((ino[i] "/" ty[i] "/" (ty[i] == "r" ? sz[i] : "")) in id)
			j = index(substr(p[i], 2), "/")
			bt = j ? (substr(p[i], j + 1) in end) : r
			na += a; nr += r; nb += bt
		}
		printf "%d %d %d\n", na, nr, nb
	}' "$1" "$2"
}

# judge WHO IMG: xfs_repair -n, check, mount and counts of a repaired image;
# sets WHO_xrn WHO_ck WHO_mnt WHO_at WHO_reach WHO_below.
judge() {
	_x=- _c=- _m=- _a=0 _r=0 _t=0
	if [ -f "$2" ]; then
		timeout "$tlimit" "$XFS_REPAIR" -n "$2" > "$w/$1.xrn" 2>&1
		_x=$?
		timeout "$tlimit" "$XFSRECON" check --no-hash "$2" > "$w/$1.ck" 2> "$w/$1.ck.err"
		_c=$?
		timeout "$tlimit" "$XFSRECON" bodyfile "$2" 2> /dev/null | entries > "$w/$1.body"
		# shellcheck disable=SC2046
		set -- "$1" "$2" $(counts "$b.body" "$w/$1.body")
		_a=$3 _r=$4 _t=$5
		set -- "$1" "$2"
		_m=n/a
		if [ "$(cat "$b.mounts")" = yes ]; then
			_m=no
			if mount_ro "$2" "$w/mnt"; then
				ls "$w/mnt" > /dev/null 2>&1 && _m=yes
				umount "$w/mnt" 2> /dev/null
			fi
		fi
	fi
	eval "$1_xrn=\$_x $1_ck=\$_c $1_mnt=\$_m $1_at=\$_a $1_reach=\$_r $1_below=\$_t"
}

# xr_lines FILE: what xfs_repair said besides its progress lines and the
# note every image file gets.
xr_lines() {
	grep -vE '^Phase [0-9]|^ +- |^Cannot get host filesystem geometry|^Repair may fail if there|^the image and the host|^No modify flag set|^$' "$1" 2> /dev/null |
		sed 's/ at 0x[0-9a-f]*,/ at 0x.,/' | head -n "${2:-20}"
}

# run_case IMAGE DISASTER
run_case() {
	image=$1 dis=$2
	key=$image.$dis
	res=$out/cases/$key.res
	[ -f "$res" ] && return 0
	b=$out/base/$image
	eval "$(cat "$b.geo")"
	w=$scratch/$key
	rm -rf "$w"
	mkdir -p "$w"
	cp --sparse=always "$b.img" "$w/c.img"
	total=$(wc -l < "$b.body")
	fn=d_$(printf '%s' "$dis" | tr '.-' '__')
	damage=$($fn "$w/c.img" 2>&1)
	drc=$?
	damage=$(printf '%s' "$damage" | tr '\t\n' '  ')
	if [ $drc -ne 0 ]; then
		result=skip
		[ $drc -eq 3 ] || result=error
		printf '%s\t%s\t%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t-\t%s\t%s\n' \
			"$key" "$image" "$dis" "$result" "$damage" "$total" "$damage" > "$res"
		rm -rf "$w"
		return 0
	fi
	printf '%s: %s\n' "$key" "$damage"
	timeout "$tlimit" "$XFS_REPAIR" -n "$w/c.img" > "$w/xr_in" 2>&1
	xr_in=$?
	cp --sparse=always "$w/c.img" "$w/theirs.img"
	# xfs_repair cannot run on a short image at all ("superblock read
	# failed"): given one, a user extends it to the filesystem's size first,
	# so it is judged on that (the missing end zeros); we get the cut one.
	[ "$dis" = truncate-70 ] && truncate -s $((g_dblocks * g_blocksize)) "$w/theirs.img"
	timeout "$tlimit" "$XFSRECON" repair "$w/c.img" -o "$w/ours.img" > "$w/rep" 2> "$w/rep.err"
	rep=$?
	judge ours "$w/ours.img"
	timeout "$tlimit" "$XFS_REPAIR" "$w/theirs.img" > "$w/xr_fix" 2>&1
	xr_fix=$?
	if [ $xr_fix -eq 2 ]; then
		timeout "$tlimit" "$XFS_REPAIR" -L "$w/theirs.img" > "$w/xr_fix" 2>&1
		xr_fix=$?
		xr_fix="L$xr_fix"
	fi
	judge theirs "$w/theirs.img"

	why=""
	[ -f "$w/ours.img" ] ||
		why="$why repair wrote no output (exit $rep: $(grep -v '^ *$' "$w/rep.err" | tail -n 1 | sed "s|$w/||g" | cut -c1-160));"
	[ "$rep" -ge 124 ] && why="$why repair exit $rep ($(sweep_fault "$rep" "$w/rep.err"));"
	[ "$ours_xrn" = - ] || [ "$ours_xrn" = 0 ] ||
		why="$why xfs_repair -n on ours exits $ours_xrn: $(xr_lines "$w/ours.xrn" 1 | cut -c1-160);"
	[ "$ours_mnt" = no ] && why="$why the kernel does not mount ours;"
	[ "$ours_reach" -lt "$theirs_reach" ] &&
		why="$why ours keeps $ours_reach reachable, xfs_repair $theirs_reach;"
	if [ "$dis" = zero-1m ]; then
		# Only an entry whose inode lay past the first MiB can be kept
		# whole: the others' cores are gone, and nothing but a log copy
		# or their data in the rmapbt may bring them back.
		survived=$(awk -F '\t' -v ab="$g_agblocks" -v abl="$g_agblklog" -v ipl="$g_inopblog" \
		    -v bs="$g_blocksize" -v is="$g_inodesize" '{
			i = $1; ipb = 2 ^ ipl; per_ag = 2 ^ (abl + ipl)
			ag = int(i / per_ag); r = i - ag * per_ag
			if ((ag * ab + int(r / ipb)) * bs + (r % ipb) * is >= 1048576) n++
		} END { print n + 0 }' "$b.body")
		[ $((ours_below * 10)) -lt $((survived * 9)) ] &&
			why="$why $ours_below of the $survived entries whose inode lies past the first MiB keep their path below the top (under 90 %; $total entries in all);"
	fi
	result=pass
	[ -z "$why" ] || result=fail
	{
		echo "== $key: $result"
		echo "-- damage: $damage"
		echo "-- xfs_repair -n on the damaged image (exit $xr_in):"
		xr_lines "$w/xr_in"
		echo "-- xfsrecon repair (exit $rep):"
		tail -n 8 "$w/rep" "$w/rep.err" 2> /dev/null
		echo "-- xfs_repair -n on ours (exit $ours_xrn):"
		xr_lines "$w/ours.xrn"
		echo "-- xfsrecon check of ours (exit $ours_ck):"
		grep -v '^ *$' "$w/ours.ck" 2> /dev/null | head -n 20
		echo "-- xfs_repair (exit $xr_fix):"
		xr_lines "$w/xr_fix"
		echo "-- xfs_repair -n on xfs_repair's output (exit $theirs_xrn):"
		xr_lines "$w/theirs.xrn"
		echo "-- xfsrecon check of xfs_repair's output (exit $theirs_ck):"
		grep -v '^ *$' "$w/theirs.ck" 2> /dev/null | head -n 10
		echo "-- entries (of $total): at path, reachable, below top: ours $ours_at $ours_reach $ours_below, xfs_repair $theirs_at $theirs_reach $theirs_below"
		if [ -f "$w/ours.body" ]; then
			echo "-- entries xfs_repair keeps at their path and ours does not (the first 10):"
			cut -f 4 "$b.body" | sort -u > "$w/clean.p"
			cut -f 4 "$w/ours.body" | sort -u | comm -12 - "$w/clean.p" > "$w/ours.p"
			cut -f 4 "$w/theirs.body" 2> /dev/null | sort -u | comm -12 - "$w/clean.p" |
				comm -23 - "$w/ours.p" | head -n 10
		fi
	} > "$out/cases/$key.txt" 2>&1
	[ -n "$why" ] || why=-
	# (echo unquoted: the reasons on one line, runs of blanks squeezed)
	# shellcheck disable=SC2086
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		"$key" "$image" "$dis" "$result" "$(echo $why | tr '\t' ' ')" "$xr_in" "$rep" \
		"$ours_xrn" "$ours_ck" "$ours_mnt" "$ours_at" "$ours_reach" "$ours_below" \
		"$xr_fix" "$theirs_xrn" "$theirs_ck" "$theirs_mnt" "$theirs_at" "$theirs_reach" \
		"$theirs_below" "$total" "$damage" > "$res.tmp"
	mv "$res.tmp" "$res"
	# REGION_KEEP: the damaged copy of each case, to study it
	if [ -n "${REGION_KEEP:-}" ]; then
		mkdir -p "$REGION_KEEP" && cp --sparse=always "$w/c.img" "$REGION_KEEP/$key.damaged.img"
	fi
	rm -rf "$w"
}

# ---------------------------------------------------------------- summary
summarize() {
	{
		printf 'key\timage\tdisaster\tresult\twhy\txfs_repair_n_in\trepair_exit\tours_xfs_repair_n\tours_check\tours_mount\tours_at_path\tours_reachable\tours_below_top\txfs_repair_exit\ttheirs_xfs_repair_n\ttheirs_check\ttheirs_mount\ttheirs_at_path\ttheirs_reachable\ttheirs_below_top\tentries\tdamage\n'
		find "$out/cases" -name '*.res' -exec cat {} + | sort
	} > "$out/matrix.tsv"
	awk -F '\t' -v order="$DISASTERS" '
	function yn(x) { return x == "-" ? "-" : x == 0 ? "yes" : "no" }
	function mn(x) { return x == "n/a" ? "n/a" : x }
	NR == 1 { next }
	{ row[$2, $3] = $0; im[$2] = 1; nres[$4]++ }
	END {
		printf "%-17s %-15s %7s %4s | %-34s | %-34s | %s\n", "", "", "", "", "ours", "xfs_repair", ""
		printf "%-17s %-15s %7s %4s | %4s %4s %3s %6s %6s %6s | %4s %4s %3s %6s %6s %6s | %s\n", "image", "disaster", "entries", "real", "exit", "cln", "mnt", "atpath", "reach", "below", "exit", "cln", "mnt", "atpath", "reach", "below", "result"
		ni = split(order, d, " ")
		for (m in im) names[++nm] = m
		for (i = 2; i <= nm; i++) for (j = i; j > 1 && names[j - 1] > names[j]; j--) { t = names[j]; names[j] = names[j - 1]; names[j - 1] = t }
		for (a = 1; a <= nm; a++) {
			for (k = 1; k <= ni; k++) {
				if (!((names[a], d[k]) in row)) continue
				split(row[names[a], d[k]], f, "\t")
				if (f[4] == "skip" || f[4] == "error") {
					printf "%-17s %-15s %7s %4s | %s: %s\n", names[a], d[k], f[21], "", f[4], f[5]
					continue
				}
				printf "%-17s %-15s %7s %4s | %4s %4s %3s %6s %6s %6s | %4s %4s %3s %6s %6s %6s | %s\n", names[a], d[k], f[21], f[6] == 0 ? "no" : "yes", f[7], yn(f[8]), mn(f[10]) == "yes" ? "y" : mn(f[10]) == "no" ? "n" : f[10], f[11], f[12], f[13], f[14], yn(f[15]), f[17] == "yes" ? "y" : f[17] == "no" ? "n" : f[17], f[18], f[19], f[20], f[4]
			}
		}
		printf "\n%d pass, %d fail, %d skipped, %d not made\n", nres["pass"], nres["fail"], nres["skip"], nres["error"]
	}' "$out/matrix.tsv" > "$out/table.txt"
	awk -F '\t' 'NR > 1 && ($4 == "fail" || $4 == "error") {
		if (!n++) print "\nfailures:"
		printf "  %s: %s\n", $1, $5 }' "$out/matrix.tsv" >> "$out/table.txt"
	cat "$out/table.txt"
}

# ---------------------------------------------------------------- main
out="" images="v5-rmap-reflink v5-normap v4 v5-files" want="" extra="" seed=1 tlimit=300 mode=run
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	--images) images=$2; shift ;;
	--disasters) want=$2; shift ;;
	--add-image) extra="$extra $2"; shift ;;
	--seed) seed=$2; shift ;;
	--timeout) tlimit=$2; shift ;;
	--summary) mode=summary ;;
	*) echo "region-sweep.sh: unknown option $1 (see the comment at its top)" >&2; exit 2 ;;
	esac
	shift
done
out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/xfz-region.XXXXXX")}
mkdir -p "$out/cases" "$out/base" "$out/mnt"
if [ "$mode" = summary ]; then
	summarize
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "region-sweep.sh: needs root (loop mounts)" >&2; exit 2; }
sweep_need "$XFS_DB" "$XFS_REPAIR" zstd timeout od cksum truncate
sweep_xfsrecon
# shellcheck disable=SC2086
sweep_base_images "$out/base" $images
for f in $extra; do
	n=$(basename "$f" .img)
	[ -f "$out/base/$n.img" ] || cp --sparse=always "$f" "$out/base/$n.img" || exit 2
	images="$images $n"
done
for image in $images; do
	[ -f "$out/base/$image.img" ] || { echo "region-sweep.sh: no image $image" >&2; exit 2; }
	prepare "$image"
done
chosen=""
for d in $DISASTERS; do
	[ -n "$want" ] || { chosen="$chosen $d"; continue; }
	for p in $want; do
		# shellcheck disable=SC2254
		case $d in $p) chosen="$chosen $d"; break ;; esac
	done
done
[ -n "$chosen" ] || { echo "region-sweep.sh: no disaster matches $want" >&2; exit 2; }

# Scratch copies (three per case) live in /dev/shm when it is writable.
scratch=$out/scratch
[ -d /dev/shm ] && [ -w /dev/shm ] && scratch=$(mktemp -d /dev/shm/xfz-region.XXXXXX)
mkdir -p "$scratch"
trap 'umount "$out/mnt" 2> /dev/null; for m in "$scratch"/*/mnt; do umount "$m" 2> /dev/null; done; [ "$scratch" = "$out/scratch" ] || rm -rf "$scratch"' EXIT
echo "region sweep: images: $images; disasters:$chosen (program $XFSRECON, seed $seed), results in $out"
for image in $images; do
	for d in $chosen; do
		run_case "$image" "$d"
	done
done
echo
summarize
awk -F '\t' 'NR > 1 && ($4 == "fail" || $4 == "error") { bad = 1 } END { exit bad }' "$out/matrix.tsv"
