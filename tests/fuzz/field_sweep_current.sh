#!/bin/sh
# tests/fuzz/field_sweep_current.sh - a fixed sample of the field sweep on
# filesystems of today (corpus/current/v6-parent: mkfs.xfs 6.13's defaults
# with parent pointers; corpus/current/v6-metadir: with a metadata directory
# tree), judged by xfsprogs 6.13 (tests/tools/
# xfsprogs-current.sh): field_sweep_sample.sh run on the cases of
# tests/fuzz/field-sweep-sample-current.tsv (how they were drawn is at its
# top), with no known failure allowed.  Skipped where xfsprogs 6.13 cannot
# be had.
. "$top_srcdir/tests/lib.sh"

cur=$(sh "$top_srcdir/tests/tools/xfsprogs-current.sh" 2> "$TMPD/cur.err") &&
	[ -x "$cur/xfs_db" ] || skip "xfsprogs 6.13 cannot be had: $(tail -1 "$TMPD/cur.err")"
: > "$TMPD/none"
FIELD_SWEEP_CASES=$top_srcdir/tests/fuzz/field-sweep-sample-current.tsv \
FIELD_SWEEP_KNOWN_LIST=$TMPD/none XFS_DB=$cur/xfs_db XFS_REPAIR=$cur/xfs_repair \
	sh "$top_srcdir/tests/fuzz/field_sweep_sample.sh"
