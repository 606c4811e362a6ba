#!/bin/sh
# make-seeds.sh - (re)generate the fuzz seeds in tests/fuzz/seeds/ from
# freshly made scratch images and the committed corpus images.
#
# usage: tests/fuzz/make-seeds.sh BUILDDIR
#   BUILDDIR is a configured build tree; tests/fuzz/img2fzi is built there.
# needs: root (loop mounts), mkfs.xfs, xfs_db, xfs_io, xfs_logprint, zstd; setfattr if present.
#
# Scratch images are made small (16-64 MiB) by running mkfs.xfs with the
# environment of the XFS test suite, under which it skips its 300 MB minimum;
# if a mkfs refuses anyway the image is made at 320 MiB instead (the seeds
# only hold non-zero bytes, so this changes nothing but time).  Seeds, per
# target (formats: see each fuzz_<target>.c):
#   sb         sector 0 of AG 0 and of the last AG; AG 0 + AG 1 structures
#   agheaders  superblock + AG number + AGF/AGI/AGFL sectors, AG 0 and last
#   btree      every AG btree root (and a leaf under a node root), bmbt blocks
#   dinode     inodes of every kind the images hold, and a free one
#   log        the head of a clean log and of a dirty (shut down) log
#   dir        shortform forks and data, block, leaf1, node, leafN and free
#              blocks of the directories the images hold
#   attr       shortform attr forks, attr leaf, node and remote value blocks,
#              local and remote symlinks
#   image      whole scratch images packed by img2fzi, one truncated, two
#              whole-disk images (GPT, MBR) with the filesystem in partition 1;
#              raw inputs: a zstd and a zstd-seekable compressed image
# Re-running replaces the seeds; the committed ones came from mkfs.xfs 6.1.0.
set -eu

builddir=${1:?usage: make-seeds.sh BUILDDIR}
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
img2fzi=$(cd "$builddir" && pwd)/tests/fuzz/img2fzi
seeds="$srcdir/tests/fuzz/seeds"

[ "$(id -u)" = 0 ] || { echo "make-seeds.sh: needs root for loop mounts" >&2; exit 1; }
for t in mkfs.xfs xfs_db xfs_io xfs_logprint zstd; do
	command -v "$t" >/dev/null 2>&1 || { echo "make-seeds.sh: $t missing" >&2; exit 1; }
done
(cd "$builddir" && make -s tests/fuzz/img2fzi) || exit 1

