#!/bin/sh
# field-sweep.sh - corrupt one on-disk field at a time, every way xfs_db's
# fuzz command can, and judge `xfsrecon check` and `xfsrecon repair` on each
# against xfs_repair.
#
# usage: tests/fuzz/field-sweep.sh [OPTIONS]
#   --out DIR          results (default: a new directory under TMPDIR or /tmp);
#                      a second run with the same DIR skips finished cases
#   --images "A B"     corpus images by name (default: all of corpus/images)
#   --structures "P.." only structures matching one of these shell patterns
#   --sample N         run N cases of the matrix, a stratified sample (below)
#   --seed S           seed of the sample (default 1)
#   --shard K/N        run only part K of N of the list (1 <= K <= N; a case
#                      is in the part its key hashes to): the full run split
#                      into parts that can run on different days or
#                      machines; the results of every part run with one DIR
#                      add up in its summary, which says how much of the
#                      matrix has results
#   -j N               cases run in parallel (default 1)
#   --timeout S        limit of every command (default 120 s)
#   --mount            count files by loop-mounting both outputs read-only
#                      (needs root; images the kernel will not mount fall
#                      back to `xfsrecon ls -R`), and judge ours by the
#                      kernel too (class kernel-refuses below)
#   --cases FILE       run the cases of FILE (lines of a case list, as
#                      --list writes them) instead of the matrix
#   --list             write the case list (DIR/run.tsv) and stop
#   --summary          print the summary of DIR and stop
#
# The matrix (the xfstests "fuzzy" method made exhaustive).  For every corpus
# image, every structure it has, found on the clean image:
#   sb0 sb1 agf agi agfl (AG 0's headers; sb1 is the secondary in AG 1),
#   bnobt cntbt inobt finobt rmapbt refcountbt at leaf and node level
#   (the AG whose tree is tallest), bmbt leaf/node (below a btree-format
#   fork), one inode per file type + data fork format + attr fork format
#   ("inode-dir-local" holds a short form directory, "-attr-local" a short
#   form attribute list), the root of a metadata directory tree
#   ("inode-metadir-root"), directory blocks (block, data, leaf, leafn, node,
#   free), attribute blocks (leaf, node, remote) and the remote symlink
#   block, each reached by the xfs_db commands that navigate to it; every
#   field xfs_db's `print` shows there (of an array, the first, middle and
#   last element); every fuzz verb (zeroes ones firstbit middlebit lastbit
#   add sub random); two CRC modes: `good` (fuzz -d: the field is corrupt,
#   the CRC recomputed, so only a semantic check finds it) and `stale`
#   (fuzz -c: the CRC is left as it was; on V4 images, which have no CRC,
#   both modes write the same).  A sample takes cases round robin over
#   strata (structure, verb, CRC mode: images spread inside each) in an order given by a hash of the
#   seed and the case, so the same seed picks the same cases everywhere.
#
# Each case, with a copy C of the image corrupted by
#   xfs_db -x NAV... -c "print FIELD" -c "fuzz -d|-c FIELD VERB":
#   (xfs_db's `random` draws a new value on every run: such a case is not
#   reproducible, so KEY.txt of a failing case says what the fuzz wrote);
#   a case whose fuzz changed nothing (the field had that value) is `noop`,
#   one xfs_db refused (no such field here) `nofuzz`; otherwise
#     xfs_repair -n C                    the oracle: is the damage real
#     xfsrecon check C                   detected = exit status != 0
#     xfsrecon repair C -o OURS          then xfs_repair -n OURS, check OURS
#     xfs_repair THEIRS (a copy of C, -L if it asks) then xfs_repair -n THEIRS
#     the paths of the clean image still present in OURS and in THEIRS
#   and fails, with each class it earns (the first is the case's class):
#     crash           an xfsrecon exit status >= 128 or sanitizer text
#     hang            an xfsrecon command hit the time limit
#     missed-detection  xfs_repair -n exits non-zero on C, check exits 0
#     unclean-output  xfs_repair -n does not call OURS clean (or repair wrote
#                     none) while it calls THEIRS clean
#     fewer-files     OURS keeps fewer of the clean image's paths than THEIRS
#     content-lost    the regular file the fuzzed inode or bmbt belongs to
#                     reads differently in OURS than in the clean image,
#                     while THEIRS reads as the clean image (by inode
#                     number, `xfsrecon cat`)
#     kernel-refuses  (--mount) the kernel mounts the clean image but not
#                     OURS, or a walk of OURS meets read errors ("Structure
#                     needs cleaning"): damage xfs_repair -n may not see
# Results: DIR/cases/KEY.res (one TSV line, written when the case ends, so
# an interrupted run resumes), DIR/cases/KEY.txt (what xfs_repair -n said
# on C and on OURS, the findings of check, the repair's last lines) for
# every failing case, DIR/matrix.tsv (all results, with a header line) and
# DIR/summary.txt (per structure, per fail class, the most frequent failing
# (structure, field) groups), also printed.  A case key is
# IMAGE/STRUCTURE/FIELD/VERB/CRC.  Exits 1 when a case fails, 2 on a setup
# error.  Not part of `make check`; field_sweep_sample.sh runs a sample of
# it there.
#
# Environment: XFSRECON (default: an ASan+UBSan build, see sweep-lib.sh),
# XFS_DB, XFS_REPAIR; FIELD_SWEEP_KNOWN: a known-failures file (KEY CLASS
# a line): a listed failure of that class counts as `known`, not `fail`.
set -u
LC_ALL=C
export LC_ALL

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
self=$srcdir/tests/fuzz/field-sweep.sh
sweep_srcdir=$srcdir
. "$srcdir/tests/fuzz/sweep-lib.sh"
. "$srcdir/tests/corrupt-lib.sh"
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
export XFS_DB XFS_REPAIR

