# tests/oracle/normalize.awk - turn a field dump into canonical lines.
#
# Reads the output of `xfs_db -c p` (or of `xfsrecon show`, which prints the
# same field names) and writes one line per field:
#
#     KIND <TAB> NAME <TAB> CANONICAL-VALUE <TAB> RAW-VALUE
#
# KIND is "s" for a scalar (a name without '['), "a" for an array element
# or a field inside one (a name with '['), "e" for a field printed with an
# empty value (xfs_db does that for fields the format lacks, e.g. rmaproot on
# a filesystem without rmapbt).
#
# Values are made comparable whatever base they were printed in:
#   - annotations are dropped: "0x1234 (correct)", "(bad)", "(unchecked)",
#     "1 (local)";
#   - numbers (decimal, 0x-hex, octal with a leading 0 as xfs_db prints
#     modes) become "x" + lowercase hex without leading zeros; 64-bit values
#     are converted with string arithmetic, not floating point;
#   - negative numbers, and 32- or 64-bit values within 2^16 of the top
#     (xfs_db prints rmap owners as -3, a dump may print 0xff..fd), become
#     "neg:N"; all ones (-1, 0xffffffff, 0xffffffffffffffff) and xfs_db's
#     "null" become "null";
#   - ctime-style dates ("Thu Jan  1 00:00:00 1970", as xfs_db prints inode
#     timestamps; run it with TZ=UTC) become seconds since the epoch;
#   - uuids are lowercased; quoted strings lose their quotes and the \000
#     padding xfs_db prints.
#
# Arrays: xfs_db prints "name[lo-hi] = i:v i:v ..." for arrays of numbers and
# "name[lo-hi] = [f1,f2] " followed by lines "i:[a,b] " for arrays of
# records.  Both, and a dump printing "name[i] = v" or
# "name[i] = [f1,f2] a,b" one element a line, give lines "name[i]" with the
# comma-joined canonical values, plus "name[i].f1" ... when field names are
# known.  A dump printing "name[i] = f1 a f2 b" (names inline) gives only
# the "name[i].f1" lines.  For every declared range "name[lo-hi]" a line
#     r <TAB> name <TAB> lo <TAB> hi
# is written too, so a missing element can be told from an unknown array.

function trim(s) {
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	return s
}

# hexdigit value of one character
function hval(c) {
	return index("0123456789abcdef", c) - 1
}

# decimal string (no sign) -> hex string without leading zeros
function dec2hex(s,    out, rem, i, d, q, n) {
	sub(/^0+/, "", s)
	if (s == "")
		return "0"
	out = ""
	while (s != "") {
		rem = 0
		q = ""
		n = length(s)
		for (i = 1; i <= n; i++) {
			d = rem * 10 + substr(s, i, 1)
			q = q int(d / 16)
			rem = d % 16
		}
		out = substr("0123456789abcdef", rem + 1, 1) out
		sub(/^0+/, "", q)
		s = q
	}
	return out
}

# octal string -> hex string (modes: small enough for awk arithmetic)
function oct2hex(s,    v, i) {
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 8 + substr(s, i, 1)
	return dec2hex(sprintf("%.0f", v))
}

# hex string (lowercase, no prefix) -> canonical number
function canonhex(h,    n, i, c, comp, v) {
	sub(/^0+/, "", h)
	if (h == "")
		h = "0"
	n = length(h)
	if ((n == 8 || n == 16) && substr(h, 1, 4) == "ffff") {
		# two's complement: -(~h + 1); the complement is below 2^16
		v = 0
		for (i = 1; i <= n; i++) {
			c = hval(substr(h, i, 1))
			v = v * 16 + (15 - c)
		}
		v = v + 1
		if (v == 1)
			return "null"
		return "neg:" sprintf("%.0f", v)
	}
	return "x" h
}

