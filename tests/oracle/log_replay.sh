#!/bin/sh
# tests/oracle/log_replay.sh - offline log replay against the kernel's.
# Needs root and loop mounts (skips otherwise).
#
# A fresh filesystem gets files, a directory tree, a symlink and an xattr,
# is frozen (so all that is on disk), then gets changes only the log holds
# (new files with synced data, removals, a rename, a new directory), and is
# shut down with the log flushed.  A copy is mounted once so the kernel
# replays it: that copy is the oracle.  On the dirty image:
#   - xfs_repair -n refuses it (the log needs replaying);
#   - `ls -R` and `cat` of every file equal the kernel's tree and contents;
#   - check finds nothing wrong in the replayed view; its XML names the
#     replay and passes the schema; --log-only lists the transactions;
#   - repair writes an OUT that xfs_repair -n calls clean, whose log is clean,
#     which the kernel mounts with the same tree and contents, and which our
#     checker calls clean;
#   - with a damaged byte in the log, replay stops with a finding and the
#     repair still gives a clean OUT.
. "$top_srcdir/tests/lib.sh"

need_tool mkfs.xfs
need_tool xfs_io
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_REPAIR"
[ "$(id -u)" = 0 ] || skip "mounting needs root"

# Large sparse images: scratch in memory when we can.
SCR=$TMPD
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	SCR=$(mktemp -d /dev/shm/xfsrecon-logreplay.XXXXXX) || SCR=$TMPD
fi
mnt="$TMPD/mnt"
mkdir -p "$mnt"
trap 'rc=$?; umount "$mnt" 2>/dev/null
	[ "$SCR" != "$TMPD" ] && rm -rf "$SCR"
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

dirty="$SCR/dirty.img"
kernel="$SCR/kernel.img"
out="$SCR/out.img"

truncate -s 300M "$dirty" || fail "cannot create the image"
mkfs.xfs -q -f "$dirty" || fail "mkfs.xfs failed"
mount -o loop "$dirty" "$mnt" 2> "$TMPD/mount.txt" ||
	skip "cannot loop-mount here: $(cat "$TMPD/mount.txt")"
mkdir -p "$mnt/d1/d2" "$mnt/keep"
i=1
while [ $i -le 30 ]; do
	echo "before freeze $i" > "$mnt/d1/f$i"
	i=$((i + 1))
done
head -c 1048576 /dev/urandom > "$mnt/d1/d2/big" || fail "cannot write"
ln -s /some/where "$mnt/link"
xfs_io -c 'setattr -x' "$mnt/d1" 2>/dev/null
sync
xfs_io -x -c freeze -c thaw "$mnt" || fail "freeze/thaw failed"
# Changes only the log holds (the data of new files is synced, their
# metadata is not written back before the shutdown).
i=1
while [ $i -le 20 ]; do
	xfs_io -f -c "pwrite -q -S 0x$((i + 16)) 0 $((i * 3000))" -c fsync "$mnt/d1/g$i" ||
		fail "cannot write g$i"
	i=$((i + 1))
done
rm -f "$mnt/d1/f3" "$mnt/d1/f4"
mv "$mnt/d1/f5" "$mnt/d1/d2/f5moved"
mkdir "$mnt/newdir"
xfs_io -f -c 'pwrite -q 0 200000' -c fsync "$mnt/newdir/data" || fail "cannot write"
xfs_io -x -c 'shutdown -f' "$mnt" || fail "shutdown failed"
umount "$mnt" || fail "umount failed"

if "$XFS_REPAIR" -n "$dirty" > /dev/null 2>&1; then
	fail "xfs_repair -n accepts the log we made dirty"
fi