VERBS="zeroes ones firstbit middlebit lastbit add sub random"

# ---------------------------------------------------------------- one case
# run_case LINE: LINE of DIR/run.tsv (key image structure nav field verb crc).
run_case() {
	IFS='	' read -r key image structure nav field verb crc <<EOF
$(sed -n "$1p" "$out/run.tsv")
EOF
	f=$(printf '%s' "$key" | tr '/[]' '~()')
	res=$out/cases/$f.res
	[ -f "$res" ] && return 0
	w=$scratch/w$1
	rm -rf "$w"
	mkdir -p "$w"
	base=$out/base/$image.img
	cp --sparse=always "$base" "$w/c.img"
	flag=-d
	[ "$crc" = stale ] && flag=-c
	corrupt "$w/c.img" "$nav;print $field;fuzz $flag $field $verb" > "$w/fuzz" 2>&1
	# The field's line is printed before (print) and after (fuzz) the change.
	vals=$(awk -v k="$field = " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' "$w/fuzz")
	n=$(printf '%s\n' "$vals" | grep -c .)
	fields="$key	$image	$structure	$field	$verb	$crc"
	if [ "$n" -lt 2 ]; then
		printf '%s\tnofuzz\t-\t-\t-\t-\t-\t-\t-\t-\t-\t%s\n' "$fields" \
			"$(grep -v ' = ' "$w/fuzz" | head -1 | tr '\t' ' ')" > "$res"
		rm -rf "$w"
		return 0
	fi
	if [ "$(printf '%s\n' "$vals" | sed -n 1p)" = "$(printf '%s\n' "$vals" | sed -n 2p)" ]; then
		printf '%s\tnoop\t-\t-\t-\t-\t-\t-\t-\t-\t-\tthe field had that value\n' "$fields" > "$res"
		rm -rf "$w"
		return 0
	fi
	classes=""
	fault() { # fault RC ERRFILE WHAT
		_fl=$(sweep_fault "$1" "$2")
		if [ "$_fl" != ok ]; then
			classes="$classes $_fl"
			faults="$faults $3 exit $1;"
			mkdir -p "$out/fail"
			[ -f "$out/fail/$f.img.zst" ] ||
				zstd -q -f -o "$out/fail/$f.img.zst" "$w/c.img"
			cp "$2" "$out/fail/$f.$3.stderr"
		fi
	}
	faults=""
	timeout "$tlimit" "$XFS_REPAIR" -n "$w/c.img" > "$w/xr_in" 2>&1
	xr_in=$?
	timeout "$tlimit" "$XFSRECON" check --no-hash "$w/c.img" > "$w/ck_in" 2> "$w/ck_in.err"
	ck_in=$?
	fault $ck_in "$w/ck_in.err" check
	# (no digests: the judge does not read them, and they are most of the time)
	timeout "$tlimit" "$XFSRECON" repair --no-hash "$w/c.img" -o "$w/ours.img" > "$w/rep" 2> "$w/rep.err"
	rep=$?
	fault $rep "$w/rep.err" repair
	xr_ours=- ck_ours=-
	if [ -f "$w/ours.img" ]; then
		timeout "$tlimit" "$XFS_REPAIR" -n "$w/ours.img" > "$w/xr_ours" 2>&1
		xr_ours=$?
		timeout "$tlimit" "$XFSRECON" check --no-hash "$w/ours.img" > "$w/ck_ours" 2> "$w/ck_ours.err"
		ck_ours=$?
		fault $ck_ours "$w/ck_ours.err" check-output
	fi
	cp --sparse=always "$w/c.img" "$w/theirs.img"
	timeout "$tlimit" "$XFS_REPAIR" "$w/theirs.img" > "$w/xr_fix" 2>&1
	xr_fix=$?
	if [ $xr_fix -eq 2 ]; then
		timeout "$tlimit" "$XFS_REPAIR" -L "$w/theirs.img" > "$w/xr_fix" 2>&1
		xr_fix=$?
	fi
	timeout "$tlimit" "$XFS_REPAIR" -n "$w/theirs.img" > "$w/xr_theirs" 2>&1
	xr_theirs=$?
	files_ours=0
	[ -f "$w/ours.img" ] && files_ours=$(kept "$w/ours.img" "$image" "$w/m")
	files_theirs=$(kept "$w/theirs.img" "$image" "$w/m")
	# The content of the regular file whose inode (or bmbt) was fuzzed,
	# read by inode number wherever the repair put it.
	owner=$(printf '%s' "$nav" | sed -n 's/^inode \([0-9][0-9]*\).*/\1/p')
	sum_clean=- sum_ours=- sum_theirs=-
	if [ -n "$owner" ] &&
		awk -v i="$owner" '$1 == i && $NF == "reg" { f = 1 } END { exit !f }' "$out/base/$image.inodes"; then
		sum_clean=$(content_sum "$out/base/$image.img" "$owner")
		[ -f "$w/ours.img" ] && sum_ours=$(content_sum "$w/ours.img" "$owner")
		sum_theirs=$(content_sum "$w/theirs.img" "$owner")
	fi

	reason=""
	if [ -n "$faults" ]; then
		reason="$faults"
	fi
	if [ $xr_in -ne 0 ] && [ $ck_in -eq 0 ]; then
		classes="$classes missed-detection"
		reason="$reason xfs_repair -n: $(xr_says "$w/xr_in");"
	fi
	if [ $xr_theirs -eq 0 ] && [ "$xr_ours" != 0 ]; then
		classes="$classes unclean-output"
		if [ "$xr_ours" = - ]; then
			reason="$reason repair wrote no output (exit $rep): $(tail -n 1 "$w/rep.err" | tr '\t' ' ');"
		else
			reason="$reason xfs_repair -n on ours: $(xr_says "$w/xr_ours") (repair exit $rep, check of ours exit $ck_ours);"
		fi
	fi
	if [ "$sum_clean" != - ] && [ "$sum_ours" != "$sum_clean" ] && [ "$sum_theirs" = "$sum_clean" ]; then
		classes="$classes content-lost"
		reason="$reason inode $owner reads differently in ours (xfs_repair's output keeps its bytes);"
	fi
	if [ "$files_ours" -lt "$files_theirs" ]; then
		classes="$classes fewer-files"
		for _i in ours theirs; do
			sort -u "$w/$_i.img.paths" 2> /dev/null |
				comm -12 - "$(cat "$w/$_i.img.base" 2> /dev/null || echo /dev/null)" > "$w/$_i.kept"
		done
		comm -13 "$w/ours.kept" "$w/theirs.kept" > "$w/lost"
		reason="$reason ours keeps $files_ours paths, xfs_repair $files_theirs (first lost: $(head -n 1 "$w/lost" | tr '\t' ' '));"
	fi
	if [ "$mount" = 1 ] && [ -f "$w/ours.img.kernel" ]; then
		_k=$(cat "$w/ours.img.kernel")
		case $_k in
		ok | n/a) ;;
		*)
			classes="$classes kernel-refuses"
			reason="$reason the kernel on ours: $_k;"
			;;
		esac
	fi
	classes=$(echo $classes | tr ' ' ',')
	result=pass
	if [ -n "$classes" ]; then
		result=fail
		first=${classes%%,*}
		if [ -n "${FIELD_SWEEP_KNOWN:-}" ] && [ "$first" != crash ] && [ "$first" != hang ] &&
			grep -qxF "$key $first" "$FIELD_SWEEP_KNOWN" 2> /dev/null; then
			result=known
		fi
		{
			echo "== $key: $classes"
			echo "-- fuzz: $nav; $field = $(printf '%s\n' "$vals" | sed -n 1p) -> $(printf '%s\n' "$vals" | sed -n 2p)"
			echo "-- xfs_repair -n on the corrupted image (exit $xr_in):"
			xr_lines "$w/xr_in"
			echo "-- xfsrecon check (exit $ck_in):"
			grep -v '^ *$' "$w/ck_in" | head -n 20
			echo "-- xfsrecon repair (exit $rep):"
			tail -n 5 "$w/rep" "$w/rep.err" 2> /dev/null
			echo "-- xfs_repair -n on ours (exit $xr_ours):"
			[ -f "$w/xr_ours" ] && xr_lines "$w/xr_ours"
			echo "-- xfsrecon check of ours (exit $ck_ours):"
			[ -f "$w/ck_ours" ] && grep -v '^ *$' "$w/ck_ours" | head -n 20
			echo "-- xfs_repair (exit $xr_fix), then xfs_repair -n (exit $xr_theirs):"
			xr_lines "$w/xr_theirs"
			if [ "$files_ours" -lt "$files_theirs" ]; then
				echo "-- paths xfs_repair keeps and ours does not (the first 10):"
				head -n 10 "$w/lost"
			fi
		} > "$out/cases/$f.txt"
	fi
	[ -n "$classes" ] || classes=-
	[ -n "$reason" ] || reason=-
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$fields" "$result" "$classes" \
		"$xr_in" "$ck_in" "$rep" "$xr_ours" "$ck_ours" "$xr_theirs" "$files_ours" \
		"$files_theirs" "$(echo $reason | tr '\t' ' ')" > "$res.tmp"
	mv "$res.tmp" "$res"
	rm -rf "$w"
}

