#!/bin/sh
# tests/oracle/ls_long.sh - `ls -l` shows what the kernel shows: a symlink's
# target after "->", and the full mtime (seconds and nanoseconds, UTC).
#
# The v5-files image is loop-mounted read-only; for every entry of
# /symlinks and /files, `xfsrecon ls -l` must give the kernel's mtime
# (`stat -c %y` with TZ=UTC) and, for symlinks, the kernel's readlink.
# Needs root and a kernel that mounts the image: skipped (77) otherwise.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool mount
need_tool readlink
[ "$(id -u)" -eq 0 ] || skip "not root: cannot mount"
img=$(corpus_image v5-files)
mnt=$TMPD/m
mkdir -p "$mnt"
trap 'rc=$?; mountpoint -q "$mnt" 2> /dev/null && umount "$mnt"
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT
mount -o loop,ro,nouuid "$img" "$mnt" > /dev/null 2>&1 || skip "the kernel does not mount the image here"

n=0
links=0
for d in /symlinks /files; do
	"$XFSRECON" ls -l "$img" "$d" > "$TMPD/ls" || fail "ls -l $d exits $?"
	while read -r ino mode nlink uid gid size day time name rest; do
		case $name in *'\'*) continue ;; esac
		want=$(TZ=UTC stat -c %y "$mnt$d/$name" | sed 's/ +0000$//')
		[ "$day $time" = "$want" ] || fail "$d/$name: ls -l mtime '$day $time', kernel '$want'"
		case $mode in
		l*)
			t=$(readlink "$mnt$d/$name")
			case $t in *'\'*) continue ;; esac
			[ "$rest" = "-> $t" ] || fail "$d/$name: ls -l shows '$rest', kernel's target is '$t'"
			links=$((links + 1)) ;;
		*)
			[ -z "$rest" ] || fail "$d/$name: ls -l adds '$rest' to a non-symlink" ;;
		esac
		n=$((n + 1))
	done < "$TMPD/ls"
done
[ $links -ge 3 ] || fail "only $links symlinks compared"
echo "$n entries: mtimes and $links symlink targets as the kernel has them"
