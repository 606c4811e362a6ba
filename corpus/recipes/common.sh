# corpus/recipes/common.sh - shared steps of the corpus recipes (sourced).
#
# A recipe makes one raw filesystem image with mkfs.xfs, populates it
# (through a loop mount, or an mkfs protofile where the kernel cannot mount
# the format), checks it with `xfs_repair -n`, and compresses it into
# corpus/images/NAME.img.zst.  Run recipes as root from any directory:
#
#     sh corpus/recipes/v5-normap.sh
#
# Scratch files go under ${TMPDIR:-/tmp}; nothing else on the machine is
# touched.  Content is fixed (fixed UUIDs, fixed file contents, fixed
# names); what the kernel chooses (timestamps, inode generation numbers,
# exact block placement) differs between runs.

set -eu

recipe_dir=$(cd "$(dirname "$0")" && pwd)
corpus_dir=$(dirname "$recipe_dir")
out_dir="$corpus_dir/images"
: "${MKFS_XFS:=mkfs.xfs}"
: "${XFS_REPAIR:=xfs_repair}"
: "${XFS_DB:=xfs_db}"

work=$(mktemp -d "${TMPDIR:-/tmp}/xfsrecon-corpus.XXXXXX")
img="$work/$NAME.img"
mnt="$work/mnt"
mounted=0

cleanup() {
	if [ "$mounted" -eq 1 ]; then
		umount "$mnt" || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

need_root() {
	[ "$(id -u)" -eq 0 ] || { echo "$NAME: must run as root (loop mount)" >&2; exit 1; }
}

# make_image SIZE MKFS-ARGS...: a sparse file of SIZE, formatted.
make_image() {
	size=$1
	shift
	truncate -s "$size" "$img"
	"$MKFS_XFS" -q -f "$@" "$img"
}

mount_image() {
	need_root
	mkdir -p "$mnt"
	mount -o loop "$img" "$mnt"
	mounted=1
}

umount_image() {
	sync
	umount "$mnt"
	mounted=0
}

# fill_file PATH BYTES TAG: fixed, recognisable content that compresses well.
# Every 4096-byte piece starts with the line "TAG block NNNNNNNN" (its index
# in the file) and is padded with dots to a closing newline; the file is cut
# to BYTES bytes.
fill_file() {
	awk -v tag="$3" -v n="$2" 'BEGIN {
		pad = "................................................................"
		while (length(pad) < 4096) pad = pad pad
		out = 0
		for (i = 0; out < n; i++) {
			head = sprintf("%s block %08d\n", tag, i)
			piece = head substr(pad, 1, 4095 - length(head)) "\n"
			if (out + 4096 > n)
				piece = substr(piece, 1, n - out)
			printf "%s", piece
			out += length(piece)
		}
	}' > "$1"
}

# finish: verify with xfs_repair -n (must be clean), print the facts the
# README records, compress.
finish() {
	echo "== $NAME: xfs_repair -n"
	set +e
	"$XFS_REPAIR" -n "$img" > "$work/repair.out" 2>&1
	rc=$?
	set -e
	cat "$work/repair.out"
	echo "== $NAME: xfs_repair -n exit status $rc"
	if [ "$rc" -ne 0 ]; then
		echo "$NAME: xfs_repair -n does not pass; image not written" >&2
		exit 1
	fi
	echo "== $NAME: $("$MKFS_XFS" -V)"
	"$XFS_DB" -r -c 'sb 0' -c 'p agcount agblocks blocksize sectsize inodesize dblocks versionnum features2 features_ro_compat features_incompat' "$img"
	print_levels
	mkdir -p "$out_dir"
	zstd -q -19 --long -f -o "$out_dir/$NAME.img.zst" "$img"
	ls -l "$out_dir/$NAME.img.zst"
}

