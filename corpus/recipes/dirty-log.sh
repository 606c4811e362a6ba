#!/bin/sh
# corpus/recipes/dirty-log.sh - filesystems whose newest changes are only in
# the log (a dirty log), one per workload, for the log replay tests.
#
#     sh corpus/recipes/dirty-log.sh                 list the workloads
#     sh corpus/recipes/dirty-log.sh DIR NAME...      make DIR/NAME.img
#
# Each image is made the same way: mkfs.xfs a sparse 320 MB file, mount it,
# populate it (phase 1), sync and freeze/thaw (so phase 1 is in place and
# the log is covered: its tail moves past everything so far), then run the
# workload (phase 2), and shut the filesystem down with the log flushed
# (`xfs_io -x -c 'shutdown -f'`: every committed transaction reaches the log,
# no metadata is written in place after that) and unmount.  Nothing syncs
# after phase 2, and phase 2 stays well inside the 30 s after the thaw before
# the kernel's periodic log worker would push metadata in place.  Phase 2
# starts by changing /pin (made in phase 1) and never touches it again: the
# log's tail is its oldest item not yet written in place, so /pin holds the
# tail at the start of phase 2 and all of phase 2 stays in the active log.
#
# Delayed logging gathers many transactions into one checkpoint, and an
# intent whose done item lands in the same checkpoint is dropped from it
# (neither reaches the log).  The workloads that must leave intents (EFI,
# RUI, CUI, BUI and their done items) therefore run two loops of syncfs(2)
# beside their operations: every log force closes a checkpoint, so some
# intents and their done items end up in different ones.  The loops make
# the exact log layout vary between runs; the final state does not.
#
# Beside each image the recipe writes:
#   NAME.touched   "INODE PATH" for every inode phase 2 created, changed or
#                  deleted (the paths as they were then);
#   NAME.logprint  `xfs_logprint -t` of the image (the external oracle of
#                  what the log holds);
#   NAME.items     item types in the log and how often, "TYPE COUNT";
#   NAME.info      one line: mkfs and mount options, log records, seconds
#                  from the thaw to the shutdown.
# It refuses (exit 1) unless `xfs_repair -n` says the log holds changes it
# would ignore, and unless every item type the workload promises is in
# `xfs_logprint -t`; a workload whose items depend on timing is tried up to
# eight times.  Without an rmapbt a freed extent's intent and done item are
# only microseconds apart, so `normap` often has EFI/EFD items but
# does not promise them (`delete` does).  The forms the names promise
# (extend: a bmbt; dir-leaf: a leaf directory; dir-node: a node directory;
# xattr: short-form, leaf and node attribute forks) are read back with xfs_db
# from a copy the kernel replayed.
# Needs root (loop mounts), xfsprogs (with xfs_logprint), setfattr.
NAME=dirty-log
. "$(dirname "$0")/common.sh"

: "${XFS_LOGPRINT:=xfs_logprint}"

# The workloads: name, mkfs -m options, mount options, the log item types
# they promise (as xfs_logprint -t names them), description.
workloads() {
	cat <<'EOF'
create      crc=1,rmapbt=1,reflink=1 -          BUF,INO,ICR              new directory, 300 new files (new inode chunks), 20 with content
extend      crc=1,rmapbt=1,reflink=1 -          BUF,INO                  files appended to and grown into many extents (a bmbt), one truncated up
delete      crc=1,rmapbt=1,reflink=1 -          BUF,INO,EFI,EFD          fragmented files, a directory tree and small files deleted
rename      crc=1,rmapbt=1,reflink=1 -          BUF,INO                  renames within and across directories, hard links, symlinks, chmod, chown, utimes, rmdir
dir-leaf    crc=1,rmapbt=1,reflink=1 -          BUF,INO                  a short-form directory grown to block and leaf form, some names removed
dir-node    crc=1,rmapbt=1,reflink=1 -          BUF,INO                  a directory grown to node form (2000 long names), a block directory emptied
xattr       crc=1,rmapbt=1,reflink=1 -          BUF,INO                  extended attributes: short form, leaf, node (600 names), remote values, removals
reflink     crc=1,rmapbt=1,reflink=1 -          BUF,INO,BUI,BUD,CUI,CUD  reflinked copies of a fragmented file (remapping, refcount increases)
cow         crc=1,rmapbt=1,reflink=1 -          BUF,INO,CUI,CUD,RUI,RUD  copy-on-write into shared blocks, a shared copy deleted
normap      crc=1,rmapbt=0,reflink=0 -          BUF,INO,ICR              no rmapbt or reflink: creates, a fragmented file deleted, renames, xattrs
logbsize    crc=1,rmapbt=1,reflink=1 logbsize=256k BUF,INO,ICR           256 KiB log buffers: records past 32 KiB, v2 extended headers
torn        crc=1,rmapbt=1,reflink=1 -          BUF,INO                  two checkpoints (the torn-log tests cut or break the second)
records     crc=1,rmapbt=1,reflink=1 -          BUF,INO                  40 small checkpoints, one per fsync (the damaged-log tests break one in the middle)
EOF
}

