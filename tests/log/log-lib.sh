# tests/log/log-lib.sh - shared steps of the log replay tests (sourced after
# tests/lib.sh).
#
# A dirty image (corpus/recipes/dirty-log.sh) is judged against the kernel:
# a copy is mounted and unmounted (the kernel replays its log), and what the
# kernel then shows is the expected tree.  Views of a tree, each a sorted file
# under a prefix:
#   P.paths   every path, NUL-terminated
#   P.long    "inode type mode nlink uid gid size path", NUL-terminated
#   P.meta    "path|type|mode|uid|gid|size|symlink target|mtime" per line
#   P.sums    SHA-256 of every regular file
#   P.xattrs  every extended attribute (all namespaces), values in hex
# kernel_view lists a mounted image; our_view asks xfsrecon about an image
# (ls -R, ls -R -l, extract onto a scratch XFS filesystem, cat).  Differences
# are collected as lines "CASE: what: first difference" in $MISMATCHES.
#
# LOG_XFSRECON, when set, is the command run as xfsrecon (word-split; for
# tests/log/standin-xfsrecon.sh, which shows that the harness passes a tool
# that replays as the kernel does).
#
# Exit 99 (a hard error even where the test is expected to fail) means the
# harness could not do its part: no image made, the kernel could not mount.

need_tool zstd
need_tool xfs_io
XFS_LOGPRINT=${XFS_LOGPRINT:-xfs_logprint}
need_tool "$XFS_LOGPRINT"
need_tool mkfs.xfs
need_tool sha256sum
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_REPAIR"
need_tool "$XFS_DB"
[ "$(id -u)" -eq 0 ] || skip "mounting needs root"
XR=${LOG_XFSRECON:-$XFSRECON}

# Scratch space: /dev/shm when writable (the images are sparse).
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	SCR=$(mktemp -d "/dev/shm/xfsrecon-$test_name.XXXXXX") || SCR="$TMPD"
else
	SCR="$TMPD"
fi
mnt="$SCR/mnt"
exmnt="$SCR/ex"
mkdir -p "$mnt" "$exmnt" "$SCR/imgs"
MISMATCHES="$SCR/mismatches"
: > "$MISMATCHES"
trap 'rc=$?; umount "$mnt" 2>/dev/null; umount "$exmnt" 2>/dev/null
	[ "$SCR" = "$TMPD" ] || rm -rf "$SCR"
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

hard_error() {
	echo "ERROR: $*" >&2
	# what the scratch space had left: a full one explains many refusals
	df -h "$SCR" 2> /dev/null | sed 's/^/ERROR: /' >&2
	exit 99
}

# mismatch CASE WHAT DETAIL: note one difference.
mismatch() {
	printf '%s: %s: %s\n' "$1" "$2" "$3" | cat -v >> "$MISMATCHES"
}

# The extract target: a scratch XFS filesystem (the host's may not hold what
# XFS holds, 5 KiB attribute values for one).
truncate -s 320M "$SCR/ex.img"
mkfs.xfs -q -f "$SCR/ex.img" || hard_error "mkfs.xfs of the extract target failed"
mount -o loop "$SCR/ex.img" "$exmnt" 2> "$SCR/mount.err" ||
	skip "cannot loop-mount here: $(cat "$SCR/mount.err")"

# make_dirty WORKLOAD...: the recipe's images in $SCR/imgs.
make_dirty() {
	TMPDIR="$SCR" sh "$top_srcdir/corpus/recipes/dirty-log.sh" "$SCR/imgs" "$@" > "$SCR/recipe.out" 2>&1 || {
		cat "$SCR/recipe.out" >&2
		hard_error "the recipe could not make $*"
	}
	sed 's/^/recipe: /' "$SCR/recipe.out"
}

