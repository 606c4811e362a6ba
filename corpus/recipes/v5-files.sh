#!/bin/sh
# corpus/recipes/v5-files.sh - the files-and-names image: a V5 filesystem
# (mkfs defaults plus rmapbt and reflink) populated through a loop mount with
# every kind of file, name and directory the namespace code must read:
#   - directories in every form: short form, block, leaf, node, a node
#     directory whose data fork is a btree (/frag, see below) and a directory
#     of 30000 entries (/big; hard links, so that it costs no inodes);
#   - names left behind in unused directory space: files created and, at
#     the very end, deleted in a block and a leaf directory (/dirs/block,
#     /dirs/leaf), so their inodes stay free;
#   - hard links in several directories, character and block devices, a
#     fifo and a unix socket, short (inline) and long (remote) symlinks;
#   - xattrs in every form (short form, leaf, node with 2000 names, remote
#     values up to 64 KiB) in the user, trusted and security namespaces;
#   - UTF-8 names, names with invalid UTF-8 and with control bytes;
#   - sparse files, unwritten (fallocated) extents, reflinked files, empty
#     files, and /frag/extents: 5000 one-block extents (a bmbt of height 3).
#
# /frag gets its btree data fork like this: /frag/extents is written one
# block in two, with direct I/O, so the blocks between its extents stay free
# as 5000 single-block holes next to /frag's inode.  Each directory block
# that /frag needs afterwards is allocated near the end of its last one,
# which is one of those holes: every block is an extent of its own, and the
# 28 of them are more than the inode's data fork holds as an extent list
# (12 records: the kernel gives these inodes forkoff 24, 192 bytes).  The
# unix socket is bound by python3, the one step that needs it.
NAME=v5-files
. "$(dirname "$0")/common.sh"

make_image 400M -m crc=1,rmapbt=1,reflink=1,uuid=5e2c4a10-7d3b-4c1e-9f00-000000000007
mount_image

# seq_names PREFIX FIRST LAST STEP: PREFIX0001 ... one a line (4 digits)
seq_names() {
	awk -v p="$1" -v a="$2" -v b="$3" -v s="$4" 'BEGIN { for (i = a; i <= b; i += s) printf "%s%04d\n", p, i }'
}

# ---------------------------------------------------------------- /files
mkdir "$mnt/files"
: > "$mnt/files/empty"
: > "$mnt/files/empty-too"
fill_file "$mnt/files/small.txt" 100 small
put_file "$mnt/files/medium.bin" 262144 medium
# sparse: data at 0, 1 MiB and 5 MiB, a hole to the 8 MiB end
fill_file "$work/sparse.src" 8388608 sparse
xfs_io -f -d -c "pwrite -q -i $work/sparse.src -s 0 0 8192" \
	-c "pwrite -q -i $work/sparse.src -s 1048576 1048576 65536" \
	-c "pwrite -q -i $work/sparse.src -s 5242880 5242880 4096" \
	-c "truncate 8388608" "$mnt/files/sparse"
rm -f "$work/sparse.src"
# unwritten: 1 MiB fallocated with 8 KiB written in the middle; and a file
# with blocks preallocated past its end (fallocate --keep-size)
fallocate -l 1048576 "$mnt/files/unwritten"
fill_file "$work/unw.src" 8192 unwritten
xfs_io -d -c "pwrite -q -i $work/unw.src -s 0 524288 8192" "$mnt/files/unwritten"
rm -f "$work/unw.src"
put_file "$mnt/files/prealloc-past-eof" 4096 prealloc
fallocate -n -o 4096 -l 65536 "$mnt/files/prealloc-past-eof"
# reflinks: a whole copy, and a copy with one block rewritten (CoW)
put_file "$mnt/files/reflink.src" 262144 reflink
cp --reflink=always "$mnt/files/reflink.src" "$mnt/files/reflink.copy"
cp --reflink=always "$mnt/files/reflink.src" "$mnt/files/reflink.partial"
fill_file "$work/cow.src" 4096 cowblock
xfs_io -d -c "pwrite -q -i $work/cow.src -s 0 8192 4096" "$mnt/files/reflink.partial"
rm -f "$work/cow.src"

# ---------------------------------------------------------------- /dirs
mkdir "$mnt/dirs" "$mnt/dirs/short" "$mnt/dirs/block" "$mnt/dirs/leaf" "$mnt/dirs/node" "$mnt/dirs/empty"
for n in one two three; do fill_file "$mnt/dirs/short/$n" 50 "short-$n"; done
# block: 60 files with a little data; leaf: 400 empty files (some of both
# are deleted at the end)
for n in $(seq_names block-entry- 0 59 1); do fill_file "$mnt/dirs/block/$n" 300 "$n"; done
for n in $(seq_names a-leaf-directory-entry- 0 399 1); do : > "$mnt/dirs/leaf/$n"; done
# node: 1500 names, hard links of one file
: > "$mnt/dirs/node/target"
for n in $(seq_names a-node-directory-entry- 0 1499 1); do ln "$mnt/dirs/node/target" "$mnt/dirs/node/$n"; done