# xr_lines FILE: what xfs_repair said besides its progress lines and the
# note every image file gets; heap addresses are blanked.
xr_lines() {
	grep -vE '^Phase [0-9]|^ +- |^Cannot get host filesystem geometry|^Repair may fail if there|^the image and the host|^No modify flag set|^$' "$1" |
		sed 's/ at 0x[0-9a-f]*,/ at 0x.,/' | head -n 20
}

# xr_says FILE: the first thing xfs_repair -n complained of, preferring a
# named inconsistency to a verifier's "Metadata ... detected" line.
xr_says() {
	_l=$(xr_lines "$1" | grep -vE '^Metadata (corruption|CRC error) detected' | head -n 1)
	[ -n "$_l" ] || _l=$(xr_lines "$1" | head -n 1)
	printf '%s' "$_l" | tr '\t' ' ' | cut -c1-200
}

# kept IMG IMAGE MNT: how many paths of the clean IMAGE are paths in IMG;
# IMG.paths lists IMG's, IMG.base names the list of the clean image's they
# are compared with (a walk of a mount lists raw names, `ls -R` escapes
# them: each is compared with a list made the same way).  With --mount,
# IMG.kernel says what the kernel made of IMG: "ok", "n/a" (it does not
# mount the clean image either), "unmountable", or "N read errors" and the
# first of them.  Mounts are nouuid: parallel cases mount copies of one
# image, and the kernel refuses a second filesystem with a UUID already
# mounted.
kept() {
	_paths=""
	echo "$out/base/$2.paths" > "$1.base"
	if [ "$mount" = 1 ] && [ "$(base_mounts "$2" "$3")" = yes ]; then
		mkdir -p "$3"
		if mount -o ro,loop,norecovery,nouuid "$1" "$3" 2> /dev/null; then
			(cd "$3" && find . -mindepth 1 2> "$1.finderr" | sed 's/^\.//') > "$1.paths"
			umount "$3"
			_paths=$1.paths
			echo "$out/base/$2.kpaths" > "$1.base"
			if [ -s "$1.finderr" ]; then
				echo "$(wc -l < "$1.finderr") read errors, first: $(head -n 1 "$1.finderr" | sed "s|$3||")" > "$1.kernel"
			else
				echo ok > "$1.kernel"
			fi
		else
			echo unmountable > "$1.kernel"
		fi
	elif [ "$mount" = 1 ]; then
		echo n/a > "$1.kernel"
	fi
	if [ -z "$_paths" ]; then
		timeout "$tlimit" "$XFSRECON" ls -R "$1" / > "$1.paths" 2> /dev/null
		_paths=$1.paths
	fi
	sort -u "$_paths" | comm -12 - "$(cat "$1.base")" | wc -l
}

