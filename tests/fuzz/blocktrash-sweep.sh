#!/bin/sh
# blocktrash-sweep.sh - corrupt real images block type by block type with
# xfs_db's blocktrash and run xfsrecon on each; report crashes and hangs.
#
# usage: tests/fuzz/blocktrash-sweep.sh [N_IMAGES]     (default 200)
#
# For seed 1, 2, ... and every committed corpus image (corpus/images/*.img.zst;
# without them, a populated scratch image is made) and every metadata block
# type, a copy of the image gets
#     xfs_db -x -c blockget -c 'blocktrash -n 4 -s SEED -t TYPE -3'
# (four blocks of that type, a random run of 1-1024 bits each set to random
# values; a type the image does not have is skipped: sb agf agfl agi btbno
# btcnt btino btfino btrmap btrefcnt btbmapd btbmapa inode dir attr symlink
# log; the corpus has no quota or realtime blocks), until N_IMAGES trashed
# images were made.  xfs_db 6.1's blockget classes no block as btbmapd or
# btbmapa, so type "bmbt" is ours: up to 4 blocks, picked by the seed among
# the bmbt blocks `xfsrecon fsmap --forward` lists on the clean image, each
# trashed by `fsblock N` + `blocktrash -z -s SEED -3`.  Until N_IMAGES trashed
# images are made.  On each, these run with a 30 s timeout:
#     xfsrecon check --no-hash --xml R IMG   (R is validated against doc/report.xsd;
#                                            hashing 400 MB would only slow the sweep)
#     xfsrecon info IMG
# and each of these the program offers (it is asked with --help):
#     ls -lR --deleted IMG /, bodyfile IMG, stat IMG ROOTINO, cat IMG INO for
#     three regular files (found with bodyfile on the clean image), extract
#     IMG / -C DIR (nothing may appear beside DIR), repair IMG -o OUT,
#     map IMG -o F --html, show IMG btree 0 inobt, show --json IMG dir /,
#     show IMG log, plan IMG -o P and apply --dry-run P IMG
# and xfs_repair -n on every output of a repair that exited 0 or 1.
# A crash is an exit status >= 128 or any sanitizer report; a hang is the
# timeout.  Exit statuses 0, 4 and 8 are the expected outcomes of a check
# (clean, problems left, operational error), 16 a usage error (a bug here).
# With GNU time installed, the slowest run and the largest peak memory of each
# command are printed too.  Failing images are kept, compressed, with their stderr, in
# SWEEP_WORKDIR/fail/.  Prints a table per block type and exits 1 if anything
# crashed, hung, wrote an invalid report or extracted outside its
# destination.  Not part of `make check`.
#
# Environment:
#   XFSRECON       program to test; default: an ASan+UBSan build made in
#                  SWEEP_BUILDDIR (default _build-sweep in the source tree)
#   SWEEP_WORKDIR  scratch directory (default: a new one under TMPDIR or /tmp)
#   SWEEP_TYPES    the block types to trash (default: all of the list above;
#                  agf, agfl and agi are blocks of their own only where a
#                  sector is a block or more, as in v5-4ksect; elsewhere
#                  they share AG block 0 with the superblock, type sb)
set -u

n_images=${1:-200}
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
TYPES=${SWEEP_TYPES:-"sb agf agfl agi btbno btcnt btino btfino btrmap btrefcnt btbmapd btbmapa bmbt inode dir attr symlink log"}

