#!/bin/sh
# corpus/recipes/v5-nrext64-bigtime.sh - a V5 filesystem with large extent
# counters (nrext64: 64-bit data fork and 32-bit attr fork extent counts in
# the inode) and big timestamps, lightly populated.
NAME=v5-nrext64-bigtime
. "$(dirname "$0")/common.sh"

make_image 320M -i nrext64=1 -m crc=1,bigtime=1,uuid=5e2c4a10-7d3b-4c1e-9f00-000000000005
mount_image
populate_light
umount_image
finish
