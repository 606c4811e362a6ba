#!/bin/sh
# tests/repair/repair_cases.sh - judge `xfsrecon repair` on corrupted images.
#
# For every case of tests/repair/cases.txt (the table's header says what a
# case is), tests/repair/make-case.sh makes the corrupted image C from a
# corpus image and proves it real (xfs_repair -n exits non-zero).  Then:
#
#   xfsrecon: `xfsrecon repair C -o OUT --report R.xml` must
#     - finish within 30 s with an exit status below 124, and exit 1
#       ("problems found and repaired");
#     - leave C unchanged (compared byte for byte with a copy made before);
#     - write a report that validates against doc/repair-report.xsd (when
#       that file and xmllint exist), whose input sha256 is C's and output
#       sha256 is OUT's, whose result is "repaired", whose summary counts
#       agree with the lists, in which every finding an action answers
#       exists and every error finding is answered;
#     - produce an OUT that `xfs_repair -n` and `xfsrecon check` find clean
#       (exit 0) and that the kernel mounts read-only;
#     - list as orphans exactly what OUT's /lost+found holds (names and
#       inode numbers);
#     - keep at least as many files at their original paths as xfs_repair;
#       for a case flagged `reach`, also at least as many files reachable
#       (at their paths or in lost+found); for a case flagged `whole`, every
#       file at its path with its content (none in lost+found, none lost).
#   xfs_repair, for comparison: plain `xfs_repair` on another copy of C
#     (again with -L when it asks for the log to be zeroed), judged as clean
#     or not the same way (xfs_repair -n, xfsrecon check, mount).
#
# Files: the kernel mount of each clean corpus image (once per run) gives
# the SHA-256 of every regular file and the target of every symlink, by
# path.  In a repaired image each such path is counted as preserved (same
# path, same content), in lost+found (not preserved, and its content is
# under /lost+found: a file there is credited to at most one lost path of
# the same content) or lost.  Images the kernel cannot mount (V4) and runs
# without root skip the mount and file checks, saying so.
#
# Cases flagged `todo` may fail: they print as TODO, not FAIL; a todo case
# that passes prints XPASS so that the flag can go.  A case that cannot be
# made or is not real fails whatever its flags (the table is wrong).  At the
# end a table sums up both tools: cases, clean outputs, files preserved, in
# lost+found, lost.
#
# Environment:
#   REPAIR_JOBS    parallel workers (default 2)
#   REPAIR_CASES   only the cases whose name matches one of these
#                  space-separated shell patterns (default: all)
#   REPAIR_CMD     the repair command, called as `CMD IMAGE -o OUT --report
#                  FILE` (default "$XFSRECON repair"); `xfs_repair` means
#                  tests/repair/standin-xfs_repair.sh, xfs_repair dressed as
#                  xfsrecon, which shows the judge passing a good repair
#                  (and, with its STANDIN_MODE, failing bad ones)
#   REPAIR_STRICT  1: todo flags are ignored (every miss is a FAIL)
#   REPAIR_KEEP    a directory: the corrupted image, output and report of
#                  every case that does not pass are copied there
# Images and scratch copies live in /dev/shm when it is writable.
#
# Cost: besides the repair itself, a case takes about 3 s of CPU (making it,
# two hashes of the 400 MB image, xfs_repair, two mounts with every file
# hashed), so 145 cases take about 4 minutes on 2 cores with a fast repair.
# The repair's own time adds to that: `xfsrecon repair` hashes its input and
# its output in full, which in an ASan+UBSan build is most of its 10-15 s.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_DB"
need_tool "$XFS_REPAIR"
export XFS_DB XFS_REPAIR
XMLLINT=${XMLLINT:-}
here=$top_srcdir/tests/repair
table=$here/cases.txt
xsd=$top_srcdir/doc/repair-report.xsd
jobs=${REPAIR_JOBS:-2}
strict=${REPAIR_STRICT:-0}
case "${REPAIR_CMD:-}" in
"") repair_cmd='"$XFSRECON" repair' ;;
xfs_repair) repair_cmd="sh '$here/standin-xfs_repair.sh'" ;;
*) repair_cmd=$REPAIR_CMD ;;
esac
t_start=$(date +%s)

