#!/bin/sh
# tests/oracle/repair_bmbt.sh - `xfsrecon repair` brings back a file whose
# data fork needs a bmbt (reconstruct/fork_write.c), judged by xfs_repair,
# xfs_db and the kernel.
#
# The file is /frag/extents of v5-files: 5000 one-block extents mapped by a
# bmbt of height 3.  Each case damages a scratch copy of the image with
# xfs_db -x:
#   core  - the inode core destroyed (magic zeroed and the format made
#           impossible: a magic alone is put back, not rebuilt);
#   leaf  - one bmbt leaf block's magic zeroed (CRC left stale);
#   root  - the bmbt root in the inode given level 0 (CRC recomputed).
# The damage is first proven: xfs_repair -n must reject the damaged copy.
# Then `xfsrecon repair C -o OUT` must exit 1 and say it brought the file
# back with a new bmbt, and on OUT:
#   - `xfs_repair -n` exits 0 and `xfsrecon check` exits 0;
#   - xfs_db: the inode is in btree format with 5000 extents, and the
#     reverse map names bmbt blocks of that inode (owner = inode, bmbt 1)
#     covering exactly nblocks - 5000 blocks (the inode's data blocks plus
#     its bmbt blocks add up to di_nblocks);
#   - the kernel (loop mount, read-only, as root; skipped with a note when
#     the original image cannot be mounted) reads the file with the SHA-256
#     of the original.  When the core survived (leaf, root) the whole file is
#     compared and its size must be the original's; when the core was
#     destroyed its size is rounded up to whole blocks, so the original's
#     bytes are compared with OUT's first `size` bytes and the size may grow
#     by less than one block.
#   - `xfsrecon cat` reads the same bytes as well (our own reader walks the
#     new tree even where no kernel is available).
# A directory rewritten into new blocks gets a bmbt too when free space is
# too fragmented for its blocks to fit the fork as a list.  As root, a copy
# is mounted read-write and its free space turned into single blocks (one
# file fills it, every other block punched out); then a data block of /frag
# (a node directory of 1000 long names) loses its magic.  The repair must
# rewrite /frag with a bmbt data fork (more extents than its 192-byte fork
# holds as a list); xfs_repair -n and xfsrecon check exit 0; the reverse
# map's records of /frag add up to its nblocks (bmbt blocks included); the
# kernel lists /frag with the same names and inode numbers as before the
# damage.  Skipped with a note when the copy cannot be mounted.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool sha256sum
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
XFS_DB=${XFS_DB:-xfs_db}
need_tool "$XFS_REPAIR"
need_tool "$XFS_DB"

FILE=/frag/extents
NEXT=5000

# Raw images are sparse 400 MB files: keep them in memory when possible.
work="$TMPD"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	work=$(mktemp -d /dev/shm/xfsrecon-repair_bmbt.XXXXXX) || work="$TMPD"
fi
mnt="$TMPD/mnt"
mkdir -p "$mnt"
cleanup() {
	umount "$mnt" 2>/dev/null
	[ "$work" = "$TMPD" ] || rm -rf "$work"
}
trap 'rc=$?; cleanup; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

repair_text() {
	grep -v -e '^Phase' -e '^        - ' -e 'host filesystem' -e '^Repair may fail' \
		-e '^the image and' "$1" | head -20
}

# kernel_file IMG: "size sha256" of $FILE as the kernel reads it, and its
# bytes in $TMPD/kfile; returns 1 when the image cannot be mounted.
kernel_file() {
	[ "$(id -u)" -eq 0 ] || return 1
	mount -o ro,loop "$1" "$mnt" 2>/dev/null || return 1
	cp "$mnt$FILE" "$TMPD/kfile"
	_rc=$?
	umount "$mnt" || fail "cannot unmount $mnt"
	[ $_rc -eq 0 ] || fail "the kernel cannot read $FILE on $1"
	return 0
}

# db_field IMG INO FIELD: the value xfs_db prints for an inode field.
db_field() {
	"$XFS_DB" -r -c "inode $2" -c "print $3" "$1" 2>/dev/null |
		sed -n "s/^$3 = \([0-9]*\).*/\1/p"
}

orig="$work/orig.img"
zstd -q -d -f -o "$orig" "$top_srcdir/corpus/images/v5-files.img.zst" ||
	fail "cannot decompress v5-files"
ino=$("$XFSRECON" stat "$orig" "$FILE" | awk '$1 == "inode" { print $2; exit }')
[ -n "$ino" ] || fail "xfsrecon stat does not find $FILE"
[ "$(db_field "$orig" "$ino" core.nextents)" = "$NEXT" ] ||
	fail "$FILE (inode $ino) does not have $NEXT extents in the corpus image"
[ "$(db_field "$orig" "$ino" core.format)" = 3 ] || fail "$FILE is not in btree format"
osize=$(db_field "$orig" "$ino" core.size)
"$XFSRECON" cat "$orig" "$FILE" > "$TMPD/orig.data" || fail "cannot read $FILE"
[ "$(stat -c %s "$TMPD/orig.data")" = "$osize" ] || fail "$FILE: size differs from xfs_db's"
osum=$(sha256sum < "$TMPD/orig.data" | cut -d' ' -f1)
kernel=0
if kernel_file "$orig"; then
	[ "$(sha256sum < "$TMPD/kfile" | cut -d' ' -f1)" = "$osum" ] ||
		fail "the kernel and xfsrecon cat read $FILE differently on the original"
	kernel=1