# content_sum IMG INO: a checksum of inode INO's bytes as `xfsrecon cat`
# reads them (of what it gave, where it could not read them all).
content_sum() {
	timeout "$tlimit" "$XFSRECON" cat "$1" "$2" 2> /dev/null | cksum | tr ' ' '-'
}

# base_mounts IMAGE MNT: does the kernel mount the clean IMAGE (yes/no),
# asked once per sweep directory; if so, its walk is IMAGE.kpaths.
base_mounts() {
	if [ ! -f "$out/base/$1.mounts" ]; then
		mkdir -p "$2"
		if mount -o ro,loop,norecovery,nouuid "$out/base/$1.img" "$2" 2> /dev/null; then
			(cd "$2" && find . -mindepth 1 2> /dev/null | sed 's/^\.//') | sort -u > "$out/base/$1.kpaths.$$"
			umount "$2"
			mv "$out/base/$1.kpaths.$$" "$out/base/$1.kpaths"
			echo yes > "$out/base/$1.mounts.$$"
		else
			echo no > "$out/base/$1.mounts.$$"
		fi
		mv "$out/base/$1.mounts.$$" "$out/base/$1.mounts"
	fi
	cat "$out/base/$1.mounts"
}

# ---------------------------------------------------------------- the matrix
# db IMG CMDS...: xfs_db -r with each argument a command
db() {
	_img=$1
	shift
	_a=""
	for _c in "$@"; do
		_a="$_a -c '$_c'"
	done
	eval "\"\$XFS_DB\" -r $_a \"\$_img\"" 2> /dev/null < /dev/null
}

