#!/bin/sh
# tests/oracle/files.sh - files as the kernel sees them.
#
# For every corpus image the kernel can mount (read-only, as root; others are
# skipped one by one, the whole test skips if none mounts):
#   - `xfsrecon ls -R` lists exactly the paths `find` lists on the mount;
#   - `xfsrecon ls -R -l` gives each path's inode number, type, mode, link
#     count and size as `stat` does;
#   - `xfsrecon bodyfile` gives each path's inode, owner, size and times;
#   - `xfsrecon extract --preserve-privileges` (device nodes, setuid bits and
#     trusted/security attributes are stripped without it) recreates the
#     tree: same paths, types, modes, sizes,
#     symlink targets, mtimes and extended attributes (all namespaces), and the SHA-256 of every regular file equals
#     the kernel's.
# Then a crafted image with hostile names (control bytes, backslashes, 255-
# byte names, symlinks aiming outside) is extracted and nothing appears
# outside the destination.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
mnt="$TMPD/mnt"
mkdir -p "$mnt"

# tree_meta DIR: one line per path: path|type|mode|size|symlink target|mtime
tree_meta() {
	(cd "$1" && find . -mindepth 1 -printf '%P|%y|%m|%s|%l|%T@\n' |
		awk -F'|' 'BEGIN{OFS="|"} $2=="d"{$4="-"} {print}' | LC_ALL=C sort)
}

# tree_sums DIR: sha256 of every regular file, by path
tree_sums() {
	(cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}

# tree_xattrs DIR: every extended attribute of files and directories, hex values
tree_xattrs() {
	command -v getfattr >/dev/null 2>&1 || return 0
	(cd "$1" && find . -mindepth 1 \( -type f -o -type d \) -print0 | LC_ALL=C sort -z |
		xargs -0 -r getfattr --absolute-names -h -d -m - -e hex 2>/dev/null)
}

# Extract onto a scratch XFS filesystem: the host's own filesystem may not
# hold what XFS holds (large attribute values, for one).
need_tool mkfs.xfs
scratch="$TMPD/scratch.img"
smnt="$TMPD/smnt"
mkdir -p "$smnt"
truncate -s 400M "$scratch"
mkfs.xfs -q -f "$scratch" || fail "mkfs.xfs of the scratch target failed"
mount -o loop "$scratch" "$smnt" 2>/dev/null || skip "cannot loop-mount a scratch target"
cleanup_scratch() { umount "$smnt" 2>/dev/null; }
trap 'rc=$?; cleanup_scratch; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

# nuldiff A B: the first differences of two NUL-separated lists, readable
nuldiff() {
	tr '\0' '\n' < "$1" > "$TMPD/nd.a"
	tr '\0' '\n' < "$2" > "$TMPD/nd.b"
	diff "$TMPD/nd.a" "$TMPD/nd.b" | head -20 | cat -v
}

# plain_lines: lines whose path is printable ASCII without "\" (the body
# format escapes other names; ls -0 above compares those byte for byte)
plain_lines() {
	LC_ALL=C grep -a -v -e '[^ -~]' -e '\\'
}

checked=0
for name in $(corpus_names); do
	img=$(corpus_image "$name")
	if ! mount -o loop,ro "$img" "$mnt" 2>/dev/null; then
		echo "note: $name cannot be mounted here; skipped" >&2
		continue
	fi
	# kernel side
	# NUL-terminated raw names: names may hold newlines and any byte.
	(cd "$mnt" && find . -mindepth 1 -printf '/%P\0' | LC_ALL=C sort -z) > "$TMPD/k.paths"
	(cd "$mnt" && find . -mindepth 1 -printf '%i %y %m %n %s /%P\0' | LC_ALL=C sort -z) > "$TMPD/k.long"
	tree_meta "$mnt" > "$TMPD/k.meta"
	tree_sums "$mnt" > "$TMPD/k.sums"
	tree_xattrs "$mnt" > "$TMPD/k.xattrs"
	(cd "$mnt" && find . -printf '/%P|%i|%U|%G|%s|%A@|%T@|%C@\n') |
		awk -F'|' 'BEGIN{OFS="|"} {for (i = 6; i <= 8; i++) { split($i, t, "."); $i = t[1] } print}' |
		plain_lines | LC_ALL=C sort > "$TMPD/k.body"
	umount "$mnt" || fail "$name: umount failed"

	# our side
	"$XFSRECON" ls -R -0 "$img" / | LC_ALL=C sort -z > "$TMPD/o.paths" || fail "$name: ls -R failed"
	cmp -s "$TMPD/k.paths" "$TMPD/o.paths" ||
		fail "$name: ls -R differs from the kernel: $(nuldiff "$TMPD/k.paths" "$TMPD/o.paths")"

	# ls -l: "ino tmode nlink uid gid size date time path" -> "ino type mode nlink size path"
	"$XFSRECON" ls -R -l -0 "$img" / | awk 'BEGIN { RS = "\0"; ORS = "\0" } {
		t = substr($2, 1, 1); m = substr($2, 2); sub(/^0+/, "", m)
		if (m == "") m = "0"
		y = (t == "-") ? "f" : t
		p = $0
		sub(/^ *[0-9]+ [^ ]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ [^ ]+ [^ ]+ /, "", p)
		print $1 " " y " " m " " $3 " " $6 " " p
	}' | LC_ALL=C sort -z > "$TMPD/o.long"
	cmp -s "$TMPD/k.long" "$TMPD/o.long" ||
		fail "$name: ls -R -l differs from the kernel: $(nuldiff "$TMPD/k.long" "$TMPD/o.long")"

	"$XFSRECON" bodyfile "$img" | awk -F'|' 'BEGIN{OFS="|"} {print $2, $3, $5, $6, $7, $8, $9, $10}' |
		plain_lines | LC_ALL=C sort > "$TMPD/o.body"
	diff "$TMPD/k.body" "$TMPD/o.body" > "$TMPD/diff" ||
		fail "$name: bodyfile differs from the kernel: $(head -20 "$TMPD/diff")"

	ex="$smnt/ex"
	rm -rf "$ex"
	mkdir "$ex"
	"$XFSRECON" extract -q --preserve-privileges "$img" / -C "$ex" || fail "$name: extract exited $?"
	tree_meta "$ex" > "$TMPD/o.meta"
	diff "$TMPD/k.meta" "$TMPD/o.meta" > "$TMPD/diff" ||
		fail "$name: extracted tree differs from the kernel's: $(head -20 "$TMPD/diff")"
	tree_xattrs "$ex" > "$TMPD/o.xattrs"
	diff "$TMPD/k.xattrs" "$TMPD/o.xattrs" > "$TMPD/diff" ||
		fail "$name: extended attributes differ: $(head -20 "$TMPD/diff")"
	tree_sums "$ex" > "$TMPD/o.sums"
	cmp -s "$TMPD/k.sums" "$TMPD/o.sums" ||
		fail "$name: file contents differ: $(diff "$TMPD/k.sums" "$TMPD/o.sums" | head -10)"
	echo "ok: $name: $(tr -cd '\000' < "$TMPD/k.paths" | wc -c) paths, $(wc -l < "$TMPD/k.sums") files agree"
	checked=$((checked + 1))
	rm -rf "$ex" "$img"
