#!/bin/sh
# tests/repair/plan_apply.sh - a stored plan, applied in place, is the repair.
#
# On every case of the repair case table (tests/repair/cases.txt: every
# structure family, with and without rmapbt, V4) each corrupted image C is
# made with make-case.sh and:
#   - `plan C -o P` and `repair C -o R` run (the same planner);
#   - `apply P T --undo U` on a copy T of C exits 0, and T equals R byte
#     for byte, and differs from C (the plan did something);
#   - `xfs_repair -n T` exits 0 (the applied image is clean to the oracle);
#   - `undo U T` exits 0 and T equals C byte for byte again;
#   - the XML index of P and of U (`show-plan --xml`) validates against
#     doc/plan-index.xsd (xmllint).
# On two of the cases (one whose plan rewrites the primary superblock and
# one whose does not), the refusals:
#   - a target with one byte changed inside one planned write: apply and
#     apply --dry-run exit 4, name that write, write nothing (T's SHA-256
#     unchanged) and create no undo file;
#   - a target with another uuid (superblock bytes 32..47 changed): exit 4,
#     the uuid named, T unchanged;
#   - a damaged plan (one byte flipped in its payload, or cut short): exit
#     8, T unchanged;
#   - a plan given to undo and an undo file given to apply: exit 16;
#   - an apply killed after 3 writes (the test hook
#     XFSRECON_TEST_APPLY_STOP_AFTER): T is then neither C nor R; a second
#     apply naming a new undo file is refused (exit 4, the old bytes are
#     gone); with the first run's undo file it completes (T == R); undo of
#     a copy of the interrupted T gives C back; apply on the finished T
#     has nothing to do (exit 0).
#
# PLAN_APPLY_CASES replaces the case list (names from the table).  Cost: a
# case is about 3 s under ASan (the two 400 MB image copies, the repair's
# hashes and xfs_repair -n dominate), about 8 minutes for the table.
# Scratch copies live in /dev/shm when it is writable.
. "$top_srcdir/tests/lib.sh"

need_tool zstd
need_tool cmp
need_tool sha256sum
need_tool xmllint
XFS_DB=${XFS_DB:-xfs_db}
XFS_REPAIR=${XFS_REPAIR:-xfs_repair}
need_tool "$XFS_DB"
need_tool "$XFS_REPAIR"
export XFS_DB XFS_REPAIR
here=$top_srcdir/tests/repair

# Every case of the table (todo cases too: a plan must equal the repair
# whether or not the repair is complete).
all_cases=$(sed -n '/^[a-z0-9]/s/|.*//p' "$here/cases.txt")
cases=${PLAN_APPLY_CASES:-$all_cases}
refusal_cases="dir-block-zeroed agi3-unlinked"

SCR=$TMPD
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	SCR=$(mktemp -d /dev/shm/xfsrecon-plan_apply.XXXXXX) || SCR=$TMPD
fi
trap 'rc=$?; [ "$SCR" = "$TMPD" ] || rm -rf "$SCR"
	if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then rm -rf "$TMPD"; fi; exit $rc' EXIT

X=$XFSRECON
nfail=0
bad() {
	echo "FAIL: $*" >&2
	nfail=$((nfail + 1))
}
copy() { cp --sparse=always "$1" "$2" || fail "cannot copy $1"; }

# base_image NAME: the raw corpus image in $SCR (once)
base_image() {
	[ -f "$SCR/$1.img" ] || zstd -q -d -f -o "$SCR/$1.img" "$top_srcdir/corpus/images/$1.img.zst" ||
		fail "cannot decompress $1"
	printf '%s\n' "$SCR/$1.img"
}

# make_case NAME: corrupted image $SCR/c.img, plan $SCR/p.plan, repair $SCR/r.img
make_case() {
	_img=$(grep -v '^#' "$here/cases.txt" | awk -F '|' -v n="$1" '$1 == n { print $2 }')
	[ -n "$_img" ] || fail "no case $1 in the table"
	_base=$(base_image "$_img")
	rm -f "$SCR/c.img" "$SCR/p.plan" "$SCR/r.img" "$SCR/u.undo"
	sh "$here/make-case.sh" "$1" "$_base" "$SCR/c.img" < /dev/null > "$SCR/mk.log" 2>&1 ||
		fail "$1: cannot make the case: $(cat "$SCR/mk.log")"
	"$X" plan "$SCR/c.img" -o "$SCR/p.plan" > "$SCR/plan.out" 2>&1
	_rc=$?
	[ $_rc -eq 1 ] || [ $_rc -eq 4 ] || { bad "$1: plan exits $_rc: $(cat "$SCR/plan.out")"; return 1; }
	"$X" repair "$SCR/c.img" -o "$SCR/r.img" > "$SCR/repair.out" 2>&1
	_rc=$?
	[ $_rc -eq 1 ] || [ $_rc -eq 4 ] || { bad "$1: repair exits $_rc"; return 1; }
	return 0
}