# The kernel's replay: mount and unmount a copy, then read it read-only.
cp --sparse=always "$dirty" "$kernel" || fail "cannot copy"
mount -o loop "$kernel" "$mnt" || fail "the kernel cannot mount the dirty copy"
umount "$mnt" || fail "umount failed"
mount -o ro,loop "$kernel" "$mnt" || fail "the kernel cannot mount its replayed copy"
(cd "$mnt" && find . -type f | sort | while read -r f; do
	printf '%s %s\n' "$(md5sum < "$f" | cut -d' ' -f1)" "${f#.}"
done) > "$TMPD/kernel-sums.txt"
(cd "$mnt" && find . | sed 's|^\.||' | sed '/^$/d' | sort) > "$TMPD/kernel-tree.txt"
umount "$mnt" || fail "umount failed"
[ -s "$TMPD/kernel-sums.txt" ] || fail "no files in the kernel's copy"

# Our view of the dirty image, replayed in memory.
"$XFSRECON" info "$dirty" > "$TMPD/info.txt" || fail "info exits $?"
grep -q 'replayed in memory' "$TMPD/info.txt" || fail "info does not say the log was replayed"
grep -Eq 'records, [1-9][0-9]* transactions' "$TMPD/info.txt" ||
	fail "info counts no transactions: $(cat "$TMPD/info.txt")"
"$XFSRECON" ls -R "$dirty" / | sort > "$TMPD/our-tree.txt" || fail "ls -R failed"
diff "$TMPD/kernel-tree.txt" "$TMPD/our-tree.txt" > "$TMPD/tree.diff" ||
	fail "ls -R of the dirty image differs from the kernel's replay: $(cat "$TMPD/tree.diff")"
while read -r sum path; do
	got=$("$XFSRECON" cat "$dirty" "$path" | md5sum | cut -d' ' -f1)
	[ "$got" = "$sum" ] || fail "cat $path: $got, the kernel's copy holds $sum"
done < "$TMPD/kernel-sums.txt"
# Without replay the new files are not there.
"$XFSRECON" ls -R --no-replay "$dirty" / | sort > "$TMPD/disk-tree.txt" || fail "ls --no-replay failed"
if diff -q "$TMPD/kernel-tree.txt" "$TMPD/disk-tree.txt" > /dev/null; then
	fail "--no-replay shows the replayed tree"
fi
# A repair or a plan without the journal's changes would lose them: both
# refuse, say why and write nothing.
for verb in repair plan; do
	rm -f "$TMPD/refused.out"
	"$XFSRECON" $verb --no-replay -o "$TMPD/refused.out" "$dirty" > /dev/null 2> "$TMPD/refused.txt"
	rc=$?
	[ $rc -eq 4 ] || fail "$verb --no-replay of a dirty log exits $rc, not 4"
	grep -q 'log is dirty and was not replayed' "$TMPD/refused.txt" ||
		fail "$verb --no-replay does not say why: $(cat "$TMPD/refused.txt")"
	[ ! -e "$TMPD/refused.out" ] || fail "$verb --no-replay of a dirty log wrote its output"
done

"$XFSRECON" check --xml "$TMPD/check.xml" "$dirty" > "$TMPD/check.txt"
rc=$?
[ $rc -eq 0 ] || fail "check of the replayed view exits $rc: $(cat "$TMPD/check.txt")"
grep -q 'replayed="true"' "$TMPD/check.xml" || fail "the XML report does not name the replay"
if [ -n "${XMLLINT:-}" ] && command -v "$XMLLINT" > /dev/null 2>&1; then
	"$XMLLINT" --noout --schema "$top_srcdir/doc/report.xsd" "$TMPD/check.xml" 2> "$TMPD/xsd.txt" ||
		fail "the XML report fails the schema: $(cat "$TMPD/xsd.txt")"
fi
"$XFSRECON" check --log-only "$dirty" > "$TMPD/list.txt" || fail "--log-only exits $?"
grep -q '^transaction 1:' "$TMPD/list.txt" || fail "--log-only lists no transaction"
grep -q '^    inode    ino ' "$TMPD/list.txt" || fail "--log-only lists no inode item"
grep -q '^    buf      daddr ' "$TMPD/list.txt" || fail "--log-only lists no buffer item"