# tree_* DIR: the views of a directory tree (see the header).
tree_paths() { (cd "$1" && find . -mindepth 1 -printf '/%P\0' | LC_ALL=C sort -z); }
tree_long() { (cd "$1" && find . -mindepth 1 -printf '%i %y %m %n %U %G %s /%P\0' | LC_ALL=C sort -z); }
tree_meta() {
	(cd "$1" && find . -mindepth 1 -printf '%P|%y|%m|%U|%G|%s|%l|%T@\n' |
		awk -F'|' 'BEGIN { OFS = "|" } $2 == "d" { $6 = "-" } { print }' | LC_ALL=C sort)
}
tree_sums() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum); }
tree_xattrs() {
	command -v getfattr > /dev/null 2>&1 || return 0
	(cd "$1" && find . -mindepth 1 \( -type f -o -type d \) -print0 | LC_ALL=C sort -z |
		xargs -0 -r getfattr --absolute-names -h -d -m - -e hex 2> /dev/null)
}

# unmount_mnt: unmount $mnt; a mount another process briefly holds (a
# scanner, a parallel test's sync) gets four more tries, a second apart.
unmount_mnt() {
	_n=0
	until umount "$mnt" 2> "$SCR/umount.err"; do
		_n=$((_n + 1))
		[ $_n -lt 5 ] || hard_error "umount failed: $(cat "$SCR/umount.err")"
		sleep 1
	done
}

# kernel_replay DIRTY COPY: COPY is DIRTY after the kernel replayed its log
# (a read-write mount and unmount).  Returns 1 if the kernel refuses it.
kernel_replay() {
	cp --sparse=always "$1" "$2" || hard_error "cannot copy $1"
	mount -o loop "$2" "$mnt" 2> "$SCR/mount.err" || return 1
	unmount_mnt
}

# kernel_view IMAGE PREFIX: the views of IMAGE as the kernel mounts it
# read-only.  Returns 1 if the kernel refuses it.
kernel_view() {
	mount -o ro,loop "$1" "$mnt" 2> "$SCR/mount.err" || return 1
	tree_paths "$mnt" > "$2.paths"
	tree_long "$mnt" > "$2.long"
	tree_meta "$mnt" > "$2.meta"
	tree_sums "$mnt" > "$2.sums"
	tree_xattrs "$mnt" > "$2.xattrs"
	unmount_mnt
}

# our_view IMAGE PREFIX: the same views from xfsrecon: ls -R, ls -R -l, and
# extract (meta, sums, xattrs).  Failures are noted as mismatches of CASE
# (the variable case).
our_view() {
	$XR ls -R -0 "$1" / > "$SCR/ls.out" 2> "$SCR/err" ||
		mismatch "$case" "ls -R" "exit status $? ($(head -1 "$SCR/err"))"
	LC_ALL=C sort -z < "$SCR/ls.out" > "$2.paths"
	$XR ls -R -l -0 "$1" / > "$SCR/ls.out" 2> "$SCR/err" ||
		mismatch "$case" "ls -R -l" "exit status $? ($(head -1 "$SCR/err"))"
	# "ino tmode nlink uid gid size date time path" -> "ino type mode nlink uid gid size path"
	awk 'BEGIN { RS = "\0"; ORS = "\0" } {
		t = substr($2, 1, 1); m = substr($2, 2); sub(/^0+/, "", m)
		if (m == "") m = "0"
		y = (t == "-") ? "f" : t
		p = $0
		sub(/^ *[0-9]+ [^ ]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ [^ ]+ [^ ]+ /, "", p)
		print $1 " " y " " m " " $3 " " $4 " " $5 " " $6 " " p
	}' "$SCR/ls.out" | LC_ALL=C sort -z > "$2.long"
	rm -rf "$exmnt/t"
	mkdir "$exmnt/t"
	$XR extract -q --same-owner --preserve-privileges "$1" / -C "$exmnt/t" > /dev/null 2> "$SCR/err" ||
		mismatch "$case" "extract" "exit status $? ($(head -1 "$SCR/err"))"
	tree_meta "$exmnt/t" > "$2.meta"
	tree_sums "$exmnt/t" > "$2.sums"
	tree_xattrs "$exmnt/t" > "$2.xattrs"
	rm -rf "$exmnt/t"
}

# nuldiff A B: the first difference of two NUL-separated lists, one line
nuldiff() {
	tr '\0' '\n' < "$1" > "$SCR/nd.a"
	tr '\0' '\n' < "$2" > "$SCR/nd.b"
	diff "$SCR/nd.a" "$SCR/nd.b" | grep '^[<>]' | head -2 | tr '\n' ' '
}