# ------------------------------------------------------------ the table
grep -v -e '^[ 	]*#' -e '^[ 	]*$' "$table" > "$TMPD/all" || fail "no cases in $table"
bad=$(awk -F '|' 'NF != 5 { print NR ": " $0 }' "$TMPD/all" | head -n 3)
[ -z "$bad" ] || fail "case table rows must have 5 fields: $bad"
bad=$(cut -d '|' -f 1 "$TMPD/all" | sort | uniq -d | head -n 3 | tr '\n' ' ')
[ -z "$bad" ] || fail "case names used twice: $bad"
bad=$(cut -d '|' -f 1 "$TMPD/all" | grep -v -x '[a-z0-9][a-z0-9.-]*' | head -n 3 | tr '\n' ' ')
[ -z "$bad" ] || fail "case names must be [a-z0-9.-]: $bad"
bad=$(awk -F '|' '{ n = split($4, w, / +/)
	for (i = 1; i <= n; i++) if (w[i] != "" && w[i] != "todo" && w[i] != "silent" && w[i] != "reach" && w[i] != "whole") print $1 ": " w[i]
	if ((" " $4 " ") ~ / silent / && $5 ~ /^[ \t]*$/) print $1 ": silent without a reason" }' "$TMPD/all" | head -n 3)
[ -z "$bad" ] || fail "bad flags in the case table: $bad"
for name in $(cut -d '|' -f 2 "$TMPD/all" | sort -u); do
	[ -f "$top_srcdir/corpus/images/$name.img.zst" ] || fail "corpus image $name (in the case table) is missing"
done
if [ -n "${REPAIR_CASES:-}" ]; then
	while IFS='|' read -r name rest; do
		for p in $REPAIR_CASES; do
			# shellcheck disable=SC2254
			case $name in $p) printf '%s|%s\n' "$name" "$rest"; break ;; esac
		done
	done < "$TMPD/all" > "$TMPD/cases"
else
	cp "$TMPD/all" "$TMPD/cases"
fi
ncase=$(wc -l < "$TMPD/cases")
[ "$ncase" -gt 0 ] || skip "no case matches REPAIR_CASES=$REPAIR_CASES"

# ------------------------------------------------------------ scratch space
SCR=$TMPD
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	SCR=$(mktemp -d /dev/shm/xfsrecon-repair_cases.XXXXXX) || SCR=$TMPD
fi
pids=""
cleanup() {
	[ -z "$pids" ] || kill $pids 2> /dev/null
	[ -z "$pids" ] || wait 2> /dev/null
	for m in "$SCR"/m.*; do
		[ -d "$m" ] && umount "$m" 2> /dev/null
	done
	[ "$SCR" = "$TMPD" ] || rm -rf "$SCR"
}
trap 'rc=$?; cleanup; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT
# a killed run must not leave its images in memory or mounted
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

# ------------------------------------------------------------ helpers
# sha_of FILE: SHA-256 in hex (openssl is about four times faster)
if command -v openssl > /dev/null 2>&1; then
	sha_of() { openssl dgst -sha256 -r "$1" 2> /dev/null | cut -c 1-64; }
else
	sha_of() { sha256sum "$1" 2> /dev/null | cut -c 1-64; }
fi

# base_image NAME: the raw image of corpus/images/NAME.img.zst in $SCR
base_image() {
	[ -f "$SCR/$1.img" ] || zstd -q -d -f -o "$SCR/$1.img" "$top_srcdir/corpus/images/$1.img.zst" || return 1
	printf '%s\n' "$SCR/$1.img"
}

# mount_ro IMG DIR: the kernel mounts IMG read-only (nouuid: the workers
# mount copies of one filesystem at the same time)
mount_ro() {
	mkdir -p "$2" && run_limited 60 mount -o loop,ro,nouuid "$1" "$2" < /dev/null > /dev/null 2>&1
}
unmount() {
	run_limited 60 umount "$1" > /dev/null 2>&1
}