# ---------------------------------------------------------------- /frag
# 10000 blocks written one in two (5000 extents), then 1000 long names:
# the directory's blocks land in the holes (see the header).
mkdir "$mnt/frag"
fill_file "$work/frag.src" 40960000 extents
awk 'BEGIN { for (i = 0; i < 10000; i += 2) printf "pwrite -q -i SRC -s %d %d 4096\n", i * 4096, i * 4096 }' |
	sed "s|SRC|$work/frag.src|" > "$work/frag.cmds"
xfs_io -f -d "$mnt/frag/extents" < "$work/frag.cmds"
rm -f "$work/frag.src" "$work/frag.cmds"
: > "$mnt/frag/target"
for n in $(seq_names a-rather-long-name-so-that-few-entries-fit-in-one-directory-block- 0 999 1); do
	ln "$mnt/frag/target" "$mnt/frag/$n"
done

# ---------------------------------------------------------------- /big
# 30000 names: hard links of ten files (node form, several leaf blocks)
mkdir "$mnt/big"
for t in 0 1 2 3 4 5 6 7 8 9; do fill_file "$mnt/big/target-$t" 20 "target-$t"; done
awk 'BEGIN { for (i = 0; i < 30000; i++) printf "%d entry-%05d\n", i % 10, i }' |
	while read -r t n; do ln "$mnt/big/target-$t" "$mnt/big/$n"; done

# ---------------------------------------------------------------- /links
mkdir "$mnt/links" "$mnt/links/sub"
fill_file "$mnt/links/original" 5000 hardlinked
ln "$mnt/links/original" "$mnt/links/second-name"
ln "$mnt/links/original" "$mnt/links/sub/third-name"
ln "$mnt/links/original" "$mnt/dirs/short/fourth-name"

# ---------------------------------------------------------------- /special
mkdir "$mnt/special"
mknod "$mnt/special/null-like" c 1 3
mknod "$mnt/special/loop-like" b 7 0
mknod "$mnt/special/big-numbers" c 511 262143
mkfifo "$mnt/special/fifo"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).bind(sys.argv[1])' "$mnt/special/socket"

# ---------------------------------------------------------------- /symlinks
mkdir "$mnt/symlinks"
ln -s ../files/small.txt "$mnt/symlinks/short"
ln -s /nonexistent/dangling/target "$mnt/symlinks/dangling"
ln -s ../dirs "$mnt/symlinks/to-dir"
ln -s "../names/$(printf 'caf\303\251')" "$mnt/symlinks/utf8-target"
inl=$(awk 'BEGIN { s = ""; while (length(s) < 300) s = s "inline/"; print substr(s, 1, 300) }')
ln -s "$inl" "$mnt/symlinks/inline-300"
long=$(awk 'BEGIN { s = ""; for (i = 0; i < 50; i++) s = s "component" i "/"; print s "end" }')
ln -s "$long" "$mnt/symlinks/long"
max=$(awk 'BEGIN { s = ""; while (length(s) < 1023) s = s "max/"; print substr(s, 1, 1023) }')
ln -s "$max" "$mnt/symlinks/max-1023"
setfattr -h -n trusted.on-a-symlink -v yes "$mnt/symlinks/short"

# ---------------------------------------------------------------- /attrs
mkdir "$mnt/attrs"
: > "$mnt/attrs/short"
setfattr -n user.colour -v blue "$mnt/attrs/short"
setfattr -n trusted.note -v fixed "$mnt/attrs/short"
setfattr -n security.label -v secret "$mnt/attrs/short"
setfattr -n user.empty "$mnt/attrs/short"
# leaf: 40 names in three namespaces (one leaf block)
: > "$mnt/attrs/leaf"
awk 'BEGIN {
	print "# file: leaf"
	for (i = 0; i < 40; i++) {
		ns = (i % 3 == 0) ? "user" : (i % 3 == 1) ? "trusted" : "security"
		printf "%s.leaf-attribute-%02d=\"value-of-leaf-attribute-%02d\"\n", ns, i, i
	}
	print ""
}' > "$work/leaf.attrs"
(cd "$mnt/attrs" && setfattr --restore="$work/leaf.attrs")
# node: 2000 names (a dabtree node over many leaves)
: > "$mnt/attrs/node"
awk 'BEGIN {
	print "# file: node"
	for (i = 0; i < 2000; i++) {
		ns = (i % 5 == 3) ? "trusted" : (i % 5 == 4) ? "security" : "user"
		printf "%s.node-attr-%04d=\"v%04d\"\n", ns, i, i
	}
	print ""
}' > "$work/node.attrs"
(cd "$mnt/attrs" && setfattr --restore="$work/node.attrs")
# remote values: 64 KiB (the largest), 5000 and 3000 bytes
: > "$mnt/attrs/remote"
v64=$(awk 'BEGIN { s = ""; for (i = 0; i < 8192; i++) s = s sprintf("r%07d", i); print s }')
setfattr -n user.big-64k -v "$v64" "$mnt/attrs/remote"
v5k=$(awk 'BEGIN { s = ""; for (i = 0; i < 625; i++) s = s sprintf("t%07d", i); print s }')
setfattr -n trusted.medium-5000 -v "$v5k" "$mnt/attrs/remote"
v5k=$(awk 'BEGIN { s = ""; for (i = 0; i < 625; i++) s = s sprintf("s%07d", i); print s }')
setfattr -n security.medium-5000 -v "$v5k" "$mnt/attrs/remote"
setfattr -n user.local-too -v "short value" "$mnt/attrs/remote"
rm -f "$work/leaf.attrs" "$work/node.attrs"
# a directory with xattrs
mkdir "$mnt/attrs/dir"
setfattr -n user.on-a-directory -v yes "$mnt/attrs/dir"
setfattr -n trusted.dir-note -v "also here" "$mnt/attrs/dir"