# compare_views WHO EXPECTED-PREFIX GOT-PREFIX: a mismatch of $case for each
# view that differs.
compare_views() {
	for v in paths long; do
		cmp -s "$2.$v" "$3.$v" || mismatch "$case" "$1: $v" "$(nuldiff "$2.$v" "$3.$v")"
	done
	for v in meta sums xattrs; do
		diff "$2.$v" "$3.$v" > "$SCR/diff" ||
			mismatch "$case" "$1: $v" "$(grep '^[<>]' "$SCR/diff" | head -2 | tr '\n' ' ')"
	done
}

# cat_check IMAGE EXPECTED-PREFIX: `xfsrecon cat` of up to five regular
# files with content (plain names) hashes as the kernel's copy does.
cat_check() {
	awk '$1 != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" && $2 !~ /[^!-~]/ { print }' \
		"$2.sums" | head -5 | while read -r sum path; do
		got=$($XR cat "$1" "/${path#./}" 2> /dev/null | sha256sum | awk '{ print $1 }')
		[ "$got" = "$sum" ] || mismatch "$case" "cat ${path#./}" "sha256 $got, the kernel's copy $sum"
	done
}

# repair_check DIRTY EXPECTED-PREFIX: `xfsrecon repair DIRTY -o OUT` exits 0
# or 1, xfs_repair -n calls OUT clean, the kernel mounts OUT and shows the
# expected tree.
repair_check() {
	out="$SCR/out.img"
	rm -f "$out"
	$XR repair "$1" -o "$out" > "$SCR/repair.out" 2>&1
	rc=$?
	if [ $rc -gt 1 ]; then
		mismatch "$case" "repair" "exit status $rc ($(grep -v '^ *$' "$SCR/repair.out" | head -1))"
		rm -f "$out"
		return
	fi
	"$XFS_REPAIR" -n "$out" > "$SCR/xfs_repair.out" 2>&1 ||
		mismatch "$case" "repair: xfs_repair -n OUT" "exit status $? ($(grep -v -e '^Phase' -e '^ *-' -e 'host filesystem' -e 'sector size mismatch' -e '^the image' "$SCR/xfs_repair.out" | head -2 | tr '\n' ' '))"
	if kernel_view "$out" "$SCR/out"; then
		compare_views "repair OUT" "$2" "$SCR/out"
	else
		mismatch "$case" "repair OUT" "the kernel refuses to mount it: $(head -1 "$SCR/mount.err")"
	fi
	rm -f "$out"
}

# log_only_check DIRTY WORKLOAD: `xfsrecon --log-only` (through info, or
# else check) names every inode the workload touched (the recipe's
# manifest) and every inode and buffer `xfs_logprint -t` finds in the log.
# The listing's format is not fixed here: any number in it counts, decimal
# or 0x hex; a buffer may be named by its 512-byte sector (as xfs_logprint
# does), its filesystem block or its byte offset.
# counters_check DIRTY KERNEL CASE: `info` marks a dirty image's superblock
# counters stale and gives the AG headers' sums, which must be the counters
# the kernel wrote after replaying the log (KERNEL, xfs_db).  The kernel's
# mount does more than the replay: it frees the inodes left on an unlinked
# list (check's nsUnlinkedOpen; a freed chunk changes every sum: nothing
# is compared then) and the copy-on-write staging extents left over
# (cowLeftover; the free blocks change: only the inode counts compared).
counters_check() {
	$XR check "$1" > "$SCR/cc.out" 2> /dev/null
	if grep -q 'nsUnlinkedOpen' "$SCR/cc.out"; then
		echo "note: $3: inodes on an unlinked list; the kernel frees them at mount: counters not compared"
		return
	fi
	ours=$($XR info "$1" 2> /dev/null | sed -n 's/.*stale with a dirty log; the AG headers add up to: icount \([0-9]*\), ifree \([0-9]*\), fdblocks \([0-9]*\)).*/\1 \2 \3/p')
	theirs=$("$XFS_DB" -r -c 'sb 0' -c 'p icount ifree fdblocks' "$2" | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $3 }')
	if grep -q 'cowLeftover' "$SCR/cc.out"; then
		echo "note: $3: copy-on-write staging extents left over; the kernel frees them at mount: fdblocks not compared"
		ours=${ours% *}
		theirs=${theirs% *}
	fi
	[ "$ours" = "$theirs" ] ||
		mismatch "$3" "info counters" "the AG headers' sums '$ours', the kernel's superblock after replay '$theirs'"
}

