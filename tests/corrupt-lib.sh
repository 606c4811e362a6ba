# tests/corrupt-lib.sh - corrupt a scratch image with xfs_db (sourced, not run).
#
# Shared by tests/golden/check_corrupt.sh and tests/repair/make-case.sh.
# A corruption is a ';'-separated list of `xfs_db -x` commands, written as
# the case tables write them:
#
#   - A token @HDR AG FIELD@ is replaced by that field's value in the
#     uncorrupted image (e.g. @agf 3 flfirst@); HDR AG may also be
#     `path /some/path`, and `+ N` or `- N` after FIELD adds or subtracts
#     (e.g. @path /dirs/short core.size - 14@).  See expand.
#   - The word `zero` (alone, or `zero OFFSET LENGTH`) is not an xfs_db
#     command: the commands before it run, then the object at the top of
#     xfs_db's stack (`stack` says where it lies: a superblock sector, a
#     header, a btree or directory block, one inode) is overwritten with
#     zeroes by dd, whole or LENGTH bytes from OFFSET inside it.  Commands
#     after it start again from a fresh xfs_db (navigation starts anew).
#   - `wipe OFFSET LENGTH` is not an xfs_db command either: LENGTH bytes
#     from byte OFFSET of the image are overwritten with zeroes (the start of
#     a disk a partition tool or a misdirected dd destroyed), whatever
#     structures lie there; commands after it start from a fresh xfs_db.
#
# Needs XFS_DB set.  Functions keep their state in _-prefixed variables.

# field_of IMG "HDR AG FIELD [+|- N]": raw value of one field (of a header,
# or of an inode with HDR AG = "path /a/path"), optionally plus or minus N
field_of() {
	set -- "$1" $2
	_v=$("$XFS_DB" -r -c "$2 $3" -c "p $4" "$1" |
		awk -v f="$4 = " 'index($0, f) == 1 { print substr($0, length(f) + 1) }')
	case "${5:-}" in
	+ | -) [ -n "$_v" ] && _v=$((_v $5 $6)) ;;
	esac
	printf '%s\n' "$_v"
}

# expand IMG CMDS: replace each @HDR AG FIELD@ by its value in IMG
expand() {
	_c=$2
	while :; do
		case "$_c" in *@*@*) ;; *) break ;; esac
		_tok=${_c#*@}
		_tok=${_tok%%@*}
		_v=$(field_of "$1" "$_tok")
		[ -n "$_v" ] || { echo "cannot read $_tok" >&2; return 1; }
		# literal splice, not sed: tokens hold '[', ']' and '/'
		_c="${_c%%@*}$_v${_c#*@*@}"
	done
	printf '%s\n' "$_c"
}

# db_run IMG ARGS: xfs_db -x with ARGS, a string of -c '...' options
db_run() {
	eval "\"\$XFS_DB\" -x $2 \"\$1\""
}

# zero_top IMG ARGS [OFFSET LENGTH]: run the commands in ARGS, then zero the
# object at the top of the stack (or LENGTH bytes from OFFSET inside it).
zero_top() {
	_st=$(db_run "$1" "$2 -c stack")
	printf '%s\n' "$_st"
	# "byte offset 315420672, length 4096": the last one is the top
	_where=$(printf '%s\n' "$_st" |
		sed -n 's/^[ 	]*byte offset \([0-9][0-9]*\), length \([0-9][0-9]*\).*/\1 \2/p' | tail -n 1)
	if [ -z "$_where" ]; then
		echo "zero: cannot locate the object at the top of the stack"
		return 1
	fi
	set -- "$1" "$2" "${3:-}" "${4:-}" $_where
	_off=$5 _len=$6
	if [ -n "$3" ]; then
		if [ $(($3 + $4)) -gt "$_len" ]; then
			echo "zero: range $3+$4 is outside the object (length $_len)"
			return 1
		fi
		_off=$((_off + $3)) _len=$4
	fi
	dd if=/dev/zero of="$1" bs=1 seek="$_off" count="$_len" conv=notrunc 2> /dev/null ||
		{ echo "zero: dd cannot write $_len bytes at $_off"; return 1; }
	echo "zeroed $_len bytes at byte $_off"
}

# wipe IMG OFFSET LENGTH: zero LENGTH bytes from byte OFFSET of IMG
wipe() {
	case "$2$3" in *[!0-9]*) echo "wipe: OFFSET and LENGTH are byte counts"; return 1 ;; esac
	_bs=512
	[ $(($2 % 1048576)) -eq 0 ] && [ $(($3 % 1048576)) -eq 0 ] && _bs=1048576
	[ $(($2 % _bs)) -eq 0 ] && [ $(($3 % _bs)) -eq 0 ] || _bs=1
	dd if=/dev/zero of="$1" bs=$_bs seek=$(($2 / _bs)) count=$(($3 / _bs)) conv=notrunc 2> /dev/null ||
		{ echo "wipe: dd cannot write $3 bytes at $2"; return 1; }
	echo "zeroed $3 bytes at byte $2"
}

# corrupt IMG CMDS: run the ';'-separated xfs_db commands in expert mode,
# with `zero` as described above.  Prints what xfs_db says: xfs_db exits 0
# even when a command fails, so callers grep the output (db_failed).
corrupt() {
	_img=$1
	_old=$IFS
	IFS=';'
	# shellcheck disable=SC2086
	set -- $2
	IFS=$_old
	_args=""
	_rc=0
	for _c in "$@"; do
		case "$_c" in
		zero | zero\ *)
			# shellcheck disable=SC2086
			zero_top "$_img" "$_args" ${_c#zero} || _rc=1
			_args=""
			;;
		wipe\ *)
			[ -z "$_args" ] || db_run "$_img" "$_args"
			# shellcheck disable=SC2086
			wipe "$_img" ${_c#wipe} || _rc=1
			_args=""
			;;
		*)
			_args="$_args -c '$_c'"
			;;
		esac
	done
	[ -z "$_args" ] || db_run "$_img" "$_args"
	return $_rc
}

# db_failed LOG: true when xfs_db's output in LOG says a command failed
# (blocktrash's own lines name the block type, "unknown" for -z, and are
# not errors)
db_failed() {
	grep -v '^blocktrash: [0-9]' "$1" |
		grep -qE 'not found|no current|No such|out of range|parsing error|Usage|unknown|invalid|bad input|cannot|no matching'
}
