#!/bin/sh
# tests/log/replay_oracle.sh - log replay judged by the kernel.
#
# For every workload of corpus/recipes/dirty-log.sh (a dirty image whose
# newest changes are only in the log), the kernel replays a copy (mount and
# unmount) and its read-only mount gives the expected tree: paths, inode
# numbers, types, modes, owners, link counts, sizes, symlink targets, mtimes,
# the SHA-256 of every file and every extended attribute.  Then:
#   - xfsrecon on the dirty image (the log replayed in memory): `ls -R`,
#     `ls -R -l`, `extract` and `cat` show that tree;
#   - `xfsrecon repair DIRTY -o OUT`: xfs_repair -n calls OUT clean, and the
#     kernel mounts OUT and shows that tree;
#   - `--log-only` names every inode the workload touched and every inode and
#     buffer xfs_logprint finds in the log.
# Our views of the kernel's replayed (clean) copy must agree with the kernel
# too: that keeps the harness honest (a difference on the dirty image alone
# is the replay's).
# A workload matches when all of that holds.  The test prints
# "workloads matched: N of M" and one line per difference, and passes only
# when every workload matches.  Needs root and loop mounts (skips otherwise).
# LOG_WORKLOADS="cow torn" limits a run to some workloads.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/log/log-lib.sh"

WORKLOADS=${LOG_WORKLOADS:-"create extend delete rename dir-leaf dir-node xattr reflink cow normap logbsize torn"}
make_dirty $WORKLOADS

# harness CASE: the kernel's side of a case, or 1 with the reason in $why
# when the image cannot serve (the kernel refuses it, or the log turns out
# to change nothing: the kernel's own writeback got there first).  The
# recipe's images depend on timing; such an image is made again.
harness() {
	dirty="$SCR/imgs/$1.img"
	kernel="$SCR/kernel.img"
	if ! kernel_replay "$dirty" "$kernel"; then
		why="the kernel cannot replay the log: $(head -1 "$SCR/mount.err")"
		return 1
	fi
	if ! kernel_view "$kernel" "$SCR/k"; then
		why="the kernel cannot mount the replayed copy: $(head -1 "$SCR/mount.err")"
		return 1
	fi
	# the workload is not a no-op: the on-disk state (the log ignored, as
	# xfs_repair -L would leave it) differs from the replayed one
	cp --sparse=always "$dirty" "$SCR/zeroed.img"
	"$XFS_REPAIR" -L "$SCR/zeroed.img" > /dev/null 2>&1
	if kernel_view "$SCR/zeroed.img" "$SCR/z" && cmp -s "$SCR/k.long" "$SCR/z.long" &&
	   cmp -s "$SCR/k.sums" "$SCR/z.sums" && cmp -s "$SCR/k.xattrs" "$SCR/z.xattrs"; then
		why="the tree is the same with the log thrown away; the workload proves nothing"
		return 1
	fi
	rm -f "$SCR/zeroed.img"
	return 0
}

total=0
matched=0
for case in $WORKLOADS; do
	total=$((total + 1))
	tries=1
	until harness "$case"; do
		[ $tries -lt 3 ] || hard_error "$case: $why (image made $tries times)"
		echo "retry: $case: $why; making the image again"
		tries=$((tries + 1))
		make_dirty "$case"
	done
	dirty="$SCR/imgs/$case.img"
	before=$(wc -l < "$MISMATCHES")
	# the harness itself: on the replayed (clean) copy our views agree with
	# the kernel's, so a difference on the dirty image is the replay's
	our_view "$kernel" "$SCR/o"
	compare_views "replayed copy" "$SCR/k" "$SCR/o"
	counters_check "$dirty" "$kernel" "$case"
	rm -f "$kernel"

	our_view "$dirty" "$SCR/o"
	compare_views "dirty image" "$SCR/k" "$SCR/o"
	cat_check "$dirty" "$SCR/k"
	repair_check "$dirty" "$SCR/k"
	log_only_check "$dirty" "$case"
	timeline_check "$dirty" "$case" "$SCR/k"

	if [ "$(wc -l < "$MISMATCHES")" -eq "$before" ]; then
		matched=$((matched + 1))
		echo "ok: $case: $(tr -cd '\000' < "$SCR/k.paths" | wc -c) paths, $(wc -l < "$SCR/k.sums") files"
	fi
	rm -f "$dirty"
done

cat "$MISMATCHES"
echo "workloads matched: $matched of $total"
[ "$matched" -eq "$total" ] || exit 1
exit 0
