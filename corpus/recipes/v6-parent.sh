#!/bin/sh
# corpus/recipes/v6-parent.sh - a filesystem of today: mkfs.xfs 6.13's
# defaults (rmapbt, reflink, finobt, sparse inodes, bigtime, inobtcount,
# nrext64) with parent pointers (-n parent=1), populated through a loop
# mount.  Every inode carries its names as "parent." attributes: short form
# beside a user attribute, leaf form among 60 of them, several of them on a
# file with hard links in three directories; directories of every form.
#
# Made with xfsprogs 6.13 (tests/tools/xfsprogs-current.sh; xfsprogs 6.1
# refuses the format), and written to corpus/current/, beside the images
# every test walks: only tests that have xfsprogs 6.13 use it.
NAME=v6-parent
here=$(cd "$(dirname "$0")" && pwd)
cur=$(sh "$here/../../tests/tools/xfsprogs-current.sh") || { echo "$NAME: needs xfsprogs 6.13" >&2; exit 1; }
MKFS_XFS=$cur/mkfs.xfs XFS_DB=$cur/xfs_db XFS_REPAIR=$cur/xfs_repair
. "$here/common.sh"
out_dir="$corpus_dir/current"

make_image 400M -n parent=1 -m uuid=5e2c4a10-7d3b-4c1e-9f00-000000000101 -d agcount=4
mount_image
populate_light

populate_dir_forms

# one file, three directories: three parent pointers
mkdir "$mnt/links"
fill_file "$mnt/links/shared" 5000 shared
ln "$mnt/links/shared" "$mnt/dirs/block/shared-too"
ln "$mnt/links/shared" "$mnt/dirs/short/shared-as-well"

# attributes: its parent pointer beside user attributes in leaf form, and
# a remote value
mkdir "$mnt/attrs"
populate_attr_blocks

# symlinks, inline and remote
ln -s ../etc/motd "$mnt/links/short"
long=$(awk 'BEGIN { s = ""; for (i = 0; i < 50; i++) s = s "component" i "/"; print s "end" }')
ln -s "$long" "$mnt/links/long"
umount_image
finish