# tree_sums DIR: one line per regular file and symlink below DIR,
# "HASH<TAB>PATH": the file's SHA-256, or "L:" and the symlink's target.
# Paths and targets escape backslash, tab and newline.  Hard links are
# read once.  A file that cannot be read gets the hash "unreadable".
tree_sums() {
	(cd "$1" && run_limited 120 find . -type f -printf '%i\0%P\0') > "$2.f" 2> /dev/null
	(cd "$1" && run_limited 120 find . -type l -printf '%P\0%l\0') > "$2.l" 2> /dev/null
	awk 'BEGIN { RS = "\0"; ORS = "\0" } NR % 2 == 1 { ino = $0; next }
		!(ino in seen) { seen[ino] = 1; print }' "$2.f" > "$2.u"
	(cd "$1" && run_limited 120 xargs -0 -r sha256sum -z -- < "$2.u") > "$2.h" 2> /dev/null
	awk 'function esc(s) { gsub(/\\/, "\\\\", s); gsub(/\t/, "\\t", s); gsub(/\n/, "\\n", s); return s }
		BEGIN { RS = "\0" }
		FILENAME == ARGV[1] { hash[substr($0, 67)] = substr($0, 1, 64); next }
		FILENAME == ARGV[2] {
			if (FNR % 2 == 1) { ino = $0; next }
			if (!(ino in ih)) ih[ino] = ($0 in hash) ? hash[$0] : "unreadable"
			print ih[ino] "\t" esc($0)
			next
		}
		FNR % 2 == 1 { path = $0; next }
		{ print "L:" esc($0) "\t" esc(path) }' "$2.h" "$2.f" "$2.l"
	rm -f "$2.f" "$2.l" "$2.u" "$2.h"
}

# count_files ORIG NOW: "preserved in-lost+found lost" of ORIG's paths in NOW
count_files() {
	awk -F '\t' 'FILENAME == ARGV[1] { oh[++n] = $1; op[n] = $2; next }
		index($2, "lost+found/") == 1 { lf[$1]++; next }
		{ at[$2] = $1 }
		END {
			for (i = 1; i <= n; i++) {
				if ((op[i] in at) && at[op[i]] == oh[i]) pres++
				else need[oh[i]]++
			}
			for (h in need) { m = need[h]; if (lf[h] + 0 < m) m = lf[h] + 0; found += m }
			printf "%d %d %d\n", pres, found, n - pres - found
		}' "$1" "$2"
}

# xml_attr FILE ELEMENT ATTR: the value of ATTR of every ELEMENT, one a
# line (an empty line where the element lacks it); entities left as written.
# Stops at output-check (the check of the output has findings of its own).
xml_attr() {
	awk -v el="$2" -v at="$3" 'BEGIN { RS = "<" }
		/^output-check[ \t\n\/>]/ { exit }
		substr($0, 1, length(el)) == el && substr($0, length(el) + 1, 1) ~ /[ \t\n\/>]/ {
			if (match($0, "[ \t\n]" at "=\"[^\"]*\""))
				print substr($0, RSTART + length(at) + 3, RLENGTH - length(at) - 4)
			else
				print ""
		}' "$1"
}