# val IMG NAV FIELD: one field's value (NAV: ';'-separated commands)
val() {
	_o=$IFS
	IFS=';'
	# shellcheck disable=SC2086
	set -- "$1" $2 "p $3" "$3"
	IFS=$_o
	_img=$1
	shift
	_fld=$(eval "printf '%s\n' \"\${$#}\"")
	_n=$(($# - 1))
	_cmds=""
	_i=0
	for _c in "$@"; do
		_i=$((_i + 1))
		[ $_i -le $_n ] && _cmds="$_cmds -c '$_c'"
	done
	eval "\"\$XFS_DB\" -r $_cmds \"\$_img\"" 2> /dev/null < /dev/null |
		awk -v k="$_fld = " 'index($0, k) == 1 { print substr($0, length(k) + 1); exit }'
}

# structures IMAGE: "STRUCTURE<TAB>NAV" for everything this image has.
structures() {
	sname=$1
	img=$out/base/$1.img
	printf 'sb0\tsb 0\nsb1\tsb 1\nagf\tagf 0\nagi\tagi 0\nagfl\tagfl 0\n'
	agcount=$(val "$img" "sb 0" agcount)
	blocklog=$(val "$img" "sb 0" blocklog)
	# AG btrees: the leaf of AG 0 (or of the tallest tree's first leaf),
	# the root of the tallest tree when it has two levels or more.
	for t in "bnobt agf bnoroot bnolevel" "cntbt agf cntroot cntlevel" \
		"rmapbt agf rmaproot rmaplevel" "refcountbt agf refcntroot refcntlevel" \
		"inobt agi root level" "finobt agi free_root free_level"; do
		set -- $t
		best=-1 bestlev=0
		a=0
		while [ $a -lt "$agcount" ]; do
			lev=$(val "$img" "$2 $a" "$4")
			case $lev in '' | *[!0-9]*) lev=0 ;; esac
			[ "$lev" -gt "$bestlev" ] && best=$a bestlev=$lev
			a=$((a + 1))
		done
		[ "$bestlev" -ge 1 ] || continue
		if [ "$bestlev" -eq 1 ]; then
			printf '%s-leaf\t%s 0;addr %s\n' "$1" "$2" "$3"
		else
			printf '%s-node\t%s %s;addr %s\n' "$1" "$2" "$best" "$3"
			nav="$2 $best;addr $3"
			l=$bestlev
			while [ "$l" -gt 1 ]; do
				nav="$nav;addr ptrs[1]"
				l=$((l - 1))
			done
			printf '%s-leaf\t%s\n' "$1" "$nav"
		fi
	done
	# The root of a metadata directory tree (xfsprogs 6.13 -m metadir=1),
	# which no path reaches.
	mdino=$(val "$img" "sb 0" metadirino)
	case $mdino in
	'' | *[!0-9]* | 0) ;;
	*) printf 'inode-metadir-root\tinode %s\n' "$mdino" ;;
	esac
	# Inodes: candidates from the clean image's paths, at most 8 of each
	# file type per directory, classified by fork formats with one xfs_db.
	"$XFSRECON" bodyfile "$img" 2> /dev/null |
		awk -F '|' '{
			t = substr($4, 1, 1); d = $2; sub(/\/[^\/]*$/, "", d)
			if (n[t, d]++ < 8 && !seen[$3]++) print $3
		}' | sort -n > "$out/base/$sname.cand"
	sed 's/.*/-c "inode &" -c "p core.mode core.format core.aformat core.forkoff"/' \
		"$out/base/$sname.cand" | tr '\n' ' ' > "$out/base/$sname.cmd"
	eval "\"\$XFS_DB\" -r $(cat "$out/base/$sname.cmd") \"\$img\"" 2> /dev/null < /dev/null |
		awk -v cand="$out/base/$sname.cand" '
		BEGIN { while ((getline l < cand) > 0) ino[++ni] = l; i = 0 }
		/^core.mode = / { i++; m = substr($3, 1, length($3) - 4) }
		/^core.format = / { df = $4 }
		/^core.aformat = / { af = $4 }
		/^core.forkoff = / {
			t = (m == "01") ? "fifo" : (m == "02") ? "chr" : (m == "04") ? "dir" : (m == "06") ? "blk" : (m == "010") ? "reg" : (m == "012") ? "lnk" : (m == "014") ? "sock" : "mode" m
			gsub(/[()]/, "", df); gsub(/[()]/, "", af)
			s = "inode-" t "-" df ($3 == 0 ? "" : "-attr-" af)
			print ino[i], s, df, af, t
		}' > "$out/base/$sname.inodes"
	awk '!seen[$2]++ { printf "%s\tinode %s\n", $2, $1 }' "$out/base/$sname.inodes"
	# Blocks of directories, attribute forks, remote symlinks and bmbts.
	leafoff=$(( (1 << 35) >> blocklog ))
	freeoff=$((leafoff * 2))
	while read -r ino s df af t; do
		if [ "$df" = btree ]; then
			echo "bmbt $ino u3.bmbt.ptrs[1] u.bmbt.ptrs[1]"
		fi
		if [ "$af" = btree ]; then
			echo "bmbt $ino a.bmbt.ptrs[1] a.bmbt.ptrs[1]"
		fi
		case $t.$df in
		dir.extents | dir.btree)
			db "$img" "inode $ino" "bmap" |
				awk -v lo="$leafoff" -v fo="$freeoff" -v ino="$ino" '
				$1 == "data" {
					s = $3 + 0; e = s + $8 - 1
					r = (s >= fo) ? 2 : (s >= lo) ? 1 : 0
					if (!(r in first) || s < first[r]) first[r] = s
					if (!(r in last) || e > last[r]) last[r] = e
				}
				END { for (r in first) print "dir", ino, first[r], last[r] }' ;;
		lnk.extents) echo "symlink $ino 0" ;;
		esac
		case $af in
		extents | btree)
			db "$img" "inode $ino" "bmap -a" |
				awk -v ino="$ino" '$1 == "attr" { print "attr", ino, $3 + 0, $3 + $8 - 1 }' ;;
		esac
	done < "$out/base/$sname.inodes" | sort -u -k1,1 -k2,2n -k3,3n | head -n 400 |
	while read -r what ino a b c; do
		case $what in
		bmbt)
			nav="inode $ino;addr $a"
			lev=$(val "$img" "$nav" level)
			if [ -z "$lev" ]; then
				nav="inode $ino;addr $b"
				lev=$(val "$img" "$nav" level)
			fi
			case $lev in '' | *[!0-9]*) continue ;; esac
			if [ "$lev" -gt 0 ]; then
				printf 'bmbt-node\t%s\n' "$nav"
				while [ "$lev" -gt 0 ]; do
					nav="$nav;addr ptrs[1]"
					lev=$((lev - 1))
				done
			fi
			printf 'bmbt-leaf\t%s\n' "$nav" ;;
		dir | attr | symlink)
			cmd=dblock
			[ "$what" = attr ] && cmd=ablock
			for o in $a ${b:-}; do
				nav="inode $ino;$cmd $o"
				m=$(db "$img" "inode $ino" "$cmd $o" print | awk '/magic = / { print $3; exit }')
				s=""
				case $what.$m in
				dir.0x58444233 | dir.0x58443242) s=dir-block ;;
				dir.0x58444433 | dir.0x58443244) s=dir-data ;;
				dir.0x3df1 | dir.0xd2f1) s=dir-leaf ;;
				dir.0x3dff | dir.0xd2ff) s=dir-leafn ;;
				dir.0x3ebe | dir.0xfebe) s=dir-node ;;
				dir.0x58444633 | dir.0x58443246) s=dir-free ;;
				attr.0x3bee | attr.0xfbee) s=attr-leaf ;;
				attr.0x3ebe | attr.0xfebe) s=attr-node ;;
				attr.0x5841524d) s=attr-remote ;;
				symlink.0x58534c4d) s=symlink-remote ;;
				esac
				[ -n "$s" ] && printf '%s\t%s\n' "$s" "$nav"
			done ;;
		esac
	done | awk -F '\t' '!seen[$1]++'
}

