#!/bin/sh
# tests/oracle/ag_rebuild.sh - the AG index rebuild judged by xfs_repair and
# the kernel.
#
# For every corpus image, tests/tools/agrebuild rebuilds every AG's bnobt,
# cntbt, inobt, finobt, rmapbt, refcountbt, AGFL, AGF and AGI (from the
# analyzer's ownership lists and inode chunks) into a copy, and:
#   - the copy differs from the image (the trees were really rewritten);
#   - `xfs_repair -n` exits 0 on the copy and prints nothing but its
#     progress lines;
#   - `xfsrecon check` finds nothing on it;
#   - as root, when the kernel mounts the original: the copy mounts
#     read-only and every file's SHA-256 equals the original's.
# Then the same with the old trees destroyed first: the root blocks of the
# bnobt, cntbt, inobt, finobt, rmapbt and refcountbt of different AGs are
# zeroed (the analyzer then calls those AGs' ownership incomplete, so the
# lists come from the intact image, standing in for the repair's model, and
# every planned change is written).  xfs_repair -n must fail on the damaged
# copy and pass after the rebuild.  Last, on v5-rmap-reflink, AGF and AGI
# counters and free-space records are damaged with xfs_db (the ownership
# lists stay complete) and the rebuild from the damaged image itself must
# be clean.
. "$top_srcdir/tests/lib.sh"

XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
XFS_DB=${XFS_DB:-xfs_db}
need_tool zstd
need_tool "$XFS_REPAIR"
need_tool "$XFS_DB"
TOOL="$top_builddir/tests/tools/agrebuild"
[ -x "$TOOL" ] || fail "$TOOL is not built"

# Raw images are 320-400 MB sparse files: use tmpfs when there is one.
SCR="$TMPD"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	SCR=$(mktemp -d /dev/shm/xfsrecon-agrebuild.XXXXXX) || SCR="$TMPD"
fi
MNT="$TMPD/mnt"
mkdir -p "$MNT"
cleanup() {
	umount "$MNT" 2>/dev/null
	[ "$SCR" = "$TMPD" ] || rm -rf "$SCR"
}
trap 'rc=$?; cleanup; if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

report="$TMPD/report"
: > "$report"
nfail=0
mounted=0

bad() {
	echo "$*" >> "$report"
	nfail=$((nfail + 1))
}

# repair_clean LABEL IMG: xfs_repair -n exits 0 and complains about nothing.
repair_clean() {
	"$XFS_REPAIR" -n "$2" > "$TMPD/repair.out" 2>&1
	rc=$?
	grep -v -e '^Phase [0-9]' -e '^        - ' -e '^No modify flag set' \
		-e 'Cannot get host filesystem geometry' -e 'sector size mismatch between' \
		-e 'the image and the host filesystem' "$TMPD/repair.out" > "$TMPD/repair.extra"
	if [ $rc -ne 0 ] || [ -s "$TMPD/repair.extra" ]; then
		bad "$1: xfs_repair -n exit status $rc on the rebuilt image"
		sed -n '1,15p' "$TMPD/repair.extra" >> "$report"
		return 1
	fi
	return 0
}

# check_clean LABEL IMG: xfsrecon check exits 0 with no finding.
check_clean() {
	run_limited 300 "$XFSRECON" check "$2" > "$TMPD/check.out" 2> "$TMPD/check.err"
	rc=$?
	ids=$(report_ids "$TMPD/check.out" | tr '\n' ' ')
	if [ $rc -ne 0 ] || [ -n "$ids" ]; then
		bad "$1: xfsrecon check exit status $rc, findings: ${ids:-none}"
		sed -n '1,10p' "$TMPD/check.out" "$TMPD/check.err" >> "$report"
	fi
}

# sums IMG OUT: SHA-256 of every regular file as the kernel reads IMG
# (mounted read-only); status 1 when it does not mount.
sums() {
	[ "$(id -u)" -eq 0 ] || return 1
	mount -o ro,loop "$1" "$MNT" 2>/dev/null || return 1
	(cd "$MNT" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum) > "$2"
	st=$?
	umount "$MNT" || st=1
	return $st
}

# kernel_same LABEL IMG ORIG_SUMS: the rebuilt IMG mounts and holds the same files.
kernel_same() {
	[ -s "$3" ] || return 0
	if ! sums "$2" "$TMPD/sums.new"; then
		bad "$1: the kernel does not mount the rebuilt image"
		return
	fi
	mounted=$((mounted + 1))
	if ! cmp -s "$3" "$TMPD/sums.new"; then
		bad "$1: file contents differ after the rebuild"
		diff "$3" "$TMPD/sums.new" | sed -n '1,10p' >> "$report"
	fi
}

# field IMG HDRCMD NAME: a value xfs_db prints for a header field, or empty.
field() {
	"$XFS_DB" -r -c "$2" -c "p $3" "$1" 2>/dev/null | awk -v f="$3" '$1 == f { print $3 }'
}