work=$(mktemp -d "${TMPDIR:-/tmp}/xfz-seeds.XXXXXX")
mnt="$work/mnt"
mkdir -p "$mnt"
cleanup() {
	mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

for t in sb agheaders btree dinode log dir attr image; do
	rm -rf "${seeds:?}/$t"
	mkdir -p "$seeds/$t"
done

# ------------------------------------------------------------------ helpers

# mkimg NAME SIZE MKFS-OPTIONS...: a scratch image at $work/NAME.img
mkimg() {
	name=$1 size=$2
	shift 2
	rm -f "$work/$name.img"
	truncate -s "$size" "$work/$name.img"
	if ! TEST_DIR=$work TEST_DEV=$work/$name.img QA_CHECK_FS=1 \
		mkfs.xfs -q -f -m uuid=5e2c4a10-7d3b-4c1e-9f00-0000000000f1 "$@" \
		"$work/$name.img" 2>/dev/null; then
		truncate -s 320m "$work/$name.img"
		mkfs.xfs -q -f -m uuid=5e2c4a10-7d3b-4c1e-9f00-0000000000f1 "$@" "$work/$name.img"
	fi
}

# populate DIR: a little of everything, kept small so image seeds stay small
populate() {
	d=$1
	mkdir -p "$d/dir/sub" "$d/big"
	printf 'hello\n' > "$d/dir/small"
	# zeros: data blocks cost nothing in a packed image seed
	dd if=/dev/zero of="$d/dir/medium" bs=4k count=5 status=none
	ln -s small "$d/dir/link"
	ln -s "$(printf '%0300d' 0)" "$d/dir/longlink"
	ln "$d/dir/small" "$d/dir/hardlink"
	mknod "$d/dir/fifo" p
	for i in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25; do
		: > "$d/big/entry-with-a-long-name-$i"
	done
	# 40 separate extents: more than an inode fork holds, so a bmbt block
	xfs_io -f -c "falloc 0 4k" "$d/dir/frag" >/dev/null
	i=0
	while [ $i -lt 40 ]; do
		xfs_io -c "pwrite -q $((i * 8192)) 4096" -c fsync "$d/dir/frag"
		i=$((i + 1))
	done
	xfs_io -f -c "falloc 0 64k" "$d/dir/unwritten"
	if command -v setfattr >/dev/null 2>&1; then
		setfattr -n user.a -v one "$d/dir/small"
		setfattr -n user.big -v "$(printf '%0900d' 7)" "$d/dir/medium"
	fi
	cp --reflink=always "$d/dir/medium" "$d/dir/medium.reflink" 2>/dev/null || true
}

# mounted_populate NAME: populate through a loop mount
mounted_populate() {
	mount -o loop "$work/$1.img" "$mnt"
	populate "$mnt"
	umount "$mnt"
}

# dirty_populate NAME: a few files, then a shutdown that flushes the log but
# never writes the metadata back: a dirty log with real records in it
dirty_populate() {
	mount -o loop "$work/$1.img" "$mnt"
	mkdir "$mnt/d"
	printf 'one\n' > "$mnt/d/one"
	ln -s one "$mnt/d/two"
	sync
	printf 'three\n' > "$mnt/d/three"
	rm "$mnt/d/one"
	xfs_io -x -c "shutdown -f" "$mnt"
	umount "$mnt"
}

# proto_populate NAME MKFS-OPTIONS...: populate with an mkfs prototype file
# (v4 and 64 KiB-block images, which this kernel may not mount)
proto_populate() {
	name=$1 size=$2
	shift 2
	printf 'hello\n' > "$work/small.txt"
	dd if=/dev/zero of="$work/medium.bin" bs=4k count=5 status=none
	cat > "$work/proto" <<EOF
seedimage
0 0
d--755 0 0
dir d--755 0 0
small ---644 0 0 $work/small.txt
medium ---644 0 0 $work/medium.bin
link l--777 0 0 small
fifo p--644 0 0
sub d--755 0 0
\$
\$
\$
EOF
	mkimg "$name" "$size" -p "$work/proto" "$@"
}

# geo IMG FIELD: one superblock field
geo() {
	xfs_db -r -c "sb 0" -c "p $2" "$1" | sed -n 's/^[^=]* = //p'
}

# at IMG XFS_DB-COMMANDS...: "OFFSET LENGTH" of the object the commands reach
at() {
	img=$1
	shift
	for c in "$@"; do set -- "$@" -c "$c"; shift; done
	xfs_db -r "$@" -c stack "$img" 2>/dev/null |
		sed -n 's/.*byte offset \([0-9]*\), length \([0-9]*\).*/\1 \2/p' | tail -1
}

# bytes IMG OFF LEN: copy bytes out of an image
bytes() {
	dd if="$1" iflag=skip_bytes,count_bytes bs=65536 skip="$2" count="$3" status=none
}

# byte N: one raw byte
byte() {
	printf "\\$(printf %03o "$1")"
}

# be64 N
be64() {
	n=$1 i=56
	while [ $i -ge 0 ]; do
		byte $(((n >> i) & 255))
		i=$((i - 8))
	done
}

# sbhdr IMG: the geometry header of harness.h (0x80 + superblock structure)
sbhdr() {
	byte 128
	bytes "$1" 0 264
}

# trimmed KEEP OUT: standard input without trailing zeros (at least KEEP bytes)
trimmed() {
	cat > "$work/untrimmed"
	"$img2fzi" trim "$work/untrimmed" "$2" "$1"
}

# fsb_byte IMG FSB: byte offset of a packed filesystem block
fsb_byte() {
	xfs_db -r -c "fsblock $2" -c stack "$1" 2>/dev/null |
		sed -n 's/.*byte offset \([0-9]*\),.*/\1/p' | tail -1
}

# fblock IMG PATH d|a FILEBLOCK: byte offset of a block of a file's data or
# attr fork, from xfs_db's bmap ("data offset O startblock S (a/b) count C")
fblock() {
	flag=
	[ "$3" = a ] && flag=-a
	fsb=$(xfs_db -r -c "path $2" -c "bmap $flag" "$1" 2>/dev/null |
		awk -v b="$4" '$2 == "offset" && b >= $3 && b < $3 + $8 { print $5 + b - $3; exit }')
	[ -z "$fsb" ] || fsb_byte "$1" "$fsb"
}

# ival IMG PATH FIELD: one field of an inode
ival() {
	xfs_db -r -c "path $2" -c "p $3" "$1" 2>/dev/null | sed -n 's/^[^=]* = \([0-9]*\).*/\1/p'
}

# fork IMG PATH d|a: the bytes of an inode's data or attr fork
fork() {
	loc=$(xfs_db -r -c "path $2" -c stack "$1" 2>/dev/null |
		sed -n 's/.*byte offset \([0-9]*\), length \([0-9]*\).*/\1 \2/p' | tail -1)
	[ -n "$loc" ] || return 0
	set -- "$1" "$2" "$3" $loc "$(ival "$1" "$2" core.forkoff)"
	core=100
	[ "$(geo "$1" versionnum | sed 's/.*\(.\)$/\1/')" = 5 ] && core=176
	if [ "$3" = d ]; then
		n=$(($5 - core))
		[ "${6:-0}" -gt 0 ] && n=$(($6 * 8))
		bytes "$1" $(($4 + core)) "$n"
	else
		[ "${6:-0}" -gt 0 ] || return 0
		bytes "$1" $(($4 + core + $6 * 8)) $(($5 - core - $6 * 8))
	fi
}

# be32 N
be32() {
	byte $((($1 >> 24) & 255)); byte $((($1 >> 16) & 255))
	byte $((($1 >> 8) & 255)); byte $(($1 & 255))
}

# seed_names IMG NAME: directory, attribute and symlink seeds (fuzz_dir,
# fuzz_attr) from whatever of the corpus paths the image has
seed_names() {
	img=$1 name=$2
	bsize=$(geo "$img" blocksize)
	dbs=$((bsize << $(geo "$img" dirblklog)))
	leafda=$(((32 << 30) / bsize))
	freeda=$(((64 << 30) / bsize))
	for p in /dirs/short /dirs/block /dirs/leaf /dirs/node /many /dir /big /dirs/empty; do
		[ -n "$(ival "$img" "$p" core.mode)" ] || continue
		ino=$(xfs_db -r -c "path $p" -c stack "$img" | sed -n 's/.*inode \([0-9]*\), dir inode.*/\1/p' | tail -1)
		tag=$(printf '%s' "$p" | tr / _)
		fmt=$(ival "$img" "$p" core.format)
		if [ "$fmt" = 1 ]; then
			sz=$(ival "$img" "$p" core.size)
			{ sbhdr "$img"; byte 0; byte 0; be64 "$ino"; be32 "$sz"; fork "$img" "$p" d; } \
				> "$seeds/dir/$name-sf$tag"
			continue
		fi
		nblk=$(ival "$img" "$p" core.size)
		nblk=$(((nblk + dbs - 1) / dbs))
		# data block 0: block form if the directory is one block long
		kind=1
		[ "$nblk" = 1 ] && kind=2
		o=$(fblock "$img" "$p" d 0)
		[ -z "$o" ] || { sbhdr "$img"; byte $kind; byte 0; be64 "$ino"; be32 0; bytes "$img" "$o" "$dbs"; } |
			trimmed 279 "$seeds/dir/$name-data$tag"
		# leaf segment: a leaf1 block, or a node and a leafN block
		o=$(fblock "$img" "$p" d "$leafda")
		if [ -n "$o" ]; then
			magic=$(bytes "$img" $((o + 8)) 2 | od -An -tx1 | tr -d ' ')
			case $magic in
			3ebe|febe) kind=5 flags=0 ;;
			3df1|d2f1) kind=3 flags=1 ;;
			*) kind=3 flags=0 ;;
			esac
			{ sbhdr "$img"; byte $kind; byte $flags; be64 "$ino"; be32 "$leafda"; bytes "$img" "$o" "$dbs"; } |
				trimmed 279 "$seeds/dir/$name-leafda$tag"
			if [ $kind = 5 ]; then
				o=$(fblock "$img" "$p" d $((leafda + 1)))
				[ -z "$o" ] || { sbhdr "$img"; byte 3; byte 0; be64 "$ino"; be32 $((leafda + 1))
					bytes "$img" "$o" "$dbs"; } | trimmed 279 "$seeds/dir/$name-leafn$tag"
			fi
		fi
		o=$(fblock "$img" "$p" d "$freeda")
		[ -z "$o" ] || { sbhdr "$img"; byte 4; byte 0; be64 "$ino"; be32 "$freeda"
			bytes "$img" "$o" "$dbs"; } | trimmed 279 "$seeds/dir/$name-free$tag"
	done
	for p in /attrs/short /attrs/local /attrs/leaf /attrs/node /attrs/remote /dir/small \
		/dir/medium; do
		[ -n "$(ival "$img" "$p" core.mode)" ] || continue
		ino=$(xfs_db -r -c "path $p" -c stack "$img" | sed -n 's/.*inode \([0-9]*\), dir inode.*/\1/p' | tail -1)
		tag=$(printf '%s' "$p" | tr / _)
		afmt=$(ival "$img" "$p" core.aformat)
		if [ "$afmt" = 1 ]; then
			{ sbhdr "$img"; byte 0; byte 255; be64 "$ino"; be32 0; fork "$img" "$p" a; } \
				> "$seeds/attr/$name-sf$tag"
			continue
		fi
		for b in 0 1; do
			o=$(fblock "$img" "$p" a "$b")
			[ -n "$o" ] || continue
			magic=$(bytes "$img" $((o + 8)) 2 | od -An -tx1 | tr -d ' ')
			case $magic in
			3ebe|febe) kind=2 ;;
			3bee|fbee) kind=1 ;;
			*) continue ;;
			esac
			{ sbhdr "$img"; byte $kind; byte 255; be64 "$ino"; be32 "$b"; bytes "$img" "$o" "$bsize"; } |
				trimmed 279 "$seeds/attr/$name-blk$b$tag"
		done
		# a remote value: the blocks named by the first remote entry of leaf 0
		vb=$(xfs_db -r -c "path $p" -c "ablock 0" -c "p nvlist[0].valueblk" "$img" 2>/dev/null |
			sed -n 's/.* = //p')
		vl=$(xfs_db -r -c "path $p" -c "ablock 0" -c "p nvlist[0].valuelen" "$img" 2>/dev/null |
			sed -n 's/.* = //p')
		if [ -n "$vb" ] && [ -n "$vl" ]; then
			vb=$((vb))
			{ sbhdr "$img"; byte 3; byte 255; be64 "$ino"; be32 "$vl"
				for i in 0 1 2; do
					o=$(fblock "$img" "$p" a $((vb + i)))
					[ -z "$o" ] || bytes "$img" "$o" "$bsize"
				done; } > "$seeds/attr/$name-rmt$tag"
		fi
	done
	for p in /links/short /links/long /symlinks/short /symlinks/long /symlinks/max-1023 \
		/dir/link /dir/longlink; do
		[ -n "$(ival "$img" "$p" core.mode)" ] || continue
		ino=$(xfs_db -r -c "path $p" -c stack "$img" | sed -n 's/.*inode \([0-9]*\), dir inode.*/\1/p' | tail -1)
		tag=$(printf '%s' "$p" | tr / _)
		sz=$(ival "$img" "$p" core.size)
		if [ "$(ival "$img" "$p" core.format)" = 1 ]; then
			{ sbhdr "$img"; byte 4; byte 255; be64 "$ino"; be32 "$sz"; fork "$img" "$p" d; } \
				> "$seeds/attr/$name-symlink$tag"
		else
			{ sbhdr "$img"; byte 5; byte 255; be64 "$ino"; be32 "$sz"
				for i in 0 1; do
					o=$(fblock "$img" "$p" d $i)
					[ -z "$o" ] || bytes "$img" "$o" "$bsize"
				done; } > "$seeds/attr/$name-symlink$tag"
		fi
	done
}

