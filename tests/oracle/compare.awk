# tests/oracle/compare.awk - compare two normalized field dumps.
#
#     awk -f compare.awk -v optional=REGEX XFSDB.norm OURS.norm
#
# Both files come from normalize.awk.  The first is xfs_db's view (the
# oracle), the second is xfsrecon's.  Prints one line per disagreement and
# exits 1 if there is any:
#   - every scalar xfs_db prints must be in ours with the same canonical
#     value, unless its name matches the `optional` regex or xfs_db marks
#     the value "(unchecked)" (the CRC of a V4 structure, which has none):
#     then it is compared only if ours prints it;
#   - an array element ours prints is compared with xfs_db's; an element
#     xfs_db leaves out of a range it declared (it omits null AGI unlinked
#     buckets) counts as null; elements of arrays xfs_db does not print and
#     fields xfs_db does not know are ignored;
#   - a field xfs_db prints with an empty value (absent from this format) is
#     not compared;
#   - with -v strict=1, every array element xfs_db prints must be in ours
#     (with -v nullok=1 too, except elements xfs_db prints as null: empty
#     AGFL slots, which show leaves out)
#     too (unless its name matches `optional`).

BEGIN {
	FS = "\t"
	bad = 0
	nx = 0
}

FNR == NR {
	if ($1 == "s") {
		xorder[++nx] = $2
		xs[$2] = $3
		xraw[$2] = $4
	} else if ($1 == "a") {
		xa[$2] = $3
		xraw[$2] = $4
	} else if ($1 == "r") {
		rlo[$2] = $3 + 0
		rhi[$2] = $4 + 0
	}
	next
}

$1 == "s" || $1 == "a" {
	if (!($2 in ours)) {
		ours[$2] = $3
		oraw[$2] = $4
	}
}

END {
	for (i = 1; i <= nx; i++) {
		n = xorder[i]
		if (!(n in ours)) {
			if (optional != "" && n ~ optional)
				continue
			if (xraw[n] ~ /\(unchecked\)$/)
				continue
			printf "  missing  %s (xfs_db: %s)\n", n, xraw[n]
			bad++
		} else if (ours[n] != xs[n]) {
			printf "  differs  %s: xfs_db %s [%s], xfsrecon %s [%s]\n", n, xraw[n], xs[n], oraw[n], ours[n]
			bad++
		}
	}
	# a record xfs_db prints as a list and field by field is compared by fields
	for (n in xa)
		if (match(n, /\]\./))
			fielded[substr(n, 1, RSTART)] = 1
	if (strict)
		for (n in xa)
			if (!(n in ours) && !(n in fielded) && !(optional != "" && n ~ optional) &&
			    !(nullok && xa[n] == "null")) {
				printf "  missing  %s (xfs_db: %s)\n", n, xraw[n]
				bad++
			}
	for (n in ours) {
		if (n !~ /\[/)
			continue
		if (n in xa) {
			if (ours[n] != xa[n]) {
				printf "  differs  %s: xfs_db %s [%s], xfsrecon %s [%s]\n", n, xraw[n], xa[n], oraw[n], ours[n]
				bad++
			}
			continue
		}
		if (!match(n, /\[[0-9]+\]$/))
			continue
		base = substr(n, 1, RSTART - 1)
		idx = substr(n, RSTART + 1, RLENGTH - 2) + 0
		if ((base in rlo) && idx >= rlo[base] && idx <= rhi[base] && ours[n] != "null") {
			printf "  differs  %s: xfs_db (omitted: null), xfsrecon %s [%s]\n", n, oraw[n], ours[n]
			bad++
		}
	}
	exit bad > 0
}
