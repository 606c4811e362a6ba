#!/bin/sh
# tests/log/external_log.sh - a filesystem whose log is on a device of its
# own, made and written by the kernel, read with --logdev.
#
#   - without --logdev, check says the log went unread (logExternalUnread,
#     a note) and repair refuses to run (exit 8) rather than guess;
#   - clean: check with --logdev finds nothing and calls the log clean;
#     repair writes nothing to the log's image, and refuses it as OUT;
#   - dirty (the kernel shut down after a burst of creates, a removal and a
#     rename): check calls it dirty and replays it; ls -R and the bytes
#     extract writes equal what the kernel shows once it has replayed it
#     itself (a copy mounted with its log device); repair refuses (it
#     writes no log device) and says how to proceed.
# Needs root and loop mounts; skipped without them.
. "$top_srcdir/tests/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for loop mounts"
need_tool mkfs.xfs
need_tool losetup
need_tool xfs_io
need_tool xfs_repair
LC_ALL=C
export LC_ALL
X=$XFSRECON
S=$TMPD
mkdir -p "$S/m"
truncate -s 512M "$S/data"
truncate -s 80M "$S/log"
loops=""
# (lib.sh's exit trap removes the scratch directory: this one runs first)
trap 'rc=$?; for l in $loops; do losetup -d "$l" 2>/dev/null; done
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT
# attach FILE: a loop device over FILE in $L, detached at exit
attach() { L=$(losetup -f --show "$1") || skip "no loop device"; loops="$loops $L"; }
attach "$S/log"
mkfs.xfs -q -f -l logdev="$L",size=64m "$S/data" > "$S/mkfs" 2>&1 || fail "mkfs.xfs: $(cat "$S/mkfs")"
mount -o loop,logdev="$L" "$S/data" "$S/m" 2>/dev/null || skip "cannot mount with an external log"
mkdir "$S/m/a"
i=1
while [ $i -le 100 ]; do echo "a $i" > "$S/m/a/f$i"; i=$((i + 1)); done
umount "$S/m" || fail "umount"
losetup -d "$L"

# no --logdev
"$X" check "$S/data" > "$S/c0" 2>&1 || fail "check without --logdev exits non-zero: $(tail -3 "$S/c0")"
grep -q 'logExternalUnread' "$S/c0" || fail "check does not say the external log went unread"
"$X" repair "$S/data" -o "$S/o0" > "$S/r0" 2>&1
rc=$?
[ $rc -eq 8 ] && [ ! -e "$S/o0" ] || fail "repair without --logdev exits $rc: $(tail -2 "$S/r0")"

# clean, given
"$X" check "$S/data" --logdev "$S/log" > "$S/c1" 2>&1 || fail "check --logdev: $(tail -3 "$S/c1")"
grep -q 'logExternal' "$S/c1" && fail "check --logdev still says the log went unread"
"$X" info "$S/data" --logdev "$S/log" | grep -q '^log: *clean' || fail "info does not call the external log clean"
sha=$(file_sha "$S/log")
"$X" repair "$S/data" --logdev "$S/log" -o "$S/o1" > "$S/r1" 2>&1 || fail "repair of the clean image: $(tail -2 "$S/r1")"
xfs_repair -n -l "$S/log" "$S/o1" > "$S/xr1" 2>&1 ||
	fail "xfs_repair -n with the log device finds OUT unclean: $(grep -v '^ ' "$S/xr1" | tail -3)"
[ "$(file_sha "$S/log")" = "$sha" ] || fail "repair changed the log's image"
cp "$S/log" "$S/logcopy"
"$X" repair "$S/data" --logdev "$S/logcopy" -o "$S/logcopy" --force > "$S/r2" 2>&1 &&
	fail "repair wrote its output over the log's image"
cmp -s "$S/log" "$S/logcopy" || fail "the log's image changed under a refused repair"

# dirty: the kernel stops with records in the log
cp "$S/data" "$S/d2"
cp "$S/log" "$S/l2"
attach "$S/l2"
mount -o loop,logdev="$L" "$S/d2" "$S/m" || fail "cannot mount the copy"
mkdir "$S/m/b"
i=1
while [ $i -le 200 ]; do echo "b $i" > "$S/m/b/g$i"; i=$((i + 1)); done
rm "$S/m/a/f1" "$S/m/a/f2"
mv "$S/m/a/f3" "$S/m/b/moved"
sync -f "$S/m"
xfs_io -x -c 'shutdown -f' "$S/m" || fail "shutdown"
umount "$S/m"
losetup -d "$L"
"$X" check "$S/d2" --logdev "$S/l2" > "$S/c3" 2>&1
grep -q 'imageDirtyLog' "$S/c3" || fail "the dirty external log is not called dirty: $(tail -3 "$S/c3")"
"$X" ls -R "$S/d2" --logdev "$S/l2" / | sort > "$S/o.names" || fail "ls -R"
mkdir "$S/x"
"$X" extract "$S/d2" --logdev "$S/l2" / -C "$S/x" > "$S/ext" 2>&1 || fail "extract: $(tail -2 "$S/ext")"
(cd "$S/x" && find . -type f -exec sha256sum {} + | sed 's| \./| /|' | sort -k2) > "$S/o.sums"
"$X" repair "$S/d2" --logdev "$S/l2" -o "$S/o3" > "$S/r3" 2>&1
rc=$?
[ $rc -eq 8 ] && [ ! -e "$S/o3" ] || fail "repair with a dirty external log exits $rc: $(tail -2 "$S/r3")"
grep -q 'external log is dirty' "$S/r3" || fail "repair does not say why: $(tail -2 "$S/r3")"
# the kernel's own replay, on copies
cp "$S/d2" "$S/d3"
cp "$S/l2" "$S/l3"
attach "$S/l3"
mount -o loop,nouuid,logdev="$L" "$S/d3" "$S/m" || fail "the kernel cannot replay the copy"
(cd "$S/m" && find . -mindepth 1 | sed 's|^\.||' | sort) > "$S/k.names"
(cd "$S/m" && find . -type f -exec sha256sum {} + | sed 's| \./| /|' | sort -k2) > "$S/k.sums"
umount "$S/m"
diff "$S/k.names" "$S/o.names" > "$S/d" || fail "ls -R differs from the kernel's replay: $(head -5 "$S/d")"
diff "$S/k.sums" "$S/o.sums" > "$S/d" || fail "extracted bytes differ from the kernel's: $(head -5 "$S/d")"
grep -q '^/b/moved$' "$S/o.names" && ! grep -q '^/a/f1$' "$S/o.names" ||
	fail "the replay lost the rename or the removal"
echo "external log: $(wc -l < "$S/k.names") names and $(wc -l < "$S/k.sums") files as the kernel replays them"
exit 0
