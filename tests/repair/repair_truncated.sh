#!/bin/sh
# tests/repair/repair_truncated.sh - repair of an image cut short (a copy
# that stopped early): the missing end is treated as lost, the rest repaired.
#
# mkfs.xfs -p (a proto file: no mount needed) makes a 400 MiB filesystem of 4
# AGs holding a 60 MB file and 20 small files, all in AG 0.  The image is cut
# at 40 MiB: AGs 1-3, the log and the tail of AG 0 are gone.  Then:
#   - repair -o OUT exits 1 (repaired); xfs_repair -n and check call OUT clean; OUT has
#     the filesystem's full size; the report validates against its schema;
#   - every file whose blocks all lay before the cut reads back byte for byte
#     (xfsrecon cat on OUT), every other one is listed in the report's
#     <losses> with the number of its blocks past the cut (as xfs_db's bmap
#     of the uncut image gives them), and no other file is listed;
#   - plan of the cut image applied onto it zero-extended gives a clean
#     filesystem too;
#   - xfs_repair on the image zero-extended to its size (what it needs to
#     run at all) keeps no more files than we do;
#   - as root with loop devices, the kernel mounts OUT and lists every file.
. "$top_srcdir/tests/lib.sh"

need_tool mkfs.xfs
need_tool xmllint
need_tool sha256sum
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_DB"
need_tool "$XFS_REPAIR"
X=$XFSRECON
S=$TMPD
CUT=$((40 * 1048576))

mkdir "$S/src"
# Deterministic content: the big file is a count, the small ones pieces of it.
seq 1 7500000 > "$S/src/big" || fail "cannot write the big file"
i=1
while [ $i -le 20 ]; do
	head -c $((i * 1000)) "$S/src/big" | tail -c 999 > "$S/src/f$i"
	i=$((i + 1))
done
{
	echo /dev/null; echo 0 0; echo 'd--755 0 0'
	echo "big ---644 0 0 $S/src/big"
	i=1
	while [ $i -le 20 ]; do echo "f$i ---644 0 0 $S/src/f$i"; i=$((i + 1)); done
	echo '$'
} > "$S/proto"
truncate -s 400M "$S/full.img" || fail "cannot make the image file"
mkfs.xfs -q -f -d agcount=4 -p "$S/proto" "$S/full.img" > "$S/mkfs" 2>&1 ||
	skip "mkfs.xfs cannot populate from a proto file here: $(cat "$S/mkfs")"
bsize=$("$XFS_DB" -r -c 'sb 0' -c 'p blocksize' "$S/full.img" | sed -n 's/^blocksize = //p')
agblocks=$("$XFS_DB" -r -c 'sb 0' -c 'p agblocks' "$S/full.img" | sed -n 's/^agblocks = //p')
[ -n "$bsize" ] && [ -n "$agblocks" ] || fail "xfs_db gives no geometry"

# Blocks past the cut of each file, from xfs_db's bmap of the uncut image
# (lines "data offset O startblock B (A/b) count N flag F").
expect_lost() {
	"$XFS_DB" -r -c "inode $1" -c 'bmap' "$S/full.img" |
	awk -v cut=$CUT -v bs="$bsize" -v agb="$agblocks" '
	/startblock/ { split($6, ab, "[(/)]"); n = $8
		first = (ab[2] * agb + ab[3]) * bs
		for (k = 0; k < n; k++) if (first + k * bs >= cut) lost++ }
	END { print lost + 0 }'
}

cp --sparse=always "$S/full.img" "$S/cut.img"
truncate -s $CUT "$S/cut.img"
"$X" repair "$S/cut.img" -o "$S/out.img" --report "$S/r.xml" > "$S/rep" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "repair of the cut image exits $rc: $(tail -5 "$S/rep")"
grep -q '^lost: [0-9]* file forks kept [0-9]* blocks past the end' "$S/rep" ||
	fail "repair does not say that files lost blocks: $(tail -3 "$S/rep")"