# check_report R INPUT OUT EXIT: what is wrong with report R (written by a
# repair of INPUT into OUT that exited EXIT), "; "-separated
check_report() {
	_r=$1
	if [ ! -s "$_r" ]; then
		printf 'no report; '
		return
	fi
	if [ -n "$XMLLINT" ] && [ -f "$xsd" ]; then
		"$XMLLINT" --noout --schema "$xsd" "$_r" > "$_r.lint" 2>&1 ||
			printf 'the report does not validate against doc/repair-report.xsd: %s; ' \
				"$(grep -v 'fails to validate' "$_r.lint" | head -n 2 | tr '\n' ' ')"
	elif [ -n "$XMLLINT" ]; then
		"$XMLLINT" --noout "$_r" > /dev/null 2>&1 || printf 'the report is not well-formed XML; '
	fi
	_s=$(sha_of "$2")
	[ "$(xml_attr "$_r" input sha256)" = "$_s" ] ||
		printf 'report input sha256 %s is not the image'"'"'s %s; ' "$(xml_attr "$_r" input sha256)" "$_s"
	if [ -f "$3" ]; then
		_s=$(sha_of "$3")
		[ "$(xml_attr "$_r" output sha256)" = "$_s" ] ||
			printf 'report output sha256 %s is not the output'"'"'s %s; ' "$(xml_attr "$_r" output sha256)" "$_s"
	fi
	case $4 in
	0) _want=clean ;;
	1) _want=repaired ;;
	4) _want="incomplete refused" ;;
	*) _want="" ;;
	esac
	_res=$(xml_attr "$_r" summary result)
	case " $_want " in
	"  " | *" $_res "*) ;;
	*) printf 'report result is "%s" after exit status %s; ' "$_res" "$4" ;;
	esac
	for _e in finding:findings action:actions change:changes orphan:orphans; do
		_n=$(xml_attr "$_r" "${_e%%:*}" "" | wc -l)
		_c=$(xml_attr "$_r" summary "${_e#*:}")
		[ "$_n" = "$_c" ] || printf 'report summary says %s="%s" but lists %s; ' "${_e#*:}" "$_c" "$_n"
	done
	# every answered finding exists; after "repaired" every error is answered.
	# A finding's identifier (F1, ...) is its ref (the check report's id
	# attribute is the finding's name there), or its id when it has no ref.
	xml_attr "$_r" finding ref > "$_r.ref"
	xml_attr "$_r" finding id | paste -d ' ' "$_r.ref" - | awk '{ print ($1 ~ /^F[0-9]+$/) ? $1 : $2 }' > "$_r.fid"
	sort -u "$_r.fid" > "$_r.ids"
	xml_attr "$_r" action answers | tr ' ' '\n' | grep . | sort -u > "$_r.ans"
	_x=$(comm -13 "$_r.ids" "$_r.ans" | head -n 3 | tr '\n' ' ')
	[ -z "$_x" ] || printf 'actions answer findings that do not exist: %s; ' "$_x"
	if [ "$_res" = repaired ]; then
		xml_attr "$_r" finding severity > "$_r.fsev"
		_x=$(paste -d ' ' "$_r.fid" "$_r.fsev" | awk '$2 == "error" { print $1 }' | sort -u |
			comm -23 - "$_r.ans" | head -n 5 | tr '\n' ' ')
		[ -z "$_x" ] || printf 'result "repaired" but no action answers error findings %s; ' "$_x"
	fi
	rm -f "$_r.lint" "$_r.ids" "$_r.ans" "$_r.ref" "$_r.fid" "$_r.fsev"
}

# orphans_vs_lf R MNT: differences between the report's orphans and what
# MNT/lost+found holds, as "path ino" lines
orphans_vs_lf() {
	xml_attr "$1" orphan new-path > "$1.p"
	xml_attr "$1" orphan ino > "$1.i"
	paste -d ' ' "$1.p" "$1.i" | sed 's/&amp;/\&/g' | LC_ALL=C sort > "$1.o"
	if [ -d "$2/lost+found" ]; then
		(cd "$2/lost+found" && find . -mindepth 1 -maxdepth 1 -printf '/lost+found/%P %i\n') | LC_ALL=C sort
	fi > "$1.k"
	comm -3 "$1.o" "$1.k" | sed 's/^\t/in lost+found only: /; s/^\([^i]\)/in the report only: \1/' | head -n 4 | tr '\n' ';'
	rm -f "$1.p" "$1.i" "$1.o" "$1.k"
}