# Repair: the replayed state and a clean log.
"$XFSRECON" repair -q "$dirty" -o "$out" > "$TMPD/repair.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "repair exits $rc: $(cat "$TMPD/repair.txt")"
"$XFS_REPAIR" -n "$out" > "$TMPD/xfs_repair.txt" 2>&1 || {
	cat "$TMPD/xfs_repair.txt" >&2
	fail "xfs_repair -n exits $? on the repaired image"
}
"$XFSRECON" info "$out" | grep -q '^log: *clean' || fail "the repaired image's log is not clean"
"$XFSRECON" check -q "$out" > "$TMPD/after.txt" || fail "check of OUT: $(cat "$TMPD/after.txt")"
mount -o ro,loop "$out" "$mnt" || fail "the kernel refuses the repaired image"
(cd "$mnt" && find . | sed 's|^\.||' | sed '/^$/d' | sort) > "$TMPD/out-tree.txt"
(cd "$mnt" && find . -type f | sort | while read -r f; do
	printf '%s %s\n' "$(md5sum < "$f" | cut -d' ' -f1)" "${f#.}"
done) > "$TMPD/out-sums.txt"
umount "$mnt" || fail "umount failed"
diff "$TMPD/kernel-tree.txt" "$TMPD/out-tree.txt" > "$TMPD/tree.diff" ||
	fail "the repaired tree differs from the kernel's replay: $(cat "$TMPD/tree.diff")"
diff "$TMPD/kernel-sums.txt" "$TMPD/out-sums.txt" > "$TMPD/sums.diff" ||
	fail "repaired file contents differ from the kernel's: $(cat "$TMPD/sums.diff")"

# A damaged log: one byte of the last record's payload flipped.  Replay
# keeps what comes before it, says so, and the repair is still clean.
bad="$SCR/bad.img"
cp --sparse=always "$dirty" "$bad" || fail "cannot copy"
head_line=$("$XFSRECON" check --log-only "$dirty" | sed -n 's/^transaction \([0-9]*\): .* lsn [0-9]*\/\([0-9]*\), commit.*/\2/p' | tail -1)
[ -n "$head_line" ] || fail "no transaction LSN to damage"
logstart=$(xfs_db -r -c 'sb 0' -c 'p logstart' "$dirty" | sed 's/.*= //')
agblocks=$(xfs_db -r -c 'sb 0' -c 'p agblocks' "$dirty" | sed 's/.*= //')
agblklog=$(xfs_db -r -c 'sb 0' -c 'p agblklog' "$dirty" | sed 's/.*= //')
bsize=$(xfs_db -r -c 'sb 0' -c 'p blocksize' "$dirty" | sed 's/.*= //')
logbyte=$(( ((logstart >> agblklog) * agblocks + (logstart & ((1 << agblklog) - 1))) * bsize ))
# The record header, then 100 bytes into its payload (after the header sector).
victim=$(( logbyte + head_line * 512 + 512 + 100 ))
printf '\377' | dd of="$bad" bs=1 seek="$victim" conv=notrunc 2> /dev/null || fail "cannot damage"
"$XFSRECON" check "$bad" > "$TMPD/bad.txt" 2>&1
grep -Eq 'logTornHead|logDamaged' "$TMPD/bad.txt" || fail "no finding for the damaged log: $(cat "$TMPD/bad.txt")"
"$XFSRECON" repair -q "$bad" -o "$SCR/bad-out.img" > "$TMPD/bad-repair.txt" 2>&1
rc=$?
[ $rc -le 1 ] || [ $rc -eq 4 ] || fail "repair of the damaged log exits $rc: $(cat "$TMPD/bad-repair.txt")"
"$XFS_REPAIR" -n "$SCR/bad-out.img" > "$TMPD/xfs_repair.txt" 2>&1 || {
	cat "$TMPD/bad-repair.txt" "$TMPD/xfs_repair.txt" >&2
	fail "xfs_repair -n exits $? after repairing the damaged log"
}
exit 0