# zap IMG AGNO HDR FIELD: zero the whole block the AG's header field points at
# (never one of the header blocks).
zap() {
	bno=$(field "$1" "$3 $2" "$4")
	case "$bno" in ''|*[!0-9]*) return 0 ;; esac
	[ "$bno" -gt $((3 * sectsize / bs)) ] || return 0
	dd if=/dev/zero of="$1" bs="$bs" seek=$(($2 * agblocks + bno)) count=1 \
		conv=notrunc status=none || fail "cannot zero block $bno of AG $2"
	zapped="$zapped $3$2.$4"
}

n=0
for name in $(corpus_names); do
	n=$((n + 1))
	img=$SCR/$name.img
	zstd -q -d -f -o "$img" "$top_srcdir/corpus/images/$name.img.zst" || fail "cannot decompress $name"
	: > "$TMPD/sums.orig"
	sums "$img" "$TMPD/sums.orig" || : > "$TMPD/sums.orig"

	# 1. The clean image, from the analyzer's own lists.
	copy=$SCR/$name.rebuilt
	cp --sparse=always "$img" "$copy"
	if ! "$TOOL" "$img" "$copy" > "$TMPD/tool.out" 2>&1; then
		bad "$name: agrebuild failed"
		sed -n '1,10p' "$TMPD/tool.out" >> "$report"
	elif cmp -s "$img" "$copy"; then
		bad "$name: the rebuild changed nothing"
	elif repair_clean "$name" "$copy"; then
		check_clean "$name" "$copy"
		kernel_same "$name" "$copy" "$TMPD/sums.orig"
	fi
	rm -f "$copy"

	# 2. Every kind of tree destroyed, each in another AG where there are several.
	bs=$(field "$img" "sb 0" blocksize)
	sectsize=$(field "$img" "sb 0" sectsize)
	agblocks=$(field "$img" "sb 0" agblocks)
	agcount=$(field "$img" "sb 0" agcount)
	last=$((agcount - 1))
	dmg=$SCR/$name.damaged
	cp --sparse=always "$img" "$dmg"
	zapped=
	zap "$dmg" 0 agf bnoroot
	zap "$dmg" $((1 % agcount)) agf cntroot
	zap "$dmg" $last agi root
	zap "$dmg" 0 agi free_root
	zap "$dmg" $((2 % agcount)) agf rmaproot
	zap "$dmg" $last agf refcntroot
	if "$XFS_REPAIR" -n "$dmg" > /dev/null 2>&1; then
		bad "$name: xfs_repair -n passes the damaged copy ($zapped): the damage is not real"
	elif ! "$TOOL" --all-changes "$img" "$dmg" > "$TMPD/tool.out" 2>&1; then
		bad "$name ($zapped): agrebuild failed"
		sed -n '1,10p' "$TMPD/tool.out" >> "$report"
	elif repair_clean "$name ($zapped)" "$dmg"; then
		check_clean "$name ($zapped)" "$dmg"
		kernel_same "$name ($zapped)" "$dmg" "$TMPD/sums.orig"
	fi
	rm -f "$dmg"

	# 3. Damage the analyzer sees past: counters, free-space records, AGI fields.
	if [ "$name" = v5-rmap-reflink ]; then
		dmg=$SCR/$name.counters
		cp --sparse=always "$img" "$dmg"
		"$XFS_DB" -x -c 'agf 0' -c 'write -d freeblks 5' -c 'write -d longest 3' \
			-c 'write -d btreeblks 9' -c 'agf 1' -c 'addr bnoroot' \
			-c 'write -d recs[1].blockcount 1' -c 'agf 2' -c 'addr cntroot' \
			-c 'write -d recs[1].startblock 100' -c 'agi 0' -c 'write -d newino 12345' \
			-c 'write -d unlinked[3] 3' "$dmg" > /dev/null 2>&1
		cp --sparse=always "$dmg" "$dmg.out"
		if "$XFS_REPAIR" -n "$dmg" > /dev/null 2>&1; then
			bad "$name: xfs_repair -n passes the copy with damaged counters"
		elif ! "$TOOL" "$dmg" "$dmg.out" > "$TMPD/tool.out" 2>&1; then
			bad "$name (counters): agrebuild failed"
			sed -n '1,10p' "$TMPD/tool.out" >> "$report"
		elif repair_clean "$name (counters)" "$dmg.out"; then
			check_clean "$name (counters)" "$dmg.out"
			kernel_same "$name (counters)" "$dmg.out" "$TMPD/sums.orig"
		fi
		rm -f "$dmg" "$dmg.out"
	fi
	rm -f "$img"
done
[ $n -gt 0 ] || fail "no corpus image found"

echo "rebuilt $n images, $mounted rebuilt images mounted, $nfail failures"
if [ $nfail -ne 0 ]; then
	cat "$report" >&2
	exit 1
fi
exit 0