# ---------------------------------------------------------------- /names
mkdir "$mnt/names"
for n in "$(printf 'caf\303\251')" "$(printf 'cafe\314\201')" \
	"$(printf '\346\227\245\346\234\254\350\252\236\343\201\256\343\203\225\343\202\241\343\202\244\343\203\253')" \
	"$(printf 'emoji-\360\237\230\200-name')" \
	"$(printf 'invalid-utf8-\377\376')" "$(printf 'overlong-\300\257')" "$(printf 'lone-continuation-\200')" \
	"$(printf 'ctl-\001\033[31m-red')" "$(printf 'tab\there')" "$(printf 'del-\177')" "$(printf 'c1-control-\302\205')" \
	'with spaces' ' ' '...' '-dash-first' 'back\slash' "$(printf '%0255d' 7)"; do
	printf '%s\n' "$n" > "$mnt/names/$n"
done
ln "$mnt/links/original" "$mnt/names/$(printf '\344\271\237\346\230\257\345\220\214\344\270\200\344\270\252')"

# Deleted files, last of all so that nothing reuses their inodes or blocks:
# every third name of /dirs/block and every fifth of /dirs/leaf stays in the
# unused space of the directory blocks.  Then a subdirectory as the last
# entry of the short-form /dirs/short (tests/golden/check_corrupt.sh cuts it
# off to make an orphaned directory).
for n in $(seq_names block-entry- 0 59 3); do rm "$mnt/dirs/block/$n"; done
for n in $(seq_names a-leaf-directory-entry- 0 399 5); do rm "$mnt/dirs/leaf/$n"; done
mkdir "$mnt/dirs/short/subdir"
fill_file "$mnt/dirs/short/subdir/inside" 10 inside

umount_image

# The forms the header promises, read back with xfs_db; the image is not
# written if one is missing.  expect WHAT FIELD VALUE XFS_DB-COMMANDS...
expect() {
	_what=$1 _field=$2 _want=$3
	shift 3
	_args=""
	for _c in "$@"; do _args="$_args -c '$_c'"; done
	_got=$(eval "\"\$XFS_DB\" -r $_args -c 'p $_field' \"\$img\"" | awk -v f="$_field = " 'index($0, f) == 1 { print substr($0, length(f) + 1) }')
	echo "$_what: $_field = $_got"
	case "$_got" in
	"$_want" | "$_want "*) ;;
	*) echo "$NAME: $_what: $_field is '$_got', expected $_want" >&2; exit 1 ;;
	esac
}
# directories: 1 local (short form), 2 extents, 3 btree; leaf block magic
# 0x3df1 (leaf form), DA node 0x3ebe (node form) at 32 GiB (block 8388608)
expect 'short-form dir' core.format 1 'path /dirs/short'
expect 'block dir' core.size 4096 'path /dirs/block'
expect 'leaf dir' lhdr.info.hdr.magic 0x3df1 'path /dirs/leaf' 'dblock 8388608'
expect 'node dir' nhdr.info.hdr.magic 0x3ebe 'path /dirs/node' 'dblock 8388608'
expect 'btree dir' core.format 3 'path /frag'
expect 'btree dir' nhdr.info.hdr.magic 0x3ebe 'path /frag' 'dblock 8388608'
expect 'big dir' nhdr.info.hdr.magic 0x3ebe 'path /big' 'dblock 8388608'
expect 'big dir' core.nlinkv2 2 'path /big'
expect 'big dir entries' core.nlinkv2 3001 'path /big/target-0'
# the many-extent file: a bmbt of height 3 (root in the inode at level 2)
expect 'many extents' core.nextents 5000 'path /frag/extents'
expect 'many extents' u3.bmbt.level 2 'path /frag/extents'
# attributes: 1 local (short form); leaf 0x3bee; node 0x3ebe; a 64 KiB value
expect 'short-form attrs' core.aformat 1 'path /attrs/short'
expect 'leaf attrs' hdr.info.hdr.magic 0x3bee 'path /attrs/leaf' 'ablock 0'
expect 'node attrs' hdr.info.hdr.magic 0x3ebe 'path /attrs/node' 'ablock 0'
expect 'remote attr' 'nvlist[2].valuelen' 65536 'path /attrs/remote' 'ablock 0'
# symlinks: local and remote
expect 'inline symlink' core.format 1 'path /symlinks/inline-300'
expect 'remote symlink' core.format 2 'path /symlinks/max-1023'
finish