# ------------------------------------------------------------------ per image

seed_image() {
	img=$1 name=$2
	sect=$(geo "$img" sectsize)
	bsize=$(geo "$img" blocksize)
	agblocks=$(geo "$img" agblocks)
	agcount=$(geo "$img" agcount)
	last=$((agcount - 1))

	# sb
	bytes "$img" 0 "$sect" > "$seeds/sb/$name-ag0"
	bytes "$img" $((last * agblocks * bsize)) "$sect" > "$seeds/sb/$name-ag$last"
	{ bytes "$img" 0 264; bytes "$img" $((agblocks * bsize)) 264; } > "$seeds/sb/$name-pair"

	# agheaders
	for ag in 0 "$last"; do
		{ sbhdr "$img"; byte "$ag"; bytes "$img" $((ag * agblocks * bsize + sect)) $((3 * sect)); } \
			> "$seeds/agheaders/$name-ag$ag"
	done

	# btree: roots of every AG tree in AG 0 and the last AG, a child of node roots
	for ag in 0 "$last"; do
		for spec in agf:bnoroot:bnolevel:0 agf:cntroot:cntlevel:1 agi:root:level:2 \
			agi:free_root:free_level:3 agf:rmaproot:rmaplevel:4 \
			agf:refcntroot:refcntlevel:5; do
			IFS=: read -r hdr root level btnum <<EOF
$spec
EOF
			r=$(xfs_db -r -c "$hdr $ag" -c "p $root" "$img" 2>/dev/null | sed -n 's/^[^=]* = //p')
			l=$(xfs_db -r -c "$hdr $ag" -c "p $level" "$img" 2>/dev/null | sed -n 's/^[^=]* = //p')
			case "$r" in ''|0|null) continue ;; esac
			set -- $(at "$img" "$hdr $ag" "addr $root")
			[ $# = 2 ] && [ "$2" = "$bsize" ] || continue
			{ sbhdr "$img"; byte "$btnum"; byte 6; byte "$ag"; bytes "$img" "$1" "$2"; } |
				trimmed 268 "$seeds/btree/$name-ag$ag-$root"
			if [ "${l:-1}" -gt 1 ]; then
				set -- $(at "$img" "$hdr $ag" "addr $root" "addr ptrs[1]")
				[ $# = 2 ] && [ "$2" = "$bsize" ] || continue
				{ sbhdr "$img"; byte "$btnum"; byte 4; byte "$ag"; bytes "$img" "$1" "$2"; } |
					trimmed 268 "$seeds/btree/$name-ag$ag-$root-child"
			fi
		done
	done

	# dinode: the root, and everything under the populated directories
	root=$(geo "$img" rootino)
	for p in / /dir /big /dir/small /dir/medium /dir/link /dir/longlink /dir/fifo \
		/dir/frag /dir/unwritten /dir/medium.reflink /dir/sub \
		/many /many/extents /data/big.txt /links/long /attrs/leaf /dirs/leaf; do
		loc=$(xfs_db -r -c "path $p" -c stack "$img" 2>/dev/null) || continue
		off=$(printf '%s\n' "$loc" | sed -n 's/.*byte offset \([0-9]*\), length \([0-9]*\).*/\1 \2/p' | tail -1)
		ino=$(printf '%s\n' "$loc" | sed -n 's/.*inode \([0-9]*\), dir inode.*/\1/p' | tail -1)
		[ -n "$off" ] && [ -n "$ino" ] || continue
		set -- $off
		tag=$(printf '%s' "$p" | tr / _)
		{ sbhdr "$img"; be64 "$ino"; bytes "$img" "$1" "$2"; } |
			trimmed 273 "$seeds/dinode/$name-ino$tag"
		# a bmbt block of a btree-format data fork
		xfs_db -r -c "path $p" -c "p core.format" "$img" 2>/dev/null | grep -q btree || continue
		for f in u3.bmbt u.bmbt; do
			set -- $(at "$img" "path $p" "addr $f.ptrs[1]")
			if [ $# = 2 ] && [ "$2" = "$bsize" ]; then
				{ sbhdr "$img"; byte 6; byte 4; byte 0; bytes "$img" "$1" "$2"; } |
					trimmed 268 "$seeds/btree/$name-bmbt$tag"
				break
			fi
		done
	done
	# a free inode slot right after the root's chunk neighbours
	set -- $(at "$img" "inode $((root + 40))")
	if [ $# = 2 ]; then
		{ sbhdr "$img"; be64 $((root + 40)); bytes "$img" "$1" "$2"; } |
			trimmed 273 "$seeds/dinode/$name-free"
	fi

	# log: the first 16 blocks of the log (a record header and its payload)
	logstart=$(geo "$img" logstart)
	if [ "$logstart" != 0 ]; then
		set -- $(xfs_db -r -c "fsblock $logstart" -c stack "$img" |
			sed -n 's/.*byte offset \([0-9]*\),.*/\1/p' | tail -1)
		[ $# = 1 ] && bytes "$img" "$1" 8192 > "$seeds/log/$name-head"
	fi
}

# pack IMG NAME [logformat]: an image seed, when the packed form is small
# enough to fuzz.  With logformat, a scratch copy's log is first reformatted
# (cycle 1: zeros and an unmount record) because a mounted image's log holds
# hundreds of KiB of records; xfs_repair then notes the metadata LSNs are
# ahead of the log, which is harmless for a seed.
pack() {
	if [ "${3:-}" = logformat ]; then
		xfs_db -x -c logformat "$1" >/dev/null
	fi
	"$img2fzi" pack "$1" "$seeds/image/$2"
	sz=$(wc -c < "$seeds/image/$2")
	if [ "$sz" -gt 262144 ]; then
		echo "make-seeds.sh: $2 packs to $sz bytes: too big for a seed, dropped" >&2
		rm -f "$seeds/image/$2"
	fi
}

# zero_stale_log IMG: zero the log past its head.  A first mount stamps up
# to 2 MiB past the head with cycle-0 record headers (stale block clearing);
# they mean "never written", exactly like zeros, but would cost 250 KiB in a
# packed seed.
zero_stale_log() {
	head=$(xfs_logprint -t "$1" 2>/dev/null | sed -n 's/.*log tail: [0-9]* head: \([0-9]*\).*/\1/p')
	[ -n "$head" ] || return 0
	set -- "$1" $(xfs_logprint -t "$1" 2>/dev/null | sed -n 's/.*daddr: \([0-9]*\) length: \([0-9]*\).*/\1 \2/p')
	[ $# = 3 ] || return 0
	dd if=/dev/zero of="$1" bs=512 seek=$(($2 + head)) count=$(($3 - head)) \
		conv=notrunc status=none
}

# ------------------------------------------------------------------ images

mkimg v5-rmap 64m -m rmapbt=1,reflink=1 -d agcount=4
mounted_populate v5-rmap
mkimg v5-dirty 64m -m rmapbt=1,reflink=1 -d agcount=2
dirty_populate v5-dirty
zero_stale_log "$work/v5-dirty.img"
mkimg v5-1k 64m -b size=1024 -d agcount=4
mounted_populate v5-1k
mkimg v5-4ksect 64m -s size=4096 -d agcount=4
mounted_populate v5-4ksect
mkimg v5-nrext64 64m -i size=1024,nrext64=1 -m bigtime=1 -d agcount=4
mounted_populate v5-nrext64
mkimg v5-fresh 16m
proto_populate v4 64m -m crc=0 -i size=256 -d agcount=4
proto_populate v4-2kinode 64m -m crc=0 -i size=2048 -d agcount=2
proto_populate v5-64k 256m -b size=65536 -d agcount=4

for name in v5-dirty v5-fresh v4 v4-2kinode v5-64k; do
	seed_image "$work/$name.img" "$name"
	seed_names "$work/$name.img" "$name"
	pack "$work/$name.img" "$name"
done
for name in v5-rmap v5-1k v5-4ksect v5-nrext64; do
	seed_image "$work/$name.img" "$name"
	seed_names "$work/$name.img" "$name"
	pack "$work/$name.img" "$name" logformat
done
# A truncated image: only the first AG and a half of v5-rmap.
head -c 24m "$work/v5-rmap.img" > "$work/v5-rmap-trunc.img"
pack "$work/v5-rmap-trunc.img" v5-rmap-trunc

# Raw (not container) inputs: zstd-compressed images, plain and in the
# seekable format, which reach the image-type detection and both zstd readers.
zstd -q -19 -f -o "$seeds/image/raw-v5-fresh.zst" "$work/v5-fresh.img"
if (cd "$builddir" && make -s tests/tools/mkseekable) >/dev/null 2>&1; then
	"$builddir/tests/tools/mkseekable" -f 1048576 -c "$work/v5-fresh.img" \
		"$seeds/image/raw-v5-fresh-seekable.zst"
fi

# Whole-disk images: a GPT and an MBR in front of a small filesystem.
if command -v sfdisk >/dev/null 2>&1; then
	mkimg part 16m
	for label in gpt dos; do
		case $label in
		gpt) type=0FC63DAF-8483-4772-8E79-3D69D8477DE4 ;;
		dos) type=83 ;;
		esac
		rm -f "$work/disk-$label.img"
		truncate -s 20m "$work/disk-$label.img"
		printf 'label: %s\nstart=2048, size=32768, type=%s\n' "$label" "$type" |
			sfdisk -q "$work/disk-$label.img" >/dev/null
		dd if="$work/part.img" of="$work/disk-$label.img" bs=1M seek=1 \
			conv=notrunc,sparse status=none
		pack "$work/disk-$label.img" "disk-$label"
	done
fi

# The committed corpus images: richer trees (two-level btrees, many inodes).
for z in "$srcdir"/corpus/images/*.img.zst; do
	[ -f "$z" ] || continue
	name=corpus-$(basename "$z" .img.zst)
	zstd -q -d -f -o "$work/$name.img" "$z"
	seed_image "$work/$name.img" "$name"
	seed_names "$work/$name.img" "$name"
	pack "$work/$name.img" "$name" logformat
	rm -f "$work/$name.img"
done

for t in sb agheaders btree dinode log dir attr image; do
	printf '%-10s %4d seeds, %7d bytes\n' "$t" "$(ls "$seeds/$t" | wc -l)" \
		"$(cat "$seeds/$t"/* | wc -c)"
done
