#!/bin/sh
# corpus/recipes/v6-metadir.sh - a filesystem with a metadata directory tree:
# mkfs.xfs 6.13's defaults (rmapbt, reflink, finobt, sparse inodes, bigtime,
# inobtcount, nrext64, exchange-range) with -m metadir=1, no realtime
# section, populated through a loop mount.  The superblock names the tree's
# root (metadirino) and no realtime inode (rbmino and rsumino are 0); the
# tree's directory inodes carry the METADATA flag.  Directories of every
# form, files with data, a hard link, symlinks, attributes in leaf and
# remote form.
#
# Made with xfsprogs 6.13 (tests/tools/xfsprogs-current.sh; xfsprogs 6.1
# refuses the format), and written to corpus/current/, beside the images
# every test walks: only tests that have xfsprogs 6.13 use it.
NAME=v6-metadir
here=$(cd "$(dirname "$0")" && pwd)
cur=$(sh "$here/../../tests/tools/xfsprogs-current.sh") || { echo "$NAME: needs xfsprogs 6.13" >&2; exit 1; }
MKFS_XFS=$cur/mkfs.xfs XFS_DB=$cur/xfs_db XFS_REPAIR=$cur/xfs_repair
. "$here/common.sh"
out_dir="$corpus_dir/current"

make_image 400M -m metadir=1,uuid=5e2c4a10-7d3b-4c1e-9f00-000000000102 -d agcount=4
mount_image
populate_light

populate_dir_forms

# files with data of a few sizes, one of many extents
mkdir "$mnt/data"
fill_file "$mnt/data/small" 5000 small
fill_file "$mnt/data/large" 3000000 large
i=0
while [ $i -lt 40 ]; do
	xfs_io -f -c "pwrite -q $((i * 8192)) 4096" "$mnt/data/sparse" > /dev/null
	i=$((i + 1))
done
ln "$mnt/data/small" "$mnt/dirs/block/small-too"

# attributes in leaf form and a remote value
mkdir "$mnt/attrs"
populate_attr_blocks

# symlinks, inline and remote
mkdir "$mnt/links"
ln -s ../etc/motd "$mnt/links/short"
long=$(awk 'BEGIN { s = ""; for (i = 0; i < 50; i++) s = s "component" i "/"; print s "end" }')
ln -s "$long" "$mnt/links/long"
umount_image
finish