done
[ $checked -gt 0 ] || skip "no corpus image could be mounted"

# Hostile names: made through the kernel, extracted by us.
need_tool mkfs.xfs
hostile="$TMPD/hostile.img"
truncate -s 320M "$hostile"
mkfs.xfs -q -f "$hostile" || fail "mkfs.xfs failed"
mount -o loop "$hostile" "$mnt" || skip "cannot mount a scratch image"
mkdir "$mnt/d"
printf 'one\n' > "$mnt/d/$(printf 'new\nline')"
printf 'two\n' > "$mnt/d/$(printf 'ctl\001\033[31m')"
printf 'three\n' > "$mnt/d/back\\slash"
printf 'four\n' > "$mnt/d/$(printf '%0255d' 7)"
printf 'five\n' > "$mnt/d/ünïcødé"
ln -s /etc/passwd "$mnt/d/abs-link"
ln -s ../../../../outside "$mnt/d/rel-link"
mkdir "$mnt/d/sub"
ln -s ../../escape "$mnt/d/sub/up"
umount "$mnt"
mkdir "$TMPD/jail" "$TMPD/jail/dest"
"$XFSRECON" extract -q "$hostile" / -C "$TMPD/jail/dest" || fail "hostile extract exited $?"
[ "$(ls -A "$TMPD/jail")" = "dest" ] || fail "something was written beside the destination"
[ ! -e "$TMPD/outside" ] && [ ! -e "$TMPD/escape" ] || fail "a write escaped the destination"
[ "$(readlink "$TMPD/jail/dest/d/abs-link")" = "/etc/passwd" ] || fail "absolute symlink not kept as text"
[ "$(cat "$TMPD/jail/dest/d/$(printf 'new\nline')")" = "one" ] || fail "newline name lost"
[ "$(cat "$TMPD/jail/dest/d/$(printf 'ctl\001\033[31m')")" = "two" ] || fail "control-byte name lost"
[ "$(cat "$TMPD/jail/dest/d/$(printf '%0255d' 7)")" = "four" ] || fail "255-byte name lost"
[ "$(cat "$TMPD/jail/dest/d/ünïcødé")" = "five" ] || fail "unicode name lost"
"$XFSRECON" ls "$hostile" /d | grep -qi 'ctl\\x01\\x1b\[31m' || fail "ls does not escape control bytes"
# Extracting again into the same place overwrites nothing and says so.
"$XFSRECON" extract -q "$hostile" / -C "$TMPD/jail/dest" 2>"$TMPD/err"
[ $? -eq 8 ] || fail "re-extracting over existing files should report them (exit 8)"
[ "$(cat "$TMPD/jail/dest/d/back\\slash")" = "three" ] || fail "an existing file was changed"
exit 0