else
	echo "note: the original image cannot be mounted here (not root, or no loop device): no kernel check"
fi
bsize=4096

# check_bytes WHAT DATAFILE KEPT_CORE: the file's bytes against the original.
check_bytes() {
	_size=$(stat -c %s "$2")
	if [ "$3" = yes ]; then
		[ "$_size" = "$osize" ] || fail "$1: size $_size, the original's is $osize"
	else
		[ "$_size" -ge "$osize" ] && [ "$_size" -lt $((osize + bsize)) ] ||
			fail "$1: size $_size is not the original $osize rounded up to a block"
	fi
	[ "$(head -c "$osize" "$2" | sha256sum | cut -d' ' -f1)" = "$osum" ] ||
		fail "$1: the first $osize bytes differ from the original's"
}

for case in core leaf root; do
	c="$work/$case.img"
	out="$work/$case.out.img"
	cp --sparse=always "$orig" "$c" || fail "cannot copy the image"
	case $case in
	core)
		cmds='-c "inode '$ino'" -c "fuzz -d core.magic zeroes" -c "fuzz -d core.format ones"'
		kept=no ;;
	leaf)
		cmds='-c "inode '$ino'" -c "addr u3.bmbt.ptrs[1]" -c "addr ptrs[3]" -c "fuzz -d magic zeroes"'
		kept=yes ;;
	root)
		cmds='-c "inode '$ino'" -c "fuzz u3.bmbt.level zeroes"'
		kept=yes ;;
	esac
	eval "\"\$XFS_DB\" -x $cmds \"\$c\"" > "$TMPD/$case.fuzz" 2>&1 ||
		fail "$case: xfs_db could not damage the copy: $(cat "$TMPD/$case.fuzz")"
	! "$XFS_REPAIR" -n "$c" > "$TMPD/$case.before" 2>&1 ||
		fail "$case: xfs_repair -n finds nothing wrong with the damaged copy"

	"$XFSRECON" repair -v "$c" -o "$out" > "$TMPD/$case.report" 2>&1
	rc=$?
	[ $rc -eq 1 ] || fail "$case: repair exited $rc, expected 1: $(grep -v '^write' "$TMPD/$case.report" | head -20)"
	grep -q "revive-file: file $ino brought back from the reverse map: $NEXT extents, .* mapped by a new bmbt" \
		"$TMPD/$case.report" || fail "$case: the report does not bring $ino back with a bmbt: $(grep -v '^write' "$TMPD/$case.report" | head -20)"

	"$XFS_REPAIR" -n "$out" > "$TMPD/$case.after" 2>&1 ||
		fail "$case: xfs_repair -n rejects the output: $(repair_text "$TMPD/$case.after")"
	"$XFSRECON" check "$out" > "$TMPD/$case.check" 2>&1 ||
		fail "$case: xfsrecon check finds problems in the output: $(head -20 "$TMPD/$case.check")"

	[ "$(db_field "$out" "$ino" core.format)" = 3 ] || fail "$case: the inode is not in btree format"
	[ "$(db_field "$out" "$ino" core.nextents)" = "$NEXT" ] ||
		fail "$case: the inode does not have $NEXT extents"
	nblocks=$(db_field "$out" "$ino" core.nblocks)
	bmbt=$("$XFS_DB" -r -c fsmap "$out" |
		awk -v o="$ino" '$6 == o && $10 == 1 { n += $4 } END { print n + 0 }')
	[ "$bmbt" -gt 0 ] || fail "$case: the reverse map names no bmbt block of inode $ino"
	[ $((NEXT + bmbt)) -eq "$nblocks" ] ||
		fail "$case: nblocks $nblocks, but $NEXT data blocks and $bmbt bmbt blocks in the reverse map"

	"$XFSRECON" cat "$out" "$FILE" > "$TMPD/out.data" || fail "$case: xfsrecon cat cannot read $FILE"
	check_bytes "$case (xfsrecon cat)" "$TMPD/out.data" $kept
	if [ $kernel -eq 1 ]; then
		kernel_file "$out" || fail "$case: the kernel cannot mount the output"
		check_bytes "$case (kernel)" "$TMPD/kfile" $kept
	fi
	what="whole file"
	[ $kept = yes ] || what="first $osize bytes of a file rounded up to blocks"
	echo "ok: $case: repaired with a $bmbt-block bmbt; xfs_repair -n and xfsrecon check clean;" \
		"$what matches the original (kernel: $([ $kernel -eq 1 ] && echo yes || echo not run))"
	rm -f "$c" "$out"
done

