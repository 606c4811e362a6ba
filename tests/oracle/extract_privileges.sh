#!/bin/sh
# tests/oracle/extract_privileges.sh - what extract, run as root, lets an
# image carry onto the host.
#
# An image made through the kernel holds a setuid root program, a setgid
# file, a sticky directory, a file and a symlink owned by uid 1234, a
# character device (1:3), a FIFO and a file with security.*, trusted.* and
# user.* attributes.  Extracted as root into a sticky, world-writable
# destination:
#   - by default: no setuid/setgid bit, every entry owned by root (the
#     user running extract), no device node, no trusted.*/security.*
#     attribute (user.* kept, the directory's sticky bit kept), and the
#     summary line counts each; -v names each on standard error;
#   - with --same-owner --preserve-privileges all of it is reproduced, as
#     stat, getfattr and the kernel's mount of the image show it;
#   - under strace, no attribute of a regular file or directory is set by
#     name (no chmod or fchmodat at all; fchownat and utimensat by name only
#     on symlinks and special files, and never following): an entry swapped
#     for a symlink between two calls changes nothing outside.
. "$top_srcdir/tests/lib.sh"

need_tool mkfs.xfs
need_tool getfattr
need_tool setfattr
[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts, chown and mknod"

img="$TMPD/priv.img"
mnt="$TMPD/mnt"
mkdir -p "$mnt"
trap 'rc=$?; umount "$mnt" 2>/dev/null
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT
truncate -s 320M "$img"
mkfs.xfs -q -f "$img" || fail "mkfs.xfs failed"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot loop-mount a scratch image"
printf '#!/bin/sh\nid\n' > "$mnt/suid"
chown 0:0 "$mnt/suid" && chmod 4755 "$mnt/suid"
printf 'g\n' > "$mnt/sgid"
chmod 2755 "$mnt/sgid"
mkdir "$mnt/tmp" && chmod 1777 "$mnt/tmp"
printf 'o\n' > "$mnt/tmp/owned"
chown 1234:5678 "$mnt/tmp/owned"
ln -s /etc/shadow "$mnt/tmp/link"
chown -h 1234:5678 "$mnt/tmp/link"
mknod "$mnt/null" c 1 3
mkfifo "$mnt/fifo"
printf 'l\n' > "$mnt/labelled"
setfattr -n security.test -v secret "$mnt/labelled" || skip "cannot set a security.* attribute"
setfattr -n trusted.test -v trust "$mnt/labelled" || skip "cannot set a trusted.* attribute"
setfattr -n user.note -v keep "$mnt/labelled"
umount "$mnt" || fail "umount failed"

attrs() { getfattr --absolute-names -h -d -m - "$1" 2>/dev/null | grep -v '^#' | grep . | sort; }

# default: stripped and counted
dest="$TMPD/dest"
mkdir "$dest" && chmod 1777 "$dest"
"$XFSRECON" extract -v "$img" / -C "$dest" > "$TMPD/out" 2> "$TMPD/err"
rc=$?
[ $rc -eq 0 ] || fail "default extract exited $rc: $(cat "$TMPD/err")"
[ "$(stat -c %a "$dest/suid")" = 755 ] || fail "setuid bit reproduced: $(stat -c %a "$dest/suid")"
[ "$(stat -c %a "$dest/sgid")" = 755 ] || fail "setgid bit reproduced: $(stat -c %a "$dest/sgid")"
[ "$(stat -c %a "$dest/tmp")" = 1777 ] || fail "the directory's sticky bit was lost"
[ "$(stat -c %u:%g "$dest/tmp/owned")" = 0:0 ] || fail "owner reproduced without --same-owner"
[ "$(stat -c %u:%g "$dest/tmp/link")" = 0:0 ] || fail "symlink owner reproduced without --same-owner"
[ ! -e "$dest/null" ] && [ ! -L "$dest/null" ] || fail "a device node was created without asking"
[ -p "$dest/fifo" ] || fail "the FIFO is missing"
attrs "$dest/labelled" > "$TMPD/attrs"
[ "$(cat "$TMPD/attrs")" = 'user.note="keep"' ] ||
	fail "attributes of labelled: $(cat "$TMPD/attrs") (only user.note expected)"
grep -q "^stripped: 2 setuid/setgid/sticky modes, 1 device nodes, 2 trusted/security attributes, 2 owners not reproduced" "$TMPD/out" ||
	fail "summary does not count what was stripped: $(cat "$TMPD/out")"
for line in "suid: mode 04755 extracted as 0755" "null: character device 1:3 not created" \
	    "labelled: attribute security.test not set" "labelled: attribute trusted.test not set" \
	    "owned: owner 1234:5678 not reproduced"; do
	grep -q "$line" "$TMPD/err" || fail "-v does not say '$line': $(cat "$TMPD/err")"
done

# asked for: reproduced; under strace, nothing set by name but on links and special files
dest2="$TMPD/dest2"
mkdir "$dest2" && chmod 1777 "$dest2"
if command -v strace >/dev/null 2>&1; then
	# LeakSanitizer cannot run under ptrace (sanitizer builds): leaks are
	# checked by the runs above.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o "$TMPD/trace" \
		-e trace=chmod,fchmodat,chown,lchown,fchownat,utimensat,utimes,futimesat,setxattr,lsetxattr \
		"$XFSRECON" extract -q --same-owner --preserve-privileges "$img" / -C "$dest2" 2> "$TMPD/err"
	rc=$?
	traced=1
else
	"$XFSRECON" extract -q --same-owner --preserve-privileges "$img" / -C "$dest2" 2> "$TMPD/err"
	rc=$?
	traced=0
fi
[ $rc -eq 0 ] || fail "extract --same-owner --preserve-privileges exited $rc: $(cat "$TMPD/err")"
[ "$(stat -c %a:%u:%g "$dest2/suid")" = 4755:0:0 ] || fail "setuid root program not reproduced"
[ "$(stat -c %a "$dest2/sgid")" = 2755 ] || fail "setgid bit not reproduced"
[ "$(stat -c %u:%g "$dest2/tmp/owned")" = 1234:5678 ] || fail "owner not reproduced with --same-owner"
[ "$(stat -c %u:%g "$dest2/tmp/link")" = 1234:5678 ] || fail "symlink owner not reproduced"
[ "$(readlink "$dest2/tmp/link")" = /etc/shadow ] || fail "symlink target lost"
[ "$(stat -c %F:%t:%T "$dest2/null")" = "character special file:1:3" ] ||
	fail "device node not reproduced: $(stat -c %F:%t:%T "$dest2/null" 2>&1)"
attrs "$dest2/labelled" > "$TMPD/attrs"
printf 'security.test="secret"\ntrusted.test="trust"\nuser.note="keep"\n' | cmp -s - "$TMPD/attrs" ||
	fail "attributes of labelled with --preserve-privileges: $(cat "$TMPD/attrs")"
if [ $traced -eq 1 ]; then
	if grep -E '(^|[0-9] )(chmod|fchmodat|fchmodat2)\(' "$TMPD/trace" > "$TMPD/bad"; then
		fail "a mode was set by name: $(head -3 "$TMPD/bad")"
	fi
	# by-name calls: only on the symlink and the special files, never following
	grep -E '(fchownat|utimensat|lchown|chown|setxattr|lsetxattr)\(' "$TMPD/trace" |
		grep -v -E '\((AT_FDCWD|[0-9]+), (NULL|""),' > "$TMPD/named"
	if grep -v -E '"(link|fifo|null)", .*AT_SYMLINK_NOFOLLOW' "$TMPD/named" > "$TMPD/bad"; then
		fail "an attribute was set by a name that could be swapped for a symlink: $(head -3 "$TMPD/bad")"
	fi
	echo "note: $(wc -l < "$TMPD/trace") attribute calls traced, $(wc -l < "$TMPD/named") by name, all on links or special files"
fi
echo "ok: privileges stripped and counted by default, reproduced when asked"