# judge_image W IMG LABEL ORIG: is the repaired IMG clean; its file counts.
# Sets j_clean (yes/no), j_counts ("p l o" or "- - -"), j_why (what is not
# clean).  With ORIG = "-" the image is not mounted.  Leaves MNT's sums in
# $SCR/sums.W and, when mounted, calls after_mount W MNT before unmounting.
judge_image() {
	_w=$1 _img=$2 _orig=$4
	j_clean=yes j_why="" j_counts="- - -"
	run_limited 120 "$XFS_REPAIR" -n "$_img" < /dev/null > "$SCR/rn.$_w" 2>&1
	_rc=$?
	[ $_rc -eq 0 ] || { j_clean=no; j_why="${j_why}xfs_repair -n exits $_rc: $(grep -v -e '^Phase' -e '^ *- ' -e 'host filesystem' -e 'Repair may fail' -e '^the image' "$SCR/rn.$_w" | head -n 2 | tr '\n' ' '); "; }
	run_limited 120 "$XFSRECON" check -q --no-hash "$_img" < /dev/null > "$SCR/ck.$_w" 2>&1
	_rc=$?
	[ $_rc -eq 0 ] || { j_clean=no; j_why="${j_why}xfsrecon check exits $_rc: $(head -n 2 "$SCR/ck.$_w" | tr '\n' ' '); "; }
	[ "$_orig" != - ] || return 0
	_m=$SCR/m.$_w
	if mount_ro "$_img" "$_m"; then
		tree_sums "$_m" "$SCR/sums.$_w" > "$SCR/sums.$_w"
		j_counts=$(count_files "$_orig" "$SCR/sums.$_w")
		after_mount "$_w" "$_m"
		unmount "$_m" || j_why="${j_why}cannot unmount; "
	else
		j_clean=no
		j_why="${j_why}the kernel refuses to mount it; "
		j_counts=$(count_files "$_orig" /dev/null)
		after_mount "$_w" ""
	fi
}