sweep_srcdir=$srcdir
. "$srcdir/tests/fuzz/sweep-lib.sh"
sweep_need xfs_db zstd timeout
sweep_xfsrecon
work=${SWEEP_WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/xfz-sweep.XXXXXX")}
mkdir -p "$work/base" "$work/fail"
: > "$work/results"

# ---------------------------------------------------------------- base images
sweep_base_images "$work/base"
if ! ls "$work/base"/*.img >/dev/null 2>&1; then
	# No corpus: a populated scratch image (needs root for the loop mount).
	img="$work/base/scratch.img"
	truncate -s 320m "$img"
	mkfs.xfs -q -m rmapbt=1,reflink=1 "$img" || exit 2
	mkdir -p "$work/mnt"
	mount -o loop "$img" "$work/mnt" || exit 2
	mkdir -p "$work/mnt/d/sub"
	i=0
	while [ $i -lt 300 ]; do
		printf 'file %d\n' $i > "$work/mnt/d/f$i"
		i=$((i + 1))
	done
	ln -s f1 "$work/mnt/d/link"
	xfs_io -f -c "pwrite -q 0 1m" "$work/mnt/d/big"
	umount "$work/mnt"
fi

# Judge of every repaired output (skipped where xfsprogs' xfs_repair is missing).
xfs_repair=$(command -v "${XFS_REPAIR:-xfs_repair}" 2> /dev/null || true)

extra_cmds=""
help=$("$XFSRECON" --help 2>&1)
for c in ls bodyfile stat cat extract repair map show plan; do
	printf '%s\n' "$help" | grep -q "^  $c " && extra_cmds="$extra_cmds $c"
done
xsd="$srcdir/doc/report.xsd"

# classify TAG RC ERRFILE: ok | crash | hang | usage.  A usage error is a
# bug except from stat/cat, whose inode may have stopped being a regular file,
# and show, whose directory or tree may have stopped being one.
classify() {
	_f=$(sweep_fault "$2" "$3")
	if [ "$_f" = ok ] && [ "$2" -eq 16 ] &&
		case $1 in stat*|cat*|show*) false ;; *) true ;; esac; then
		echo usage
	else
		echo "$_f"
	fi
}

# Wall time and peak resident memory of every run, where GNU time is installed
# (Debian package "time"); under ASan the memory includes its shadow and quarantine.
gnutime=""
[ -x /usr/bin/time ] && /usr/bin/time -f '%M' -o /dev/null true 2>/dev/null && gnutime=/usr/bin/time

# run_cmd TAG CMD...: run one xfsrecon command, record it (name, type, seed,
# tag, exit status, class, seconds, peak KiB).  Standard output
# is thrown away: cat of a file whose size a flipped bit made an exabyte would
# otherwise fill the disk (such a cat is then a "hang" to look at).
run_cmd() {
	tag=$1
	shift
	if [ -n "$gnutime" ]; then
		"$gnutime" -f '%e %M' -o "$work/time" timeout 30 "$@" > /dev/null 2> "$work/err"
		rc=$?
		spent=$(tail -1 "$work/time")
	else
		timeout 30 "$@" > /dev/null 2> "$work/err"
		rc=$?
		spent="- -"
	fi
	class=$(classify "$tag" "$rc" "$work/err")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$type" "$seed" "$tag" "$rc" "$class" \
		"${spent% *}" "${spent#* }" >> "$work/results"
	if [ "$class" != ok ]; then
		f="$work/fail/$name-$type-s$seed-$tag"
		cp "$work/err" "$f.stderr"
		[ -f "$f.img.zst" ] || zstd -q -f -o "$f.img.zst" "$work/cur.img"
		echo "  $class: $tag on $name type $type seed $seed (exit $rc): $f.img.zst"
	fi
}

# trash_bmbt BASE SEED: trash, in $work/cur.img, up to 4 bmbt blocks of BASE
# picked by SEED; false when BASE has no bmbt block.
trash_bmbt() {
	[ -f "$1.bmbt" ] || "$XFSRECON" fsmap --forward "$1" 2> /dev/null |
		awk '$NF == "bmbt" { split($1, a, "/"); for (i = 0; i < $3; i++) print a[1], a[2] + i }' \
		> "$1.bmbt"
	[ -s "$1.bmbt" ] || return 1
	_log=$(xfs_db -r -c "sb 0" -c "p agblklog" "$1" | sed -n 's/^agblklog = //p')
	[ -n "$_log" ] || return 1
	awk -v s="$2" -v log2="$_log" 'BEGIN { srand(s) } { l[NR] = $0 }
		END {
			for (k = 0; k < 4 && k < NR; k++) {
				split(l[int(rand() * NR) + 1], f, " ")
				printf "%d %d\n", f[1] * 2 ^ log2 + f[2], s * 16 + k
			}
		}' "$1.bmbt" |
	while read -r _fsb _s; do
		xfs_db -x -c "fsblock $_fsb" -c "blocktrash -z -s $_s -3" "$work/cur.img" 2>&1
	done
}

count=0
seed=0
while [ "$count" -lt "$n_images" ]; do
	seed=$((seed + 1))
	made_one=0
	for base in "$work/base"/*.img; do
		name=$(basename "$base" .img)
		for type in $TYPES; do
			[ "$count" -lt "$n_images" ] || break 2
			cp --sparse=always "$base" "$work/cur.img"
			if [ "$type" = bmbt ]; then
				trash_bmbt "$base" "$seed" > "$work/trash" 2>&1
			else
				xfs_db -x -c blockget -c "blocktrash -n 4 -s $seed -t $type -3" \
					"$work/cur.img" > "$work/trash" 2>&1
			fi
			grep -q randomized "$work/trash" || continue
			count=$((count + 1))
			made_one=1
			rm -f "$work/report.xml"
			run_cmd check "$XFSRECON" check --no-hash --xml "$work/report.xml" "$work/cur.img"
			if command -v xmllint >/dev/null 2>&1 && [ -s "$work/report.xml" ] && [ -f "$xsd" ] &&
				! xmllint --noout --schema "$xsd" "$work/report.xml" >/dev/null 2>&1; then
				printf '%s\t%s\t%s\txml\t0\tbadxml\t-\t-\n' "$name" "$type" "$seed" >> "$work/results"
				echo "  badxml: report of $name type $type seed $seed fails the schema"
				cp "$work/report.xml" "$work/fail/$name-$type-s$seed.xml"
			fi
			run_cmd info "$XFSRECON" info "$work/cur.img"
			root=$(xfs_db -r -c "sb 0" -c "p rootino" "$base" | sed -n 's/^rootino = //p')
			case $extra_cmds in *cat*)
				[ -f "$base.files" ] || "$XFSRECON" bodyfile "$base" 2>/dev/null |
					awk -F '|' '$4 ~ /^r\// { print $3 }' | head -3 > "$base.files" ;;
			esac
			for c in $extra_cmds; do
				case $c in
				ls) run_cmd ls "$XFSRECON" ls -l -R --deleted "$work/cur.img" / ;;
				bodyfile) run_cmd bodyfile "$XFSRECON" bodyfile "$work/cur.img" ;;
				stat) run_cmd stat "$XFSRECON" stat "$work/cur.img" "$root" ;;
				cat)
					for ino in $(cat "$base.files"); do
						run_cmd "cat-$ino" "$XFSRECON" cat "$work/cur.img" "$ino"
					done ;;
				extract)
					rm -rf "$work/x"
					mkdir -p "$work/x/dest"
					run_cmd extract "$XFSRECON" extract "$work/cur.img" / -C "$work/x/dest"
					if [ "$(ls -A "$work/x")" != dest ]; then
						printf '%s\t%s\t%s\textract\t0\tescape\t-\t-\n' "$name" "$type" "$seed" \
							>> "$work/results"
						echo "  escape: extract of $name type $type seed $seed wrote beside its destination"
					fi
					chmod -R u+rwx "$work/x" 2>/dev/null
					rm -rf "$work/x" ;;
				repair)
					rm -f "$work/repaired.img"
					run_cmd repair "$XFSRECON" repair "$work/cur.img" -o "$work/repaired.img"
					# The output of a repair that claims success, judged by xfs_repair -n.
					if [ -n "$xfs_repair" ] && [ -f "$work/repaired.img" ] &&
						{ [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; }; then
						"$xfs_repair" -n "$work/repaired.img" > "$work/xr" 2>&1
						xr=$?
						printf '%s\t%s\t%s\txfs_repair-n\t%s\t%s\t-\t-\n' "$name" "$type" \
							"$seed" "$xr" "$([ $xr -eq 0 ] && echo ok || echo unclean)" \
							>> "$work/results"
						if [ $xr -ne 0 ]; then
							cp "$work/xr" "$work/fail/$name-$type-s$seed-xfs_repair.txt"
							zstd -q -f -o "$work/fail/$name-$type-s$seed.img.zst" "$work/cur.img"
							echo "  unclean: xfs_repair -n on the repair of $name type $type seed $seed exits $xr"
						fi
					fi ;;
				map)
					run_cmd map "$XFSRECON" map "$work/cur.img" -o "$work/map.html" --html --force ;;
				show)
					run_cmd show-inobt "$XFSRECON" show "$work/cur.img" btree 0 inobt
					run_cmd show-dir "$XFSRECON" show --json "$work/cur.img" dir /
					run_cmd show-log "$XFSRECON" show "$work/cur.img" log ;;
				plan)
					rm -f "$work/p.plan"
					run_cmd plan "$XFSRECON" plan "$work/cur.img" -o "$work/p.plan"
					[ -f "$work/p.plan" ] &&
						run_cmd apply-dry "$XFSRECON" apply --dry-run "$work/p.plan" "$work/cur.img" ;;
				esac
			done
		done
	done
	if [ "$made_one" = 0 ]; then
		echo "blocktrash-sweep.sh: blocktrash found no blocks to trash" >&2
		exit 2
	fi
done
rm -f "$work/cur.img" "$work/repaired.img" "$work/map.html" "$work/p.plan"

# ---------------------------------------------------------------- summary
echo
echo "blocktrash sweep: $count trashed images, seeds 1-$seed, program $XFSRECON"
awk -F '\t' -v order="$TYPES" '
$4 == "check" { imgs[$2]++; ex[$2, $5]++; codes[$5] = 1 }
$6 == "crash" { crash[$2]++; tc++ }
$6 == "hang"  { hang[$2]++; th++ }
$6 == "usage" { usage[$2]++; tu++ }
$6 == "badxml" || $6 == "escape" || $6 == "unclean" { bad[$2]++; tb++ }
{ types[$2] = 1; runs++ }
END {
	printf "%-9s %6s %6s %6s %6s %6s %6s %6s %6s %6s\n", "type", "images", "exit0", "exit4", "exit8", "other", "crash", "hang", "usage", "bad"
	n = split(order, ts, " ")
	for (i = 1; i <= n; i++) {
		t = ts[i]
		if (!(t in types))
			continue
		other = imgs[t] - ex[t, 0] - ex[t, 4] - ex[t, 8]
		printf "%-9s %6d %6d %6d %6d %6d %6d %6d %6d %6d\n", t, imgs[t], ex[t, 0], ex[t, 4], ex[t, 8], other, crash[t], hang[t], usage[t], bad[t]
		ti += imgs[t]; t0 += ex[t, 0]; t4 += ex[t, 4]; t8 += ex[t, 8]; to += other
	}
	printf "%-9s %6d %6d %6d %6d %6d %6d %6d %6d %6d\n", "total", ti, t0, t4, t8, to, tc, th, tu, tb
	printf "(%d command runs; exit columns are for check; bad = report failing the\n", runs
	printf " schema, extract writing beside its destination, or a repaired output\n"
	printf " that xfs_repair -n does not call clean)\n"
	exit (tc + th + tu + tb) > 0
}' "$work/results"
status=$?
if [ -n "$gnutime" ]; then
	echo
	echo "slowest and largest run of each command (seconds, peak MiB, where):"
	awk -F '\t' '$7 != "-" {
		c = $4; sub(/-[0-9]+$/, "", c)
		if (!(c in n)) { order[++k] = c; tw[c] = mw[c] = $1 " " $2 " s" $3 }
		n[c]++
		if ($7 + 0 > t[c]) { t[c] = $7 + 0; tw[c] = $1 " " $2 " s" $3 }
		if ($8 + 0 > m[c]) { m[c] = $8 + 0; mw[c] = $1 " " $2 " s" $3 }
	}
	END {
		for (i = 1; i <= k; i++) {
			c = order[i]
			printf "  %-10s %5d runs  %6.2f s (%s)  %6.0f MiB (%s)\n", c, n[c], t[c], tw[c], m[c] / 1024, mw[c]
		}
	}' "$work/results"
fi
echo "results: $work/results; failing images: $work/fail/"
exit $status