# ------------------------------------------------------------ plan + apply == repair -o
n=0
for name in $cases; do
	make_case "$name" || continue
	n=$((n + 1))
	copy "$SCR/c.img" "$SCR/t.img"
	"$X" apply "$SCR/p.plan" "$SCR/t.img" --undo "$SCR/u.undo" > "$SCR/apply.out" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		bad "$name: apply exits $rc: $(cat "$SCR/apply.out")"
		continue
	fi
	cmp -s "$SCR/t.img" "$SCR/r.img" || bad "$name: the applied plan differs from repair -o: $(cmp "$SCR/t.img" "$SCR/r.img" 2>&1 | head -n 1)"
	cmp -s "$SCR/t.img" "$SCR/c.img" && bad "$name: apply changed nothing"
	"$XFS_REPAIR" -n "$SCR/t.img" < /dev/null > /dev/null 2>&1 || bad "$name: xfs_repair -n finds the applied image unclean"
	if "$X" show-plan "$SCR/p.plan" --xml "$SCR/p.xml" > /dev/null &&
	   "$X" show-plan "$SCR/u.undo" --xml "$SCR/u.xml" > /dev/null; then
		xmllint --noout --schema "$top_srcdir/doc/plan-index.xsd" "$SCR/p.xml" "$SCR/u.xml" \
			> "$SCR/xsd.out" 2>&1 ||
			bad "$name: an index does not validate against doc/plan-index.xsd: $(grep -v validates "$SCR/xsd.out" | head -n 3)"
	else
		bad "$name: show-plan --xml fails on the plan or the undo file"
	fi
	"$X" undo "$SCR/u.undo" "$SCR/t.img" > "$SCR/undo.out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || bad "$name: undo exits $rc: $(cat "$SCR/undo.out")"
	cmp -s "$SCR/t.img" "$SCR/c.img" || bad "$name: undo does not restore the image"
	echo "ok: $name: $(tail -n 1 "$SCR/plan.out")"
done
[ $n -gt 0 ] || fail "no case ran"