# ------------------------------------------------------------ one case
# run_case W N NAME IMAGE FLAGS: prints one result line,
# N TAB STATUS TAB NAME TAB x-clean x-counts TAB r-clean r-counts TAB seconds TAB messages
run_case() {
	w=$1 n=$2 name=$3 image=$4 flags=$5
	t0=$(date +%s)
	todo=0
	case " $flags " in *" todo "*) [ "$strict" = 1 ] || todo=1 ;; esac
	c=$SCR/c.$w.img x=$SCR/x.$w.img o=$SCR/o.$w.img r=$SCR/r.$w.xml
	rm -f "$c" "$x" "$o" "$r"
	base=$(base_image "$image") || { printf '%s\tFAIL\t%s\t-\t-\t0\tcannot decompress %s\n' "$n" "$name" "$image"; return; }
	if ! sh "$here/make-case.sh" -t "$table" -v "$name" "$base" "$c" < /dev/null > "$SCR/mk.$w" 2>&1; then
		printf '%s\tFAIL\t%s\t-\t-\t0\tthe case is broken: %s\n' "$n" "$name" "$(head -n 2 "$SCR/mk.$w" | tr '\n' ' ')"
		return
	fi
	orig=-
	[ -f "$SCR/$image.orig" ] && orig=$SCR/$image.orig
	cp "$c" "$x" || { printf '%s\tFAIL\t%s\t-\t-\t0\tcannot copy the image\n' "$n" "$name"; return; }

	# xfsrecon (or the command standing in for it)
	problems=""
	eval "run_limited 30 $repair_cmd \"\$c\" -o \"\$o\" --report \"\$r\"" < /dev/null > "$SCR/rp.$w" 2>&1
	rc=$?
	cmp -s "$c" "$x" || problems="${problems}the input image changed; "
	x_clean=no x_counts="- - -"
	[ "$orig" = - ] || x_counts=$(count_files "$orig" /dev/null)
	if [ $rc -ge 124 ]; then
		problems="${problems}the repair did not finish (exit status $rc$([ $rc -eq 124 ] && echo ': timeout')): $(tail -n 2 "$SCR/rp.$w" | tr '\n' ' '); "
	else
		[ $rc -eq 1 ] || problems="${problems}exit status $rc (expected 1): $(tail -n 2 "$SCR/rp.$w" | tr '\n' ' '); "
		# the input's hash from the copy, which is still as the input was
		problems="$problems$(check_report "$r" "$x" "$o" $rc)"
		if [ -f "$o" ]; then
			after_mount() {
				if [ -n "$2" ] && [ -s "$r" ]; then
					_d=$(orphans_vs_lf "$r" "$2")
					[ -z "$_d" ] || problems="${problems}orphans in the report and /lost+found differ: $_d "
				fi
			}
			judge_image "$w" "$o" xfsrecon "$orig"
			x_clean=$j_clean x_counts=$j_counts
			[ -z "$j_why" ] || problems="${problems}the output is not clean: $j_why"
		else
			problems="${problems}no output image; "
		fi
	fi

	# xfs_repair on its own copy, for comparison
	run_limited 120 "$XFS_REPAIR" "$x" < /dev/null > "$SCR/xr.$w" 2>&1
	xrc=$?
	if [ $xrc -eq 2 ] && grep -q -e '-L option' "$SCR/xr.$w"; then
		run_limited 120 "$XFS_REPAIR" -L "$x" < /dev/null > "$SCR/xr.$w" 2>&1
		xrc=$?
	fi
	after_mount() { :; }
	judge_image "$w" "$x" xfs_repair "$orig"
	r_clean=$j_clean r_counts=$j_counts
	[ $xrc -eq 0 ] || r_clean=no

	# xfsrecon keeps at least as many files where they were as xfs_repair
	set -- $x_counts $r_counts
	if [ "$1" != - ] && [ "$4" != - ] && [ "$1" -lt "$4" ]; then
		problems="${problems}$1 files preserved at their paths, xfs_repair preserves $4; "
	fi
	# whole: every file kept at its path with its content (damage a repair
	# can undo entirely); needs the counts, so the kernel's mount
	case " $flags " in
	*" whole "*)
		if [ "$1" = - ]; then
			problems="${problems}no file counts to prove every file kept (a flagged whole case needs a mountable image); "
		elif [ "$2" -ne 0 ] || [ "$3" -ne 0 ]; then
			problems="${problems}not every file kept: $2 in lost+found, $3 lost; "
		fi
		;;
	esac
	# reach: as many files reachable (at their paths or in lost+found)
	case " $flags " in
	*" reach "*)
		if [ "$1" != - ] && [ "$4" != - ] && [ $(($1 + $2)) -lt $(($4 + $5)) ]; then
			problems="${problems}$(($1 + $2)) files reachable, xfs_repair keeps $(($4 + $5)); "
		fi
		;;
	esac
	if [ -z "$problems" ]; then
		status=PASS
		[ $todo -eq 1 ] && status=XPASS
	else
		status=FAIL
		[ $todo -eq 1 ] && status=TODO
		if [ -n "${REPAIR_KEEP:-}" ]; then
			mkdir -p "$REPAIR_KEEP" && cp "$c" "$REPAIR_KEEP/$name.corrupt.img" &&
				{ [ ! -f "$o" ] || cp "$o" "$REPAIR_KEEP/$name.out.img"; } &&
				{ [ ! -f "$r" ] || cp "$r" "$REPAIR_KEEP/$name.report.xml"; } &&
				cp "$SCR/rp.$w" "$REPAIR_KEEP/$name.log"
		fi
	fi
	printf '%s\t%s\t%s\t%s %s\t%s %s\t%s\t%s\n' "$n" "$status" "$name" "$x_clean" "$x_counts" \
		"$r_clean" "$r_counts" $(($(date +%s) - t0)) "$problems"
	rm -f "$c" "$x" "$o" "$r"
}

# worker W JOBS: the cases whose number is W modulo JOBS
worker() {
	_n=0
	while IFS='|' read -r name image cmds flags note; do
		_n=$((_n + 1))
		[ $((_n % $2)) -eq "$1" ] || continue
		run_case "$1" "$_n" "$name" "$image" "$flags"
	done < "$TMPD/cases" > "$TMPD/out.$1"
}

