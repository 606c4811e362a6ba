#!/bin/sh
# corpus/recipes/v5-1k.sh - a V5 filesystem with 1 KiB blocks (mkfs
# defaults otherwise: finobt, reflink, sparse inodes), lightly populated.
# With 1 KiB blocks a btree leaf holds few records, so a little
# fragmentation already gives two-level free-space btrees: 400 one-block
# files in /frag, every other one deleted, leave 200 free extents in that
# AG (a bnobt leaf holds 121).
NAME=v5-1k
. "$(dirname "$0")/common.sh"

make_image 320M -b size=1024 -m crc=1,uuid=5e2c4a10-7d3b-4c1e-9f00-000000000003
mount_image
populate_light
mkdir "$mnt/frag"
i=0
while [ $i -lt 400 ]; do
	put_file "$mnt/frag/f$i" 4096 "frag$i"
	i=$((i + 1))
done
i=0
while [ $i -lt 400 ]; do
	rm "$mnt/frag/f$i"
	i=$((i + 2))
done
umount_image
finish