# ------------------------------------------------------------ refusals
for name in $refusal_cases; do
	make_case "$name" || continue
	"$X" show-plan "$SCR/p.plan" --xml "$SCR/p.xml" || { bad "$name: show-plan --xml fails"; continue; }
	"$X" show-plan "$SCR/p.plan" > "$SCR/p.txt" || bad "$name: show-plan fails"
	grep -q '^summary: ' "$SCR/p.txt" || bad "$name: show-plan prints no summary"
	# a finding's place in the text is the index's (its AG)
	fl=$(grep '<finding ' "$SCR/p.xml" | grep ' ag="' | head -n 1)
	if [ -n "$fl" ]; then
		fref=$(printf '%s\n' "$fl" | sed -n 's/.* ref="\([^"]*\)".*/\1/p')
		fag=$(printf '%s\n' "$fl" | sed -n 's/.* ag="\([0-9]*\)".*/\1/p')
		grep -q "^  $fref \[[^]]*\] [a-z]*: ag $fag[ :]" "$SCR/p.txt" ||
			bad "$name: show-plan does not say where $fref is (ag $fag)"
	fi
	grep -q '<change offset="0" ' "$SCR/p.xml" && sb0=rewritten || sb0=kept
	# the middle write of the plan
	nch=$(grep -c '<change ' "$SCR/p.xml")
	[ "$nch" -gt 0 ] || { bad "$name: the plan has no writes"; continue; }
	line=$(grep '<change ' "$SCR/p.xml" | sed -n "$(( (nch + 1) / 2 ))p")
	off=$(printf '%s\n' "$line" | sed -n 's/.* offset="\([0-9]*\)".*/\1/p')
	len=$(printf '%s\n' "$line" | sed -n 's/.* length="\([0-9]*\)".*/\1/p')

	# one byte changed inside a planned write
	copy "$SCR/c.img" "$SCR/t.img"
	byte=$(od -An -tu1 -j $((off + len / 2)) -N1 "$SCR/t.img" | tr -d ' ')
	printf "\\$(printf '%03o' $(( (byte + 1) % 256 )))" |
		dd of="$SCR/t.img" bs=1 seek=$((off + len / 2)) conv=notrunc 2> /dev/null
	h=$(file_sha "$SCR/t.img")
	"$X" apply --dry-run "$SCR/p.plan" "$SCR/t.img" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq 4 ] || bad "$name: apply --dry-run on a diverged target exits $rc"
	rm -f "$SCR/u2.undo"
	"$X" apply "$SCR/p.plan" "$SCR/t.img" --undo "$SCR/u2.undo" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq 4 ] || bad "$name: apply on a diverged target exits $rc"
	grep -q "^divergent: $len bytes at byte $off " "$SCR/out" || bad "$name: the diverged write at byte $off is not named: $(cat "$SCR/out")"
	[ "$(grep -c '^divergent: ' "$SCR/out")" -eq 1 ] || bad "$name: more than the one diverged write named"
	[ "$(file_sha "$SCR/t.img")" = "$h" ] || bad "$name: a diverged target was written"
	[ -e "$SCR/u2.undo" ] && bad "$name: a refused apply left an undo file"

	# another uuid
	copy "$SCR/c.img" "$SCR/t.img"
	printf '\336\255\276\357\336\255\276\357\336\255\276\357\336\255\276\357' |
		dd of="$SCR/t.img" bs=1 seek=32 conv=notrunc 2> /dev/null
	h=$(file_sha "$SCR/t.img")
	"$X" apply "$SCR/p.plan" "$SCR/t.img" --undo "$SCR/u2.undo" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq 4 ] || bad "$name: apply on another filesystem (sb0 $sb0) exits $rc"
	grep -q 'uuid differs' "$SCR/out" || bad "$name: the other uuid is not named: $(cat "$SCR/out")"
	[ "$(file_sha "$SCR/t.img")" = "$h" ] || bad "$name: another filesystem was written"

	# a damaged plan, and the wrong kind of file
	copy "$SCR/c.img" "$SCR/t.img"
	h=$(file_sha "$SCR/t.img")
	psize=$(stat -c %s "$SCR/p.plan")
	cp "$SCR/p.plan" "$SCR/d.plan"
	byte=$(od -An -tu1 -j $((psize - 20)) -N1 "$SCR/d.plan" | tr -d ' ')
	printf "\\$(printf '%03o' $(( byte ^ 1 )))" |
		dd of="$SCR/d.plan" bs=1 seek=$((psize - 20)) conv=notrunc 2> /dev/null
	"$X" apply "$SCR/d.plan" "$SCR/t.img" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq 8 ] || bad "$name: a damaged plan gives exit $rc: $(cat "$SCR/out")"
	head -c $((psize - 7)) "$SCR/p.plan" > "$SCR/d.plan"
	"$X" apply "$SCR/d.plan" "$SCR/t.img" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq 8 ] || bad "$name: a truncated plan gives exit $rc"
	"$X" undo "$SCR/p.plan" "$SCR/t.img" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq 16 ] || bad "$name: undo of a plan exits $rc"
	[ "$(file_sha "$SCR/t.img")" = "$h" ] || bad "$name: a refused run wrote the target"

	# killed after 3 writes, then completed, or undone
	[ "$nch" -gt 3 ] || { echo "note: $name: only $nch writes, no interrupted apply"; continue; }
	rm -f "$SCR/u.undo"
	XFSRECON_TEST_APPLY_STOP_AFTER=3 "$X" apply "$SCR/p.plan" "$SCR/t.img" --undo "$SCR/u.undo" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -ge 128 ] || bad "$name: the test hook did not stop apply (exit $rc)"
	cmp -s "$SCR/t.img" "$SCR/c.img" && bad "$name: the interrupted apply wrote nothing"
	cmp -s "$SCR/t.img" "$SCR/r.img" && bad "$name: the interrupted apply wrote everything"
	"$X" apply "$SCR/u.undo" "$SCR/t.img" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq 16 ] || bad "$name: apply of an undo file exits $rc"
	copy "$SCR/t.img" "$SCR/t2.img"
	"$X" apply "$SCR/p.plan" "$SCR/t.img" --undo "$SCR/u3.undo" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq 4 ] || bad "$name: resuming with a new undo file exits $rc (the old bytes are gone)"
	[ -e "$SCR/u3.undo" ] && bad "$name: an incomplete undo file was written"
	"$X" apply "$SCR/p.plan" "$SCR/t.img" --undo "$SCR/u.undo" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || bad "$name: resuming the interrupted apply exits $rc: $(cat "$SCR/out")"
	cmp -s "$SCR/t.img" "$SCR/r.img" || bad "$name: the resumed apply differs from repair -o"
	"$X" apply "$SCR/p.plan" "$SCR/t.img" > "$SCR/out" 2>&1
	rc=$?
	{ [ $rc -eq 0 ] && grep -q '^nothing to do' "$SCR/out"; } || bad "$name: apply on an applied target exits $rc"
	"$X" undo "$SCR/u.undo" "$SCR/t2.img" > "$SCR/out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || bad "$name: undo of the interrupted apply exits $rc"
	cmp -s "$SCR/t2.img" "$SCR/c.img" || bad "$name: undo of the interrupted apply does not restore the image"
	echo "ok: $name: refusals, interrupted apply (the plan's superblock: $sb0)"
done

[ $nfail -eq 0 ] || fail "$nfail failures"
exit 0