# field NAME COLUMN: one column of a workload's row.
field() {
	workloads | awk -v n="$1" -v c="$2" '$1 == n {
		if (c == "desc") { for (i = 5; i <= NF; i++) printf "%s%s", $i, (i < NF ? " " : "\n") }
		else print $c }'
}

# touched PATH...: record the inode of each path in the manifest.
touched() {
	stat -c '%i %n' "$@" | sed "s|$mnt||" >> "$manifest"
}

# frag_file PATH BLOCKS: write every other 4 KiB block of PATH with direct
# I/O (BLOCKS/2 single-block extents), each block filled with its own byte.
frag_file() {
	awk -v n="$2" 'BEGIN { for (i = 0; i < n; i += 2) printf "pwrite -q -S %d %d 4096\n", (i * 7 + 1) % 256, i * 4096 }' |
		xfs_io -f -d "$1"
}

# sync_loop_start / sync_loop_stop: force the log over and over beside an
# operation (see the header: keeps intents and done items apart).  Two
# loops, each an xfs_io calling syncfs(2) a hundred times per start-up; they
# end when the flag file goes, so no syncfs is left running into the
# shutdown.
sync_loop_start() {
	: > "$work/syncing"
	syncfs100=$(awk 'BEGIN { for (i = 0; i < 100; i++) printf "-c syncfs " }')
	(while [ -e "$work/syncing" ]; do xfs_io $syncfs100 "$mnt"; done) &
	syncer=$!
	(while [ -e "$work/syncing" ]; do xfs_io $syncfs100 "$mnt"; done) &
	syncer2=$!
}
sync_loop_stop() {
	rm -f "$work/syncing"
	wait "$syncer" "$syncer2" 2>/dev/null || true
}

# ------------------------------------------------------------ workloads
# setup_NAME: phase 1 (in place before the log is covered); run_NAME:
# phase 2 (only in the log).