# ------------------------------------------------------------ the run
# Every image once, then each clean original mounted once for its files.
can_mount=1
[ "$(id -u)" -eq 0 ] || { can_mount=0; echo "note: not root: the mount and file checks are skipped"; }
for name in $(cut -d '|' -f 2 "$TMPD/cases" | sort -u); do
	base=$(base_image "$name") || fail "cannot decompress $name"
	[ $can_mount -eq 1 ] || continue
	cp "$base" "$SCR/orig.img" || fail "cannot copy $name"
	if mount_ro "$SCR/orig.img" "$SCR/m.orig"; then
		tree_sums "$SCR/m.orig" "$SCR/$name.sums" > "$SCR/$name.orig"
		unmount "$SCR/m.orig" || fail "cannot unmount the clean $name"
		grep -q unreadable "$SCR/$name.orig" && fail "the clean $name has unreadable files"
		echo "note: $name: $(wc -l < "$SCR/$name.orig") files and symlinks in the clean image"
	else
		echo "note: the kernel does not mount $name here: the mount and file checks are skipped for its cases"
	fi
	rm -f "$SCR/orig.img"
done

case "${REPAIR_CMD:-}" in
"") echo "repair command: xfsrecon repair" ;;
*) echo "repair command: $repair_cmd${STANDIN_MODE:+ (STANDIN_MODE=$STANDIN_MODE)}" ;;
esac
w=0
while [ $w -lt "$jobs" ]; do
	worker $w "$jobs" &
	pids="$pids $!"
	w=$((w + 1))
done
for p in $pids; do
	wait "$p" || fail "a worker stopped early (exit status $?)"
done
pids=""

sort -n -k1,1 "$TMPD"/out.* > "$TMPD/results"
[ "$(wc -l < "$TMPD/results")" -eq "$ncase" ] || fail "$(wc -l < "$TMPD/results") results for $ncase cases"
# one line a case: STATUS name: xfsrecon (clean, files p/l/o); xfs_repair (...); what failed
awk -F '\t' '{
	split($4, x, " "); split($5, r, " ")
	printf "%-5s %s (%ss): xfsrecon %s %s/%s/%s, xfs_repair %s %s/%s/%s%s\n", $2, $3, $6,
		(x[1] == "yes" ? "clean" : "NOT-CLEAN"), x[2], x[3], x[4],
		(r[1] == "yes" ? "clean" : "NOT-CLEAN"), r[2], r[3], r[4], ($7 == "" ? "" : ": " $7)
}' "$TMPD/results" > "$TMPD/lines"
cat "$TMPD/lines"

echo
echo "files per case: preserved at their paths / only in lost+found / lost"
awk -F '\t' '{
	split($4, x, " "); split($5, r, " ")
	if (x[1] == "yes") xc++
	if (r[1] == "yes") rc++
	if (x[2] != "-") { xm++; xp += x[2]; xl += x[3]; xo += x[4] }
	if (r[2] != "-") { rm++; rp += r[2]; rl += r[3]; ro += r[4] }
} END {
	printf "%-16s %6s %7s %8s %11s %12s %9s\n", "", "cases", "clean", "counted", "preserved", "lost+found", "lost"
	printf "%-16s %6d %7d %8d %11d %12d %9d\n", "xfsrecon repair", NR, xc, xm, xp, xl, xo
	printf "%-16s %6d %7d %8d %11d %12d %9d\n", "xfs_repair", NR, rc, rm, rp, rl, ro
}' "$TMPD/results"
npass=$(grep -c '^PASS' "$TMPD/lines")
nfail=$(grep -c '^FAIL' "$TMPD/lines")
ntodo=$(grep -c '^TODO' "$TMPD/lines")
nxpass=$(grep -c '^XPASS' "$TMPD/lines")
echo "clean: xfs_repair -n and xfsrecon check exit 0 and (where possible) the kernel mounts it;"
echo "counted: cases whose files were counted (the kernel mounts the clean image; no output = all lost)"
echo "$ncase repair cases in $(($(date +%s) - t_start)) s: $npass pass, $nfail fail, $ntodo todo, $nxpass xpass (todo flags that can go)"
if [ "$nfail" -ne 0 ]; then
	grep '^FAIL' "$TMPD/lines" >&2
	exit 1
fi
exit 0