# fields IMG NAV: the fields `print` shows at NAV, arrays cut to their first,
# middle and last element, "(empty)" unions left out.
fields() {
	_o=$IFS
	IFS=';'
	# shellcheck disable=SC2086
	set -- "$1" $2 print
	IFS=$_o
	db "$@" | awk '
	function mid(a, b) { return int((a + b) / 2) }
	function emit(k) { if (!(k in done)) { done[k] = 1; out[++no] = k } }
	index($0, " = ") == 0 { next }
	{
		k = substr($0, 1, index($0, " = ") - 1)
		v = substr($0, index($0, " = ") + 3)
		if (v == "(empty)")
			next
		sub_ = ""
		if (v ~ /^\[[A-Za-z0-9_,]*\]/)
			sub_ = substr(v, 2, index(v, "]") - 2)
		if (match(k, /\[[0-9]+-[0-9]+\]$/)) {
			name = substr(k, 1, RSTART - 1)
			r = substr(k, RSTART + 1, RLENGTH - 2)
			split(r, ab, "-")
			idx[1] = ab[1]; idx[2] = mid(ab[1], ab[2]); idx[3] = ab[2]
			for (j = 1; j <= 3; j++)
				expand(name "[" idx[j] "]", sub_)
		} else
			expand(k, sub_)
	}
	function expand(k, s,    n, p, j) {
		if (s == "") { group(k); return }
		n = split(s, p, ",")
		for (j = 1; j <= n; j++)
			group(k "." p[j])
	}
	# Explicitly numbered lines (bu[17].name) are grouped by their
	# pattern; only the first, middle and last index of each is kept.
	function group(k,    pat, i) {
		pat = k
		if (match(k, /\[[0-9]+\]/)) {
			i = substr(k, RSTART + 1, RLENGTH - 2) + 0
			pat = substr(k, 1, RSTART) "#" substr(k, RSTART + RLENGTH - 1)
			if (!(pat in cnt)) { order[++np] = pat; lo[pat] = i; hi[pat] = i }
			cnt[pat]++
			ix[pat, cnt[pat]] = i
			return
		}
		emit(k)
	}
	END {
		for (q = 1; q <= np; q++) {
			pat = order[q]; c = cnt[pat]
			pick[1] = ix[pat, 1]; pick[2] = ix[pat, int((c + 1) / 2)]; pick[3] = ix[pat, c]
			for (j = 1; j <= 3; j++) {
				k = pat; sub(/#/, pick[j], k)
				emit(k)
			}
		}
		for (q = 1; q <= no; q++)
			print out[q]
	}'
}

# make_cases: DIR/cases.tsv, every case of the chosen images and structures.
make_cases() {
	: > "$out/cases.tsv.tmp"
	for image in $images; do
		img=$out/base/$image.img
		[ -f "$img" ] || { echo "field-sweep.sh: no image $image" >&2; exit 2; }
		crcs="good stale"
		# (xfs_db prints a V4 superblock's crc as "0 (unchecked)", so V4 images
		# get both modes too; they write the same there)
		[ -z "$(val "$img" "sb 0" crc)" ] && crcs=good
		[ -f "$out/base/$image.structures" ] || structures "$image" > "$out/base/$image.structures"
		while IFS='	' read -r s nav; do
			if [ -n "$want" ]; then
				ok=0
				for p in $want; do
					case $s in $p) ok=1 ;; esac
				done
				[ $ok = 1 ] || continue
			fi
			fields "$img" "$nav" | while read -r fld; do
				for v in $VERBS; do
					for c in $crcs; do
						printf '%s/%s/%s/%s/%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$image" "$s" \
							"$fld" "$v" "$c" "$image" "$s" "$nav" "$fld" "$v" "$c"
					done
				done
			done
		done < "$out/base/$image.structures"
	done >> "$out/cases.tsv.tmp"
	mv "$out/cases.tsv.tmp" "$out/cases.tsv"
}

# sample N SEED: N cases of cases.tsv, taken round robin over the strata
# (structure, verb, crc mode); inside a stratum in the order of a hash of
# SEED and the key (plain arithmetic, so every awk agrees).
sample() {
	awk -F '\t' -v seed="$2" '
	BEGIN { for (i = 32; i < 127; i++) ord[sprintf("%c", i)] = i }
	function h(s,    x, i) {
		x = 5381
		for (i = 1; i <= length(s); i++)
			x = (x * 33 + ord[substr(s, i, 1)]) % 2147483647
		return x
	}
	{ printf "%s/%s/%s\t%010d\t%s\n", $3, $6, $7, h(seed ":" $1), $0 }' "$out/cases.tsv" |
		sort -t '	' -k1,1 -k2,2 |
		awk -F '\t' '{ r = ($1 == prev) ? r + 1 : 1; prev = $1
			printf "%06d\t%s\t", r, $2; for (i = 3; i < NF; i++) printf "%s\t", $i; print $NF }' |
		sort -t '	' -k1,1 -k2,2 | head -n "$1" | cut -f 3-
}