[ "$(stat -c %s "$S/out.img")" -eq 419430400 ] || fail "OUT is $(stat -c %s "$S/out.img") bytes"
"$XFS_REPAIR" -n "$S/out.img" > "$S/xrn" 2>&1 || fail "xfs_repair -n on OUT: $(grep -v '^ ' "$S/xrn" | tail -5)"
"$X" check "$S/out.img" > "$S/chk" 2>&1 || fail "check of OUT: $(tail -3 "$S/chk")"
xmllint --noout --schema "$top_srcdir/doc/repair-report.xsd" "$S/r.xml" 2> "$S/xl" ||
	fail "the report does not validate: $(cat "$S/xl")"

kept=0
for name in big $(i=1; while [ $i -le 20 ]; do echo f$i; i=$((i + 1)); done); do
	ino=$("$X" ls -l "$S/full.img" "/" | awk -v n="$name" '$NF == n { print $1 }')
	[ -n "$ino" ] || fail "no inode for $name"
	want=$(expect_lost "$ino")
	got=$(sed -n "s/.*<loss ino=\"$ino\" fork=\"data\" blocks=\"\([0-9]*\)\".*/\1/p" "$S/r.xml")
	if [ "$want" -eq 0 ]; then
		[ -z "$got" ] || fail "$name ($ino) lost nothing but the report lists $got blocks"
		"$X" cat "$S/out.img" "/$name" > "$S/got" 2> "$S/cat" || fail "cat /$name: $(cat "$S/cat")"
		[ "$(file_sha "$S/got")" = "$(file_sha "$S/src/$name")" ] || fail "/$name differs after repair"
		kept=$((kept + 1))
	else
		[ "$got" = "$want" ] || fail "$name ($ino): $want blocks past the cut, the report says '${got}'"
	fi
done
[ $kept -ge 5 ] || fail "only $kept files lay before the cut: the test image is not what it should be"
grep -q "<loss " "$S/r.xml" || fail "no file listed as losing blocks"

# plan of the cut image, applied onto it extended to the filesystem's size
# (the missing end read as zeros, as repair reads it): the same repair.
"$X" plan "$S/cut.img" -o "$S/p.plan" > "$S/plan" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "plan of the cut image exits $rc: $(tail -3 "$S/plan")"
cp --sparse=always "$S/cut.img" "$S/target.img"
truncate -s 400M "$S/target.img"
"$X" apply "$S/p.plan" "$S/target.img" > "$S/apply" 2>&1 || fail "apply exits $?: $(tail -3 "$S/apply")"
"$XFS_REPAIR" -n "$S/target.img" > "$S/xrn2" 2>&1 ||
	fail "xfs_repair -n on the applied target: $(grep -v '^ ' "$S/xrn2" | tail -5)"

# xfs_repair needs the full size to run at all; it keeps no more than we do.
cp --sparse=always "$S/cut.img" "$S/xr.img"
truncate -s 400M "$S/xr.img"
"$XFS_REPAIR" -L "$S/xr.img" > "$S/xr" 2>&1
theirs=$("$X" ls -R "$S/xr.img" 2>/dev/null | grep -vc '^/lost+found$')
ours=$("$X" ls -R "$S/out.img" | grep -vc '^/lost+found$')
[ "$ours" -ge "$theirs" ] || fail "we keep $ours paths, xfs_repair $theirs"
echo "kept $kept intact files, $(grep -c '<loss ' "$S/r.xml") listed with lost blocks; paths: ours $ours, xfs_repair's $theirs"

if [ "$(id -u)" -eq 0 ] && [ -e /dev/loop-control ] && command -v mount >/dev/null; then
	mkdir "$S/mnt"
	if mount -o ro,loop,nouuid "$S/out.img" "$S/mnt" 2> "$S/mnt.err"; then
		n=$(ls "$S/mnt" | wc -l)
		umount "$S/mnt"
		[ "$n" -eq 21 ] || fail "the kernel lists $n names in OUT's root"
	else
		grep -q -i 'loop' "$S/mnt.err" || fail "the kernel refuses OUT: $(cat "$S/mnt.err")"
	fi
fi
exit 0