# ctime-style date -> seconds since the epoch (UTC)
function date2epoch(mon, day, hms, year,    m, y, era, yoe, doy, doe, days, t) {
	m = (index("JanFebMarAprMayJunJulAugSepOctNovDec", mon) + 2) / 3
	y = year - (m <= 2)
	era = (y >= 0 ? y : y - 399)
	era = int(era / 400)
	yoe = y - era * 400
	doy = int((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + day - 1
	doe = yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy
	days = era * 146097 + doe - 719468
	split(hms, t, ":")
	return days * 86400 + t[1] * 3600 + t[2] * 60 + t[3]
}

function canon(v,    w, d, n) {
	v = trim(v)
	# annotations xfs_db appends to numbers
	while (v ~ /^[-0-9x]/ && match(v, / \([a-z ,]+\)$/))
		v = trim(substr(v, 1, RSTART - 1))
	if (v == "")
		return ""
	if (v == "null")
		return "null"
	if (v ~ /^0x[0-9a-fA-F]+$/)
		return canonhex(tolower(substr(v, 3)))
	if (v ~ /^0[0-7]+$/)
		return canonhex(oct2hex(substr(v, 2)))
	if (v ~ /^[0-9]+$/)
		return canonhex(dec2hex(v))
	if (v ~ /^-[0-9]+$/) {
		d = substr(v, 2)
		sub(/^0+/, "", d)
		if (d == "")
			return "x0"
		if (d == "1")
			return "null"
		return "neg:" d
	}
	if (v ~ /^[0-9a-fA-F]+(-[0-9a-fA-F]+)+$/ && length(v) == 36)
		return "uuid:" tolower(v)
	if (v ~ /^[A-Z][a-z][a-z] [A-Z][a-z][a-z] +[0-9]+ [0-9]+:[0-9]+:[0-9]+ -?[0-9]+$/) {
		n = split(v, w, / +/)
		d = date2epoch(w[2], w[3], w[4], w[5])
		if (d < 0)
			return "neg:" sprintf("%.0f", -d)
		return canonhex(dec2hex(sprintf("%.0f", d)))
	}
	if (v ~ /^".*"$/) {
		v = substr(v, 2, length(v) - 2)
		gsub(/\\000/, "", v)
		return "str:" v
	}
	gsub(/[ \t]+/, " ", v)
	return "txt:" v
}

# canonical form of one record "a,b,c" (brackets and a field-name header
# already removed); fills cvals[1..n]
function canonlist(s, cvals,    n, i, parts) {
	gsub(/[\[\]]/, "", s)
	s = trim(s)
	n = split(s, parts, /[ ,]+/)
	for (i = 1; i <= n; i++)
		cvals[i] = canon(parts[i])
	return n
}

# "name value name value ..." (a record printed with its field names
# inline): fills fnames[1..n/2] and fvals[1..n/2] and returns n/2, or 0
function named_list(s, fnames, fvals,    n, i, parts) {
	gsub(/[\[\]]/, "", s)
	n = split(trim(s), parts, /[ ,=]+/)
	if (n < 2 || n % 2)
		return 0
	for (i = 1; i <= n; i += 2) {
		if (parts[i] !~ /^[a-z_][a-z_0-9]*$/ || parts[i] == "null")
			return 0
		if (parts[i + 1] ~ /^[a-z_][a-z_0-9]*$/ && parts[i + 1] != "null")
			return 0
	}
	for (i = 1; i <= n; i += 2) {
		fnames[(i + 1) / 2] = parts[i]
		fvals[(i + 1) / 2] = canon(parts[i + 1])
	}
	return n / 2
}

function emit_elem(base, idx, raw,    n, i, cvals, out, fnames) {
	n = named_list(raw, fnames, cvals)
	if (n > 0) {
		# named fields: compared one by one, never as a whole list, so a
		# dump may show more fields than xfs_db does
		for (i = 1; i <= n; i++)
			print "a\t" base "[" idx "]." fnames[i] "\t" cvals[i] "\t" trim(raw)
		return
	}
	n = canonlist(raw, cvals)
	out = ""
	for (i = 1; i <= n; i++)
		out = out (i > 1 ? "," : "") cvals[i]
	print "a\t" base "[" idx "]\t" out "\t" trim(raw)
	if (nfields > 0 && n == nfields)
		for (i = 1; i <= n; i++)
			print "a\t" base "[" idx "]." fields[i] "\t" cvals[i] "\t" trim(raw)
}

# "i:v i:[a,b] ..." tokens of an array
function emit_tokens(s,    n, i, tok, c) {
	n = split(trim(s), tok, /[ \t]+/)
	for (i = 1; i <= n; i++) {
		c = index(tok[i], ":")
		if (c <= 1)
			continue
		emit_elem(cur_base, substr(tok[i], 1, c - 1), substr(tok[i], c + 1))
	}
}

BEGIN {
	cur_base = ""
	nfields = 0
}

# continuation of a record array: "12:[45,1] "
cur_base != "" && /^[0-9]+:/ {
	emit_tokens($0)
	next
}

{
	eq = index($0, " = ")
	if (eq == 0) {
		cur_base = ""
		next
	}
	name = substr($0, 1, eq - 1)
	val = substr($0, eq + 3)
	cur_base = ""
	nfields = 0

	if (name !~ /\[/) {
		c = canon(val)
		print (c == "" ? "e" : "s") "\t" name "\t" c "\t" trim(val)
		next
	}

	# an array, or a field inside an array element
	if (match(name, /\[[0-9]+(-[0-9]+)?\]$/)) {
		base = substr(name, 1, RSTART - 1)
		rng = substr(name, RSTART + 1, RLENGTH - 2)
		if (index(rng, "-")) {
			split(rng, lohi, "-")
			print "r\t" base "\t" lohi[1] "\t" lohi[2]
		} else {
			lohi[1] = rng
			lohi[2] = rng
		}
		cur_base = base
		v = trim(val)
		if (v ~ /^\[[a-z_][a-z_0-9]*(,[a-z_][a-z_0-9]*)*\]/) {
			# record header: field names, maybe followed by one value
			match(v, /^\[[a-z_][a-z_0-9]*(,[a-z_][a-z_0-9]*)*\]/)
			nfields = split(substr(v, 2, RLENGTH - 2), fields, ",")
			v = trim(substr(v, RLENGTH + 1))
			if (v != "" && lohi[1] == lohi[2] && v !~ /^[0-9]+:/)
				emit_elem(base, lohi[1], v)
			else if (v != "")
				emit_tokens(v)
		} else if (v != "" && lohi[1] == lohi[2] && v !~ /^[0-9]+:/) {
			emit_elem(base, lohi[1], v)
		} else if (v != "") {
			emit_tokens(v)
		}
		next
	}

	c = canon(val)
	print "a\t" name "\t" c "\t" trim(val)
}