# ---------------------------------------------------------------- summary
summarize() {
	{
		printf 'key\timage\tstructure\tfield\tverb\tcrc\tresult\tclasses\txfs_repair_n_in\tcheck_in\trepair_exit\txfs_repair_n_ours\tcheck_ours\txfs_repair_n_theirs\tfiles_ours\tfiles_theirs\treason\n'
		find "$out/cases" -name '*.res' -exec cat {} + | sort
	} > "$out/matrix.tsv"
	awk -F '\t' '
	NR == 1 { next }
	{
		s = $3; st[s] = 1; n[s]++; tot++; res[s, $7]++; rt[$7]++
		if ($7 == "fail" || $7 == "known") {
			c = $8; sub(/,.*/, "", c); cl[s, c]++; ct[c]++; cls[c] = 1
			# a group: the structure (every inode kind is "inode") and the
			# field with its array index dropped, across images
			gs_ = $3; if (gs_ ~ /^inode-/) gs_ = "inode"
			gf = $4; gsub(/\[[0-9]+\]/, "[]", gf)
			g = gs_ "\t" gf; grp[g]++; gc[g, c]++
			if (!(g in why)) why[g] = $17
			split($8, all, ",")
			for (i in all) anyc[all[i]]++
		}
		if ($12 == "0" && $14 != "0" && $14 != "-") { bet++; bets[s]++ }
		if ($15 + 0 > $16 + 0) { more++; mores[s]++ }
		if ($9 != "-" && $9 != "0") { real++; if ($10 != "0") det++ }
		if ($14 == "0") { tclean++; if ($12 != "0") ounclean++ }
	}
	END {
		split("crash hang missed-detection unclean-output fewer-files kernel-refuses content-lost", co, " ")
		printf "%-30s %6s %5s %5s %5s %6s %6s %5s %5s %6s %6s %6s %6s %6s %6s %6s\n", "structure", "cases", "noop", "nofz", "pass", "fail", "known", "crash", "hang", "missed", "unclean", "fewer", "kernel", "lost", "better", "more"
		ns = 0
		for (s in st) names[++ns] = s
		for (i = 2; i <= ns; i++) for (j = i; j > 1 && names[j - 1] > names[j]; j--) { t = names[j]; names[j] = names[j - 1]; names[j - 1] = t }
		for (i = 1; i <= ns; i++) {
			s = names[i]
			printf "%-30s %6d %5d %5d %5d %6d %6d %5d %5d %6d %6d %6d %6d %6d %6d %6d\n", s, n[s], res[s, "noop"], res[s, "nofuzz"], res[s, "pass"], res[s, "fail"], res[s, "known"], cl[s, "crash"], cl[s, "hang"], cl[s, "missed-detection"], cl[s, "unclean-output"], cl[s, "fewer-files"], cl[s, "kernel-refuses"], cl[s, "content-lost"], bets[s], mores[s]
		}
		printf "%-30s %6d %5d %5d %5d %6d %6d %5d %5d %6d %6d %6d %6d %6d %6d %6d\n", "total", tot, rt["noop"], rt["nofuzz"], rt["pass"], rt["fail"], rt["known"], ct["crash"], ct["hang"], ct["missed-detection"], ct["unclean-output"], ct["fewer-files"], ct["kernel-refuses"], ct["content-lost"], bet, more
		print ""
		printf "damage xfs_repair -n saw: %d cases; check detected %d of them (%.1f%% missed)\n", real, det, real ? 100 * (real - det) / real : 0
		printf "xfs_repair'"'"'s output clean: %d cases; ours not clean in %d of them (%.1f%%)\n", tclean, ounclean, tclean ? 100 * ounclean / tclean : 0
		printf "cases failing (first class / any class): "
		for (i = 1; i <= 7; i++) printf "%s %d/%d  ", co[i], ct[co[i]], anyc[co[i]]
		print ""
		printf "better: our output clean, xfs_repair'"'"'s not: %d; more: we keep more paths: %d\n", bet, more
		print ""
		print "most frequent failing (structure, field) groups (inodes of every kind together, array indices dropped):"
		ng = 0
		for (g in grp) gs[++ng] = g
		for (i = 2; i <= ng; i++) for (j = i; j > 1 && (grp[gs[j - 1]] < grp[gs[j]] || (grp[gs[j - 1]] == grp[gs[j]] && gs[j - 1] > gs[j])); j--) { t = gs[j]; gs[j] = gs[j - 1]; gs[j - 1] = t }
		for (i = 1; i <= ng && i <= 25; i++) {
			split(gs[i], sf, "\t")
			k = ""
			for (q = 1; q <= 7; q++) if (gc[gs[i], co[q]]) k = k (k == "" ? "" : ",") co[q] "=" gc[gs[i], co[q]]
			printf "%4d  %-18s %-26s %s\n      e.g. %s\n", grp[gs[i]], sf[1], sf[2], k, substr(why[gs[i]], 1, 200)
		}
	}' "$out/matrix.tsv" > "$out/summary.txt"
	# How much of the matrix the results cover (the full run: all of it).
	if [ -f "$out/cases.tsv" ]; then
		cut -f 1 "$out/cases.tsv" | sort -u > "$out/keys.all"
		sed 1d "$out/matrix.tsv" | cut -f 1 | sort -u > "$out/keys.done"
		printf '\nmatrix coverage: %d of the %d cases of the matrix have a result\n' \
			"$(comm -12 "$out/keys.all" "$out/keys.done" | wc -l)" \
			"$(wc -l < "$out/keys.all")" >> "$out/summary.txt"
		rm -f "$out/keys.all" "$out/keys.done"
	fi
	cat "$out/summary.txt"
}