# timeline_check DIRTY CASE KERNELPREFIX: `xfsrecon log` turns the log into
# events with paths.  Every inode the workload touched (CASE.touched, "INODE
# PATH" as the paths were then) appears: an event of that inode at that path,
# or (a directory) an event under that path.  And the events agree with the
# kernel's replay (KERNELPREFIX.long): the path an event leaves an inode at
# (create, link, the new path of a rename), when no later event moves it
# away, is that inode's path in the kernel's tree; a path an unlink freed,
# when no later event names it again, is absent from it.
timeline_check() {
	$XR log "$1" > "$SCR/events" 2> "$SCR/err"
	rc=$?
	if [ $rc -ne 0 ] || [ ! -s "$SCR/events" ]; then
		mismatch "$2" "log" "exit status $rc, $(wc -l < "$SCR/events") events: $(head -1 "$SCR/err")"
		return
	fi
	tr '\0' '\n' < "$3.long" | awk '{ p = $0; for (k = 0; k < 7; k++) sub(/^[^ ]+ /, "", p); print $1, p }' \
		> "$SCR/k.inopath"
	# A touched inode without an event is excused only when the log no
	# longer holds it (no inode item for it in xfs_logprint's view, an
	# oracle of its own): a busy machine lets the kernel write back the
	# first transactions before the snapshot and the log's tail moves past
	# them.  Without xfs_logprint nothing is excused.
	: > "$SCR/lp.ino"
	if command -v xfs_logprint > /dev/null 2>&1; then
		xfs_logprint -t "$1" 2> /dev/null |
			sed -n 's/.*INODE:.* ino:0x\([0-9a-fA-F]*\).*/\1/p' | sort -u |
			while read -r h; do printf '%d\n' "0x$h"; done > "$SCR/lp.ino"
	fi
	awk -v touched="$SCR/imgs/$2.touched" -v kernel="$SCR/k.inopath" -v held="$SCR/lp.ino" '
		BEGIN {
			while ((getline l < kernel) > 0) { i = l; sub(/ .*/, "", i); p = substr(l, length(i) + 2); kp[p] = i }
			while ((getline l < held) > 0) { inlog[l] = 1; nheld++ }
		}
		{
			if (!match($0, / inode [0-9]+( |$)/)) next
			ino = substr($0, RSTART + 7); sub(/ .*/, "", ino)
			pre = substr($0, 1, RSTART - 1); ev = $2; sub(/^[0-9]+\/[0-9]+ [a-z]+ /, "", pre)
			n = split(pre, ps, / -> /)
			for (i = 1; i <= n; i++) {
				has[ino " " ps[i]] = 1; p = ps[i]
				while (sub(/\/[^\/]*$/, "", p) && p != "") dir[p] = 1
			}
			# the last word on each path: where an inode was left, or removed
			if (ev == "create" || ev == "link") last[ps[1]] = "at " ino
			else if (ev == "rename") { last[ps[1]] = "gone " ino; last[ps[2]] = "at " ino }
			else if (ev == "unlink") last[ps[1]] = "gone " ino
		}
		END {
			while ((getline l < touched) > 0) {
				i = l; sub(/ .*/, "", i); p = substr(l, length(i) + 2); tot++
				if (((i " " p) in has) || (p in dir))
					continue
				if (nheld && !(i in inlog)) { gone++; continue }
				miss++; if (miss <= 3) print "missing: " l
			}
			for (p in last) {
				split(last[p], w, " ")
				if (w[1] == "at" && kp[p] != w[2]) { bad++; if (bad <= 3) print "kernel has " (p in kp ? "inode " kp[p] : "nothing") " at " p ", the log left inode " w[2] }
				if (w[1] == "gone" && (p in kp) && kp[p] == w[2]) { bad++; if (bad <= 3) print "kernel still has inode " w[2] " at " p }
			}
			print "summary " tot - miss " " tot " " bad + 0 " " gone + 0
		}' "$SCR/events" > "$SCR/tl.out"
	# the same events as body lines (mactime's 11 fields)
	$XR log --bodyfile "$1" 2> /dev/null | awk -F'|' -v n="$(wc -l < "$SCR/events")" '
		NF != 11 || $1 != "0" { bad++ } END { if (NR != n || bad) exit 1 }' ||
		mismatch "$2" "log --bodyfile" "not one well-formed body line per event"
	set -- $(tail -1 "$SCR/tl.out") "$2"
	echo "timeline: $6: $(($2 - $5)) of the $3 touched inodes have their events ($5 no longer in the log)"
	if [ "$2" != "$3" ] || [ "$4" -ne 0 ]; then
		mismatch "$6" "log events" "$2 of $3 touched inodes found, $4 paths disagree with the kernel: $(grep -v '^summary' "$SCR/tl.out" | head -3 | tr '\n' ';')"
	fi
}