# ------------------------------------------------ a directory with a bmbt
DIR=/frag
frag="$work/frag.img"
cp --sparse=always "$orig" "$frag" || fail "cannot copy the image"
if ! command -v xfs_io >/dev/null 2>&1 || ! command -v fallocate >/dev/null 2>&1; then
	echo "note: dir: xfs_io or fallocate missing: directory case not run"
	exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! mount -o loop "$frag" "$mnt" 2>/dev/null; then
	echo "note: dir: the copy cannot be mounted read-write here: directory case not run"
	exit 0
fi
avail=$(df -B4096 --output=avail "$mnt" | tail -n 1)
n=$((avail - 64))
[ "$n" -gt 1000 ] || { umount "$mnt"; fail "dir: only $avail free blocks"; }
fallocate -l $((n * 4096)) "$mnt/filler" || { umount "$mnt"; fail "dir: fallocate failed"; }
awk -v n="$n" 'BEGIN { for (i = 0; i < n; i += 2) printf "fpunch %d 4096\n", i * 4096 }' |
	xfs_io "$mnt/filler" || { umount "$mnt"; fail "dir: punching failed"; }
(cd "$mnt$DIR" && LC_ALL=C ls -1ai --quoting-style=escape . | sort) > "$TMPD/dir.before"
umount "$mnt" || fail "cannot unmount $mnt"
dino=$("$XFSRECON" stat "$frag" "$DIR" | awk '$1 == "inode" { print $2; exit }')
[ -n "$dino" ] || fail "dir: xfsrecon stat does not find $DIR"
dfork=$(( $(db_field "$frag" "$dino" core.forkoff) * 8 ))
[ "$dfork" -gt 0 ] || fail "dir: $DIR has no attr fork offset to size its data fork"
"$XFS_DB" -x -c "inode $dino" -c "dblock 1" -c "fuzz -d dhdr.hdr.magic zeroes" "$frag" \
	> "$TMPD/dir.fuzz" 2>&1 || fail "dir: xfs_db could not damage $DIR: $(cat "$TMPD/dir.fuzz")"
! "$XFS_REPAIR" -n "$frag" > "$TMPD/dir.before.repair" 2>&1 ||
	fail "dir: xfs_repair -n finds nothing wrong with the damaged copy"
out="$work/frag.out.img"
"$XFSRECON" repair -v "$frag" -o "$out" > "$TMPD/dir.report" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "dir: repair exited $rc, expected 1: $(grep -v '^write' "$TMPD/dir.report" | head -20)"
grep -q "rewrite-directory: directory $dino rewritten" "$TMPD/dir.report" ||
	fail "dir: $DIR was not rewritten: $(grep -v '^write' "$TMPD/dir.report" | head -20)"
grep -q "(bmbt, AG [0-9]* block [0-9]*, inode $dino)" "$TMPD/dir.report" ||
	fail "dir: no bmbt block was written for $DIR"
"$XFS_REPAIR" -n "$out" > "$TMPD/dir.after" 2>&1 ||
	fail "dir: xfs_repair -n rejects the output: $(repair_text "$TMPD/dir.after")"
"$XFSRECON" check "$out" > "$TMPD/dir.check" 2>&1 ||
	fail "dir: xfsrecon check finds problems in the output: $(head -20 "$TMPD/dir.check")"
[ "$(db_field "$out" "$dino" core.format)" = 3 ] || fail "dir: $DIR is not in btree format"
dnext=$(db_field "$out" "$dino" core.nextents)
[ "$dnext" -gt $((dfork / 16)) ] ||
	fail "dir: $dnext extents would fit the $dfork-byte fork as a list"
dnblocks=$(db_field "$out" "$dino" core.nblocks)
"$XFS_DB" -r -c fsmap "$out" > "$TMPD/dir.fsmap"
dbmbt=$(awk -v o="$dino" '$6 == o && $10 == 1 { n += $4 } END { print n + 0 }' "$TMPD/dir.fsmap")
ddata=$(awk -v o="$dino" '$6 == o && $10 == 0 { n += $4 } END { print n + 0 }' "$TMPD/dir.fsmap")
[ "$dbmbt" -gt 0 ] || fail "dir: the reverse map names no bmbt block of $DIR"
[ $((ddata + dbmbt)) -eq "$dnblocks" ] ||
	fail "dir: nblocks $dnblocks, the reverse map names $ddata data and $dbmbt bmbt blocks"
mount -o ro,loop "$out" "$mnt" || fail "dir: the kernel cannot mount the output"
(cd "$mnt$DIR" && LC_ALL=C ls -1ai --quoting-style=escape . | sort) > "$TMPD/dir.after.ls"
lrc=$?
umount "$mnt" || fail "cannot unmount $mnt"
[ $lrc -eq 0 ] || fail "dir: the kernel cannot list $DIR"
cmp -s "$TMPD/dir.before" "$TMPD/dir.after.ls" ||
	fail "dir: the kernel lists $DIR differently: $(diff "$TMPD/dir.before" "$TMPD/dir.after.ls" | head -10)"
echo "ok: dir: $DIR rewritten with $dnext extents under a $dbmbt-block bmbt; xfs_repair -n and" \
	"xfsrecon check clean; the kernel lists its $(grep -c . "$TMPD/dir.after.ls") entries as before"
exit 0
