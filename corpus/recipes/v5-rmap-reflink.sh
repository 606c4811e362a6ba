#!/bin/sh
# corpus/recipes/v5-rmap-reflink.sh - the main corpus image: a V5 filesystem
# with rmapbt, reflink, finobt and sparse inodes, 4 KiB blocks, four AGs of
# 25600 blocks (not a power of two).  The directory /many lands in one AG
# and is filled so that in that AG every per-AG btree has two levels:
#   - 17000 empty files: 266 inode chunks > 252 inobt records per leaf;
#   - every 64th of them deleted: a free inode in every chunk, so the
#     finobt has as many records as the inobt;
#   - 1200 one-block files, every other one deleted, plus a 1200-block
#     file with every other block punched out: > 505 free extents (bnobt,
#     cntbt leaf capacity) and > 168 rmap records (rmapbt leaf capacity);
#   - a reflinked copy of the punched file: 600 shared extents > 336
#     refcount records per leaf; both files have a bmbt (btree) data fork.
# Elsewhere: directories in each format (short form, block, leaf, node), a
# reflinked copy of a plain file, an fallocated (unwritten) file, xattrs in
# local, leaf and remote form, short (inline) and long (remote) symlinks.
NAME=v5-rmap-reflink
. "$(dirname "$0")/common.sh"

make_image 400M -m crc=1,rmapbt=1,reflink=1,finobt=1,uuid=5e2c4a10-7d3b-4c1e-9f00-000000000001 \
	-i sparse=1 -d agcount=4
mount_image

# plain files with fixed content, a reflinked copy, an fallocated file
mkdir "$mnt/data"
fill_file "$mnt/data/small.txt" 100 small
fill_file "$mnt/data/medium.txt" 20000 medium
fill_file "$mnt/data/big.txt" 1048576 big
cp --reflink=always "$mnt/data/big.txt" "$mnt/data/big.reflink"
fallocate -l 1048576 "$mnt/data/unwritten"
: > "$mnt/data/empty"

# directories in each format
mkdir -p "$mnt/dirs/short" "$mnt/dirs/block" "$mnt/dirs/leaf"
for i in 1 2 3; do : > "$mnt/dirs/short/s$i"; done
i=0
while [ $i -lt 40 ]; do : > "$mnt/dirs/block/block-entry-$i"; i=$((i + 1)); done
i=0
while [ $i -lt 300 ]; do : > "$mnt/dirs/leaf/a-leaf-directory-entry-name-$i"; i=$((i + 1)); done

# symlinks: inline target and a target too long for the inode (remote)
mkdir "$mnt/links"
ln -s ../data/small.txt "$mnt/links/short"
long=$(awk 'BEGIN { s = ""; for (i = 0; i < 50; i++) s = s "component" i "/"; print s "end" }')
ln -s "$long" "$mnt/links/long"

# extended attributes: local (in the inode), leaf block, remote value
mkdir "$mnt/attrs"
: > "$mnt/attrs/local"
setfattr -n user.colour -v blue "$mnt/attrs/local"
setfattr -n trusted.note -v fixed "$mnt/attrs/local"
populate_attr_blocks

# /many: one AG with two-level btrees of every kind
mkdir "$mnt/many"
i=0
while [ $i -lt 1200 ]; do
	put_file "$mnt/many/frag-$i" 4096 "frag$i"
	i=$((i + 1))
done
put_file "$mnt/many/extents" 4915200 extents
sync
i=0
while [ $i -lt 1200 ]; do
	rm "$mnt/many/frag-$i"
	i=$((i + 2))
done
i=0
while [ $i -lt 1200 ]; do
	xfs_io -c "fpunch $((i * 4096)) 4096" "$mnt/many/extents"
	i=$((i + 2))
done
cp --reflink=always "$mnt/many/extents" "$mnt/many/extents.reflink"
sync
i=0
while [ $i -lt 17000 ]; do
	: > "$mnt/many/f$i"
	i=$((i + 1))
done
sync
i=0
while [ $i -lt 17000 ]; do
	rm "$mnt/many/f$i"
	i=$((i + 64))
done

umount_image
finish
