#!/bin/sh
# corpus/recipes/v5-4ksect.sh - a V5 filesystem with 4096-byte sectors
# (the AG headers each take a whole 4 KiB sector), lightly populated.
NAME=v5-4ksect
. "$(dirname "$0")/common.sh"

make_image 320M -s size=4096 -m crc=1,uuid=5e2c4a10-7d3b-4c1e-9f00-000000000004
mount_image
populate_light
umount_image
finish