setup_create() { mkdir "$mnt/old"; fill_file "$mnt/old/keep" 5000 keep; }
run_create() {
	mkdir "$mnt/new"
	(cd "$mnt/new" && seq -f 'empty-%04g' 0 299 | xargs touch)
	i=0
	while [ $i -lt 20 ]; do
		fill_file "$mnt/new/data-$i" $((i * 1000 + 10)) "data-$i"
		i=$((i + 1))
	done
	xfs_io -c fsync "$mnt"/new/data-* > /dev/null
	touched "$mnt/new" "$mnt"/new/*
}

setup_extend() {
	mkdir "$mnt/grow"
	fill_file "$mnt/grow/append" 10000 append
	frag_file "$mnt/grow/fragment" 40
	: > "$mnt/grow/sparse"
}
run_extend() {
	sync_loop_start
	fill_file "$work/more" 20000 more
	cat "$work/more" >> "$mnt/grow/append"
	xfs_io -c fsync "$mnt/grow/append"
	# blocks 40..400, every other one: the fork outgrows the inode (bmbt)
	awk 'BEGIN { for (i = 40; i < 400; i += 2) printf "pwrite -q -S %d %d 4096\n", i % 251, i * 4096 }' |
		xfs_io -d "$mnt/grow/fragment"
	xfs_io -c 'truncate 10485760' "$mnt/grow/sparse"
	xfs_io -c 'pwrite -q -S 0x5a 1048576 8192' -c fsync "$mnt/grow/sparse"
	sync_loop_stop
	touched "$mnt/grow/append" "$mnt/grow/fragment" "$mnt/grow/sparse"
}

setup_delete() {
	mkdir "$mnt/gone" "$mnt/gone/tree" "$mnt/gone/tree/sub" "$mnt/stay"
	frag_file "$mnt/gone/frag1" 4000
	frag_file "$mnt/gone/frag2" 600
	for n in a b c d e; do fill_file "$mnt/gone/tree/$n" 6000 "tree-$n"; done
	fill_file "$mnt/gone/tree/sub/deep" 100 deep
	fill_file "$mnt/stay/kept" 9000 kept
}
run_delete() {
	touched "$mnt/gone" "$mnt/gone/frag1" "$mnt/gone/frag2" "$mnt/gone/tree" \
		"$mnt/gone/tree/sub" "$mnt"/gone/tree/? "$mnt/gone/tree/sub/deep"
	# frag1 is truncated before it goes: an unlinked file's blocks are freed
	# in the background, maybe too late for the log (as the tree's may be)
	sync_loop_start
	xfs_io -c 'truncate 0' "$mnt/gone/frag1"
	rm "$mnt/gone/frag1"
	rm -r "$mnt/gone/tree"
	xfs_io -c 'truncate 40960' "$mnt/gone/frag2"
	sync_loop_stop
}

setup_rename() {
	mkdir "$mnt/a" "$mnt/b" "$mnt/a/sub"
	for n in one two three four five; do fill_file "$mnt/a/$n" 700 "rename-$n"; done
	fill_file "$mnt/a/sub/inner" 300 inner
	mkdir "$mnt/a/empty"
}
run_rename() {
	touched "$mnt/a/one" "$mnt/a/two" "$mnt/a/three" "$mnt/a/four" "$mnt/a/five" "$mnt/a/sub" "$mnt/a/empty"
	mv "$mnt/a/one" "$mnt/a/one-renamed"
	mv "$mnt/a/two" "$mnt/b/two-moved"
	mv "$mnt/a/three" "$mnt/a/four"            # replaces four
	mv "$mnt/a/sub" "$mnt/b/sub-moved"
	ln "$mnt/a/five" "$mnt/b/five-link"
	ln -s ../a/five "$mnt/b/short-symlink"
	ln -s "$(awk 'BEGIN { s = ""; for (i = 0; i < 40; i++) s = s "long-component-" i "/"; print s "end" }')" \
		"$mnt/b/long-symlink"
	chmod 0600 "$mnt/a/five"
	chown 1234:5678 "$mnt/b/two-moved"
	touch -d '2001-02-03 04:05:06' "$mnt/a/one-renamed"
	rmdir "$mnt/a/empty"
	touched "$mnt/a" "$mnt/b" "$mnt/b/short-symlink" "$mnt/b/long-symlink"
}

setup_dirleaf() { mkdir "$mnt/grows"; : > "$mnt/grows/first"; }
run_dirleaf() {
	(cd "$mnt/grows" && seq -f 'a-name-in-a-leaf-directory-%04g' 0 499 | xargs touch)
	(cd "$mnt/grows" && seq -f 'a-name-in-a-leaf-directory-%04g' 0 7 499 | xargs rm)
	touched "$mnt/grows" "$mnt"/grows/a-name-*
}

setup_dirnode() {
	mkdir "$mnt/node" "$mnt/block"
	(cd "$mnt/block" && seq -f 'block-entry-%03g' 0 59 | xargs touch)
}
run_dirnode() {
	: > "$mnt/node/target"
	(cd "$mnt/node" && seq -f 'a-rather-long-name-so-that-few-entries-fit-in-one-directory-block-%04g' 0 1999 |
		xargs touch)
	touched "$mnt/block" "$mnt"/block/*
	(cd "$mnt/block" && seq -f 'block-entry-%03g' 0 59 | xargs rm)
	touched "$mnt/node" "$mnt/node/target"
}

setup_xattr() {
	mkdir "$mnt/x"
	for n in short leaf node remote gone; do : > "$mnt/x/$n"; done
	setfattr -n user.removed-later -v 1 "$mnt/x/gone"
	setfattr -n user.stays -v 2 "$mnt/x/gone"
}
run_xattr() {
	setfattr -n user.colour -v blue "$mnt/x/short"
	setfattr -n trusted.note -v fixed "$mnt/x/short"
	awk 'BEGIN { print "# file: leaf"
		for (i = 0; i < 40; i++) printf "user.leaf-attribute-%02d=\"value-%02d\"\n", i, i
		print "" }' > "$work/leaf.attrs"
	awk 'BEGIN { print "# file: node"
		for (i = 0; i < 600; i++) printf "%s.node-attr-%04d=\"v%04d\"\n", (i % 3 ? "user" : "trusted"), i, i
		print "" }' > "$work/node.attrs"
	(cd "$mnt/x" && setfattr --restore="$work/leaf.attrs" && setfattr --restore="$work/node.attrs")
	v=$(awk 'BEGIN { s = ""; for (i = 0; i < 700; i++) s = s sprintf("r%07d", i); print s }')
	setfattr -n user.remote-5600 -v "$v" "$mnt/x/remote"
	setfattr -n user.local-too -v small "$mnt/x/remote"
	setfattr -x user.removed-later "$mnt/x/gone"
	mkdir "$mnt/x/dir"
	setfattr -n user.on-a-directory -v yes "$mnt/x/dir"
	touched "$mnt/x" "$mnt"/x/*
}

setup_reflink() { mkdir "$mnt/r"; frag_file "$mnt/r/source" 800; }
run_reflink() {
	sync_loop_start
	cp --reflink=always "$mnt/r/source" "$mnt/r/copy1"
	cp --reflink=always "$mnt/r/source" "$mnt/r/copy2"
	sync_loop_stop
	touched "$mnt/r" "$mnt/r/source" "$mnt/r/copy1" "$mnt/r/copy2"
}

setup_cow() {
	mkdir "$mnt/c"
	frag_file "$mnt/c/source" 600
	cp --reflink=always "$mnt/c/source" "$mnt/c/shared"
	cp --reflink=always "$mnt/c/source" "$mnt/c/doomed"
}
run_cow() {
	touched "$mnt/c" "$mnt/c/shared" "$mnt/c/doomed"
	sync_loop_start
	awk 'BEGIN { for (i = 0; i < 600; i += 8) printf "pwrite -q -S 0xc0 %d 4096\n", i * 4096 }' |
		xfs_io -d "$mnt/c/shared"
	rm "$mnt/c/doomed"
	sync_loop_stop
}

setup_normap() {
	mkdir "$mnt/n"
	frag_file "$mnt/n/frag" 4000
	fill_file "$mnt/n/file" 3000 normap
}
run_normap() {
	touched "$mnt/n/frag"
	# truncated first (see run_delete)
	sync_loop_start
	xfs_io -c 'truncate 0' "$mnt/n/frag"
	rm "$mnt/n/frag"
	sync_loop_stop
	(cd "$mnt/n" && seq -f 'new-%03g' 0 199 | xargs touch)
	mv "$mnt/n/file" "$mnt/n/file-renamed"
	setfattr -n user.on-normap -v yes "$mnt/n/file-renamed"
	touched "$mnt/n" "$mnt/n/file-renamed" "$mnt"/n/new-*
}

setup_logbsize() { mkdir "$mnt/burst"; }
run_logbsize() {
	(cd "$mnt/burst" && seq -f 'burst-file-with-a-long-name-%05g' 0 2999 | xargs touch)
	for n in 0 1 2 3 4; do fill_file "$mnt/burst/data-$n" 12000 "burst-$n"; done
	xfs_io -c fsync "$mnt"/burst/data-* > /dev/null
	touched "$mnt/burst" "$mnt"/burst/data-*
}

setup_torn() { mkdir "$mnt/t"; fill_file "$mnt/t/base" 4000 base; }
run_torn() {
	# checkpoint 1: kept even when the last record is lost
	(cd "$mnt/t" && seq -f 'first-%03g' 0 49 | xargs touch)
	fill_file "$mnt/t/first-data" 6000 first
	xfs_io -c fsync "$mnt/t/first-data"
	sync -f "$mnt"
	touched "$mnt/t" "$mnt"/t/first-*
	# checkpoint 2: the last one in the log; the torn-log tests damage it
	(cd "$mnt/t" && seq -f 'second-%03g' 0 49 | xargs touch)
	mv "$mnt/t/base" "$mnt/t/base-renamed"
	chmod 0640 "$mnt/t/first-data"
	touched "$mnt"/t/second-* "$mnt/t/base-renamed"
}

setup_records() { mkdir "$mnt/steps"; }
run_records() {
	# one checkpoint per step: each fsync forces the log, so the log holds
	# at least 40 records, each ending in a commit
	i=0
	while [ $i -lt 40 ]; do
		fill_file "$mnt/steps/step-$i" $((i * 300 + 100)) "step-$i"
		xfs_io -c fsync "$mnt/steps/step-$i"
		i=$((i + 1))
	done
	touched "$mnt/steps" "$mnt"/steps/step-*
}

# ------------------------------------------------------------ driver

# make_workload W: one attempt at DIR/W.img; 0 if the log holds what W
# promises, 1 if not (the reason on standard error).
make_workload() {
	w=$1
	fn=$(echo "$w" | tr -d -)
	img="$dest/$w.img"
	manifest="$dest/$w.touched"
	: > "$manifest"
	rm -f "$img"
	truncate -s 320M "$img"
	# (set -e does not reach into a function called as a condition: the
	# steps that must not fail are checked one by one)
	"$MKFS_XFS" -q -f -m "$(field "$w" 2)" "$img" || { echo "$w: mkfs.xfs failed" >&2; exit 1; }
	mopts=$(field "$w" 3)
	[ "$mopts" = "-" ] && mopts="" || mopts=",$mopts"
	mkdir -p "$mnt"
	mount -o "loop$mopts" "$img" "$mnt" || { echo "$w: cannot mount" >&2; exit 1; }
	mounted=1
	"setup_$fn"
	: > "$mnt/pin"
	sync
	xfs_io -x -c freeze -c thaw "$mnt" || { echo "$w: freeze failed" >&2; exit 1; }
	t0=$(date +%s)
	# The log's tail is its oldest item not yet written in place; an item
	# logged again moves forward, a finished intent leaves (without /pin the
	# tail follows the workload and early changes drop out of the log).
	chmod 0600 "$mnt/pin"
	touched "$mnt/pin"
	"run_$fn"
	xfs_io -x -c 'shutdown -f' "$mnt" || { echo "$w: shutdown failed" >&2; exit 1; }
	t1=$(date +%s)
	umount "$mnt" || { echo "$w: umount failed" >&2; exit 1; }
	mounted=0

	"$XFS_LOGPRINT" -t "$img" > "$dest/$w.logprint" 2>&1
	awk '/^[A-Z]+:/ { sub(/:.*/, "", $1); if ($1 != "TRANS") n[$1]++ }
		END { for (t in n) print t, n[t] }' "$dest/$w.logprint" | sort > "$dest/$w.items"
	recs=$("$XFS_LOGPRINT" -d "$img" 2>/dev/null |
		awk '$2 == "HEADER" && $8 != "0" { n++; if ($8 + 0 > max) max = $8 + 0 } END { printf "%d records, largest %d bytes", n, max }')
	echo "mkfs -m $(field "$w" 2); mount $(field "$w" 3); $recs; phase 2 took $((t1 - t0)) s" > "$dest/$w.info"
	if [ $((t1 - t0)) -gt 25 ]; then
		echo "$w: phase 2 took $((t1 - t0)) s; the log worker may have written metadata in place" >&2
		return 1
	fi
	set +e
	"$XFS_REPAIR" -n "$img" > "$work/repair.out" 2>&1
	set -e
	if ! grep -q 'valuable metadata changes in a log' "$work/repair.out"; then
		echo "$w: xfs_repair -n does not see a dirty log" >&2
		return 1
	fi
	# every inode the workload touched is in the log
	sed -n 's/.*[[:space:]]ino:0x\([0-9a-fA-F]*\).*/\1/p' "$dest/$w.logprint" |
		while read -r h; do printf '%d\n' "0x$h"; done | sort -u > "$work/logged"
	awk '{ print $1 }' "$manifest" | sort -u | comm -23 - "$work/logged" > "$work/unlogged"
	if [ -s "$work/unlogged" ]; then
		echo "$w: inodes touched but not in the log: $(head -5 "$work/unlogged" | tr '\n' ' ')" >&2
		return 1
	fi
	for t in $(field "$w" 4 | tr , ' '); do
		if ! grep -q "^$t " "$dest/$w.items"; then
			echo "$w: no $t item in the log ($(tr '\n' ' ' < "$dest/$w.items"))" >&2
			return 1
		fi
	done
	if [ "$w" = logbsize ]; then
		"$XFS_LOGPRINT" -d "$img" 2>/dev/null | awk '$2 == "HEADER" && $8 + 0 > 32768 { big = 1 } END { exit !big }' || {
			echo "$w: no log record longer than 32 KiB" >&2
			return 1
		}
	fi
	check_forms "$w"
}