# print_levels: btree heights of every AG (AGF and AGI level fields).
print_levels() {
	agc=$("$XFS_DB" -r -c 'sb 0' -c 'p agcount' "$img" | awk '{print $3}')
	a=0
	while [ "$a" -lt "$agc" ]; do
		f=$("$XFS_DB" -r -c "agf $a" -c 'p bnolevel cntlevel' "$img" 2>/dev/null | awk '{printf "%s=%s ", $1, $3}')
		r=$("$XFS_DB" -r -c "agf $a" -c 'p rmaplevel refcntlevel' "$img" 2>/dev/null | awk '{printf "%s=%s ", $1, $3}') || r=""
		i=$("$XFS_DB" -r -c "agi $a" -c 'p level free_level count' "$img" 2>/dev/null | awk '{printf "%s=%s ", $1, $3}')
		echo "AG $a: $f$r$i"
		a=$((a + 1))
	done
}

# put_file PATH BYTES TAG: like fill_file, but written with direct I/O so
# the blocks are allocated at once, in this process, in creation order
# (buffered writes are allocated later by writeback, which may pick
# another AG when the preferred one is busy).  BYTES: a multiple of 4096.
put_file() {
	fill_file "$work/put.src" "$2" "$3"
	xfs_io -f -d -c "pwrite -q -b 1048576 -i $work/put.src 0 $2" "$1"
	rm -f "$work/put.src"
}

# populate_light: a small tree under the mount point -- a short-form and a
# block directory, regular files of a few sizes, an inline symlink, a hard
# link and a file with a local-form xattr.
populate_light() {
	mkdir "$mnt/etc" "$mnt/home" "$mnt/home/user"
	fill_file "$mnt/etc/hostname" 9 host
	fill_file "$mnt/etc/motd" 3000 motd
	fill_file "$mnt/home/user/notes.txt" 70000 notes
	ln "$mnt/home/user/notes.txt" "$mnt/home/user/notes.hardlink"
	ln -s ../../etc/motd "$mnt/home/user/motd.link"
	mkdir "$mnt/home/user/block"
	i=0
	while [ $i -lt 40 ]; do
		: > "$mnt/home/user/block/entry-of-a-block-directory-$i"
		i=$((i + 1))
	done
	setfattr -n user.tag -v evidence "$mnt/home/user/notes.txt"
}

# populate_dir_forms: $mnt/dirs/short, block, leaf and node, directories of
# every form (3, 40, 300 and 1300 empty files).
populate_dir_forms() {
	mkdir -p "$mnt/dirs/short" "$mnt/dirs/block" "$mnt/dirs/leaf" "$mnt/dirs/node"
	for i in 1 2 3; do : > "$mnt/dirs/short/s$i"; done
	(cd "$mnt/dirs/block" && awk 'BEGIN { for (i = 0; i < 40; i++) print "block-entry-" i }' | xargs touch)
	(cd "$mnt/dirs/leaf" && awk 'BEGIN { for (i = 0; i < 300; i++) print "a-leaf-directory-entry-name-" i }' | xargs touch)
	(cd "$mnt/dirs/node" && awk 'BEGIN { for (i = 0; i < 1300; i++) printf "a-node-directory-entry-with-a-longer-name-%d\n", i }' | xargs touch)
}

# populate_attr_blocks: under $mnt/attrs (which must exist), "leaf" with 60
# attributes (a leaf block) and "remote" with one value of 4200 bytes (a
# remote value block).
populate_attr_blocks() {
	: > "$mnt/attrs/leaf"
	i=0
	while [ $i -lt 60 ]; do
		setfattr -n "user.attribute-number-$i" -v "value-of-attribute-$i" "$mnt/attrs/leaf"
		i=$((i + 1))
	done
	: > "$mnt/attrs/remote"
	big=$(awk 'BEGIN { s = ""; for (i = 0; i < 600; i++) s = s sprintf("r%05d-", i); print s }')
	setfattr -n user.big -v "$big" "$mnt/attrs/remote"
}