# ---------------------------------------------------------------- main
out="" images="" want="" nsample="" seed=1 shard="" jobs=1 tlimit=120 mount=0 mode=run case_line="" casefile=""
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift ;;
	--images) images=$2; shift ;;
	--structures) want=$2; shift ;;
	--sample) nsample=$2; shift ;;
	--seed) seed=$2; shift ;;
	--shard) shard=$2; shift ;;
	-j) jobs=$2; shift ;;
	--timeout) tlimit=$2; shift ;;
	--mount) mount=1 ;;
	--cases) casefile=$2; shift ;;
	--list) mode=list ;;
	--summary) mode=summary ;;
	--case) mode=case; shift; case_line=$*; break ;;
	*) echo "field-sweep.sh: unknown option $1 (see the comment at its top)" >&2; exit 2 ;;
	esac
	shift
done

if [ -n "$shard" ]; then
	sk=${shard%/*} sn=${shard#*/}
	case "$sk/$sn" in
	*[!0-9/]* | /* | */) echo "field-sweep.sh: --shard K/N takes two numbers" >&2; exit 2 ;;
	esac
	[ "$sk" -ge 1 ] && [ "$sk" -le "$sn" ] ||
		{ echo "field-sweep.sh: --shard K/N needs 1 <= K <= N" >&2; exit 2; }
fi

if [ "$mode" = case ]; then
	# A worker: the parent exported what it needs.
	out=$FSW_OUT scratch=$FSW_SCRATCH tlimit=$FSW_TIMEOUT mount=$FSW_MOUNT
	for l in $case_line; do
		run_case "$l"
	done
	exit 0
fi

out=${out:-$(mktemp -d "${TMPDIR:-/tmp}/xfz-fields.XXXXXX")}
mkdir -p "$out/cases" "$out/base"
if [ "$mode" = summary ]; then
	summarize
	exit 0
fi
sweep_need "$XFS_DB" "$XFS_REPAIR" zstd timeout
sweep_xfsrecon
[ -n "$casefile" ] && images=$(cut -f 2 "$casefile" | sort -u)
[ -n "$images" ] || images=$(cd "$srcdir/corpus/images" && ls *.img.zst | sed 's/\.img\.zst$//')
# shellcheck disable=SC2086
sweep_base_images "$out/base" $images
# The paths of each clean image, against which outputs are counted.
for image in $images; do
	[ -f "$out/base/$image.paths" ] ||
		"$XFSRECON" ls -R "$out/base/$image.img" / 2> /dev/null | sort -u > "$out/base/$image.paths"
done
[ "$mount" = 1 ] && [ "$(id -u)" != 0 ] && { echo "field-sweep.sh: --mount needs root" >&2; exit 2; }

# The case list is made once per choice of images and structures.
if [ -n "$casefile" ]; then
	cp "$casefile" "$out/cases.tsv"
elif [ ! -f "$out/cases.tsv" ] || [ "$(cat "$out/cases.opts" 2> /dev/null)" != "$images|$want" ]; then
	make_cases
	printf '%s\n' "$images|$want" > "$out/cases.opts"
fi
if [ -n "$nsample" ]; then
	sample "$nsample" "$seed" > "$out/run.tsv"
else
	cp "$out/cases.tsv" "$out/run.tsv"
fi
if [ -n "$shard" ]; then
	# by a hash of the key, so that every part holds every verb and CRC
	# mode of every structure (a stride through the list would not)
	awk -F '\t' -v k="$sk" -v n="$sn" '
	BEGIN { for (i = 32; i < 127; i++) ord[sprintf("%c", i)] = i }
	{
		x = 5381
		for (i = 1; i <= length($1); i++)
			x = (x * 33 + ord[substr($1, i, 1)]) % 2147483647
		if (x % n == k - 1) print
	}' "$out/run.tsv" > "$out/run.tsv.tmp"
	mv "$out/run.tsv.tmp" "$out/run.tsv"
fi
echo "field sweep: $(wc -l < "$out/cases.tsv") cases in the matrix, running $(wc -l < "$out/run.tsv")${shard:+ (shard $shard)} (program $XFSRECON, $jobs jobs), results in $out"
[ "$mode" = list ] && exit 0

# Scratch copies live in /dev/shm when it is writable: three per worker.
scratch=$out/scratch
[ -d /dev/shm ] && [ -w /dev/shm ] && scratch=$(mktemp -d /dev/shm/xfz-fields.XXXXXX)
mkdir -p "$scratch"
FSW_OUT=$out FSW_SCRATCH=$scratch FSW_TIMEOUT=$tlimit FSW_MOUNT=$mount
export FSW_OUT FSW_SCRATCH FSW_TIMEOUT FSW_MOUNT XFSRECON
n=$(wc -l < "$out/run.tsv")
seq 1 "$n" | xargs -n 10 -P "$jobs" "$self" --case
rm -rf "$scratch"
echo
summarize
awk -F '\t' 'NR > 1 && $7 == "fail" { bad = 1 } END { exit bad }' "$out/matrix.tsv"