# check_forms W: the structures the workload's name promises exist once the
# kernel has replayed a copy (read back with xfs_db; exit 1 if one is
# missing: the workload no longer does what it says).
check_forms() {
	case $1 in
	extend | dir-leaf | dir-node | xattr) ;;
	*) return 0 ;;
	esac
	cp --sparse=always "$img" "$work/replayed.img"
	mount -o loop "$work/replayed.img" "$mnt" || { echo "$1: the kernel cannot replay the log" >&2; exit 1; }
	umount "$mnt"
	case $1 in
	extend) form 'path /grow/fragment' 'core.format' 3 ;;
	dir-leaf) form 'path /grows' 'dblock 8388608' 'lhdr.info.hdr.magic' 0x3df1 ;;
	dir-node) form 'path /node' 'dblock 8388608' 'nhdr.info.hdr.magic' 0x3ebe ;;
	xattr)
		form 'path /x/short' 'core.aformat' 1
		form 'path /x/leaf' 'ablock 0' 'hdr.info.hdr.magic' 0x3bee
		form 'path /x/node' 'ablock 0' 'hdr.info.hdr.magic' 0x3ebe ;;
	esac
	rm -f "$work/replayed.img"
}

# form XFS_DB-COMMAND... FIELD VALUE: FIELD (after the commands) starts with
# VALUE in the replayed copy.
form() {
	_cmds=""
	while [ $# -gt 2 ]; do
		_cmds="$_cmds -c '$1'"
		shift
	done
	_got=$(eval "\"\$XFS_DB\" -r $_cmds -c 'p $1' \"\$work/replayed.img\"" 2>/dev/null |
		awk -v f="$1 = " 'index($0, f) == 1 { print substr($0, length(f) + 1) }')
	case "$_got" in
	"$2" | "$2 "*) ;;
	*) echo "$w: $1 is '$_got' after replay, expected $2" >&2; exit 1 ;;
	esac
}

if [ $# -eq 0 ]; then
	workloads | awk '{ printf "%-10s", $1; for (i = 5; i <= NF; i++) printf " %s", $i; print "" }'
	exit 0
fi
need_root
[ $# -ge 2 ] || { echo "usage: $0 DIR WORKLOAD..." >&2; exit 16; }
dest=$(cd "$1" && pwd)
shift
for w in "$@"; do
	[ -n "$(field "$w" 2)" ] || { echo "$NAME: no workload '$w'" >&2; exit 1; }
	try=1
	until make_workload "$w"; do
		try=$((try + 1))
		[ $try -le 8 ] || { echo "$NAME: $w: the log does not hold what the workload promises" >&2; exit 1; }
	done
	echo "$w: $(cat "$dest/$w.info"); items: $(awk '{ printf "%s%s=%s", (NR > 1 ? " " : ""), $1, $2 }' "$dest/$w.items")"
done