log_only_check() {
	lo=""
	for cmd in info check; do
		$XR "$cmd" --log-only "$1" > "$SCR/logonly.out" 2> "$SCR/err"
		rc=$?
		if [ $rc -lt 8 ] && [ -s "$SCR/logonly.out" ]; then
			lo=$cmd
			break
		fi
	done
	if [ -z "$lo" ]; then
		mismatch "$case" "--log-only" "neither info nor check lists the log (exit status $rc: $(head -1 "$SCR/err"))"
		return
	fi
	geo=$("$XFS_DB" -r -c 'sb 0' -c 'p agblocks agblklog blocksize' "$1" | awk '{ printf "%s ", $3 }')
	awk '
		function hex(s,   i, v) {
			v = 0
			for (i = 3; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
			return v
		}
		{
			n = split($0, tok, /[^0-9A-Za-z]+/)
			for (i = 1; i <= n; i++)
				if (tok[i] ~ /^[0-9]+$/) print tok[i] + 0
				else if (tok[i] ~ /^0[xX][0-9a-fA-F]+$/) print hex(tok[i])
		}' "$SCR/logonly.out" | LC_ALL=C sort -u > "$SCR/ours.nums"
	{
		awk '{ print $1 }' "$SCR/imgs/$2.touched"
		sed -n 's/.*[[:space:]]ino:0x\([0-9a-fA-F]*\).*/\1/p' "$SCR/imgs/$2.logprint" |
			while read -r h; do printf '%d\n' "0x$h"; done
	} | LC_ALL=C sort -u > "$SCR/want.inodes"
	LC_ALL=C comm -23 "$SCR/want.inodes" "$SCR/ours.nums" > "$SCR/missing"
	[ -s "$SCR/missing" ] && mismatch "$case" "--log-only ($lo)" \
		"$(wc -l < "$SCR/missing") of $(wc -l < "$SCR/want.inodes") inodes in the log not named: $(head -5 "$SCR/missing" | tr '\n' ' ')"
	sed -n 's/.*start blkno:0x\([0-9a-fA-F]*\).*/\1/p' "$SCR/imgs/$2.logprint" |
		while read -r h; do printf '%d\n' "0x$h"; done | LC_ALL=C sort -u > "$SCR/want.daddrs"
	set -- $geo
	awk -v agblocks="$1" -v agblklog="$2" -v bsize="$3" 'NR == FNR { have[$1] = 1; next } {
		bb = bsize / 512
		agno = int($1 / (agblocks * bb)); agbno = int(($1 % (agblocks * bb)) / bb)
		fsb = (agno * 2 ^ agblklog + agbno) ""
		byte = ($1 * 512) ""
		if (!(($1 in have) || (fsb in have) || (byte in have))) print $1
	}' "$SCR/ours.nums" "$SCR/want.daddrs" > "$SCR/missing"
	[ -s "$SCR/missing" ] && mismatch "$case" "--log-only ($lo)" \
		"$(wc -l < "$SCR/missing") of $(wc -l < "$SCR/want.daddrs") logged buffers not named (sectors $(head -5 "$SCR/missing" | tr '\n' ' '))"
	return 0
}
