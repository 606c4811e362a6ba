#!/bin/sh
# corpus/recipes/v5-normap.sh - a V5 filesystem without rmapbt and reflink
# (finobt on), 4 KiB blocks, lightly populated through a loop mount.
NAME=v5-normap
. "$(dirname "$0")/common.sh"

make_image 320M -m crc=1,rmapbt=0,reflink=0,finobt=1,uuid=5e2c4a10-7d3b-4c1e-9f00-000000000002
mount_image
populate_light
umount_image
finish
