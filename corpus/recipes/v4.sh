#!/bin/sh
# corpus/recipes/v4.sh - a V4 filesystem (no CRCs: -m crc=0).  Current
# kernels no longer mount V4 filesystems, so the tree is made by mkfs.xfs
# itself from a prototype file (-p): directories, regular files with fixed
# content, a symlink, a block directory.  Nothing is mounted.
NAME=v4
. "$(dirname "$0")/common.sh"

src="$work/src"
mkdir -p "$src"
fill_file "$src/hostname" 9 host
fill_file "$src/motd" 3000 motd
fill_file "$src/notes.txt" 70000 notes
fill_file "$src/big.bin" 1048576 big
: > "$src/empty"
proto="$work/proto"
{
	echo "/dev/null"
	echo "0 0"
	echo "d--755 0 0"
	echo "etc d--755 0 0"
	echo "hostname ---644 0 0 $src/hostname"
	echo "motd ---644 0 0 $src/motd"
	echo "\$"
	echo "home d--755 1000 1000"
	echo "notes.txt ---600 1000 1000 $src/notes.txt"
	echo "big.bin ---644 1000 1000 $src/big.bin"
	echo "motd.link l--777 1000 1000 ../etc/motd"
	echo "empty ---644 1000 1000 $src/empty"
	echo "block d--755 1000 1000"
	i=0
	while [ $i -lt 40 ]; do
		echo "entry-of-a-block-directory-$i ---644 1000 1000 $src/empty"
		i=$((i + 1))
	done
	echo "\$"
	echo "\$"
	echo "\$"
} > "$proto"

make_image 320M -m crc=0,uuid=5e2c4a10-7d3b-4c1e-9f00-000000000006 -p "$proto"
finish
