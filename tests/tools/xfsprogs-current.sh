#!/bin/sh
# tests/tools/xfsprogs-current.sh - the xfsprogs of Debian 13 (6.13), built
# from its source package into a cache outside the tree: the oracle of
# today's formats (parent pointers, metadata directories, realtime groups).
#
# usage: sh tests/tools/xfsprogs-current.sh
#   Prints the directory that holds mkfs.xfs, xfs_db, xfs_repair, xfs_io,
#   xfs_mdrestore and xfs_metadump of that version (put it first in PATH:
#   xfs_metadump runs the xfs_db it finds there).  Built on first use (a few
#   minutes on 2 cores), then reused.  Exit 77 when it cannot be had here
#   (no archive reachable, a build dependency missing): tests skip then.
#
# Environment: XFSPROGS_CURRENT_CACHE (default $XDG_CACHE_HOME/xfsrecon, else
# ~/.cache/xfsrecon), XFSPROGS_CURRENT_SUITE (default trixie).
#
# The deb-src entry is made from the Debian archive the machine's own apt
# sources name, in an apt configuration of the cache's own: the system's
# sources and lists are not touched, and no archive is named here.
set -eu

suite=${XFSPROGS_CURRENT_SUITE:-trixie}
cache=${XFSPROGS_CURRENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/xfsrecon}
base="$cache/xfsprogs-$suite"
bin="$base/bin"

say() { echo "xfsprogs-current: $*" >&2; }
cannot() { say "$*"; exit 77; }

if [ -x "$bin/xfs_db" ] && [ -x "$bin/mkfs.xfs" ] && [ -x "$bin/xfs_repair" ]; then
	echo "$bin"
	exit 0
fi
# Two tests may ask at once (make -j): one builds, the other waits for it.
mkdir -p "$cache"
if command -v flock > /dev/null 2>&1; then
	exec 9> "$cache/.xfsprogs-$suite.lock"
	flock 9
	if [ -x "$bin/xfs_db" ] && [ -x "$bin/mkfs.xfs" ] && [ -x "$bin/xfs_repair" ]; then
		echo "$bin"
		exit 0
	fi
fi
command -v apt-get > /dev/null 2>&1 || cannot "no apt-get here"
command -v dpkg-source > /dev/null 2>&1 || cannot "dpkg-source (dpkg-dev) is missing"

# The Debian archive of the machine's sources: deb822 files first, then the
# one-line format.  Security and update suites live elsewhere.
uri=$(cat /etc/apt/sources.list.d/*.sources 2> /dev/null | awk '
	/^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i !~ /-/) s = 1 }
	/^$/ { if (u != "" && s && u ~ /\/debian\/?$/) { print u; exit } u = ""; s = 0 }
	END { if (u != "" && s && u ~ /\/debian\/?$/) print u }' | head -1)
if [ -z "$uri" ]; then
	uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2> /dev/null |
		awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }
		     $1 == "deb" && $2 ~ /^\[/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }')
fi
[ -n "$uri" ] || cannot "no Debian archive in this machine's apt sources"

apt="$base/apt"
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$base/src"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
echo "deb-src [signed-by=$keyring] $uri $suite main" > "$apt/sources.list"
aptopt="-o Dir::Etc::SourceList=$apt/sources.list -o Dir::Etc::SourceParts=/nonexistent
	-o Dir::State::Lists=$apt/lists -o Dir::Cache::archives=$apt/archives
	-o Dir::State::status=/var/lib/dpkg/status -o APT::Sandbox::User=root"
say "fetching the $suite source of xfsprogs from $uri"
# shellcheck disable=SC2086
apt-get -q $aptopt update > "$base/apt.log" 2>&1 || cannot "apt-get update failed (see $base/apt.log)"
# shellcheck disable=SC2086
(cd "$base/src" && apt-get -q $aptopt source xfsprogs) >> "$base/apt.log" 2>&1 ||
	cannot "apt-get source xfsprogs failed (see $base/apt.log)"
src=$(find "$base/src" -mindepth 1 -maxdepth 1 -type d -name 'xfsprogs-*' | sort | tail -1)
[ -n "$src" ] || cannot "no source tree unpacked"
say "building $(basename "$src") (its log: $base/build.log)"
(
	cd "$src"
	[ -x configure ] || make configure
	./configure -q --enable-scrub=no --enable-gettext=no --enable-editline=no \
		--enable-lto=no
	make -j"$(nproc 2> /dev/null || echo 2)"
) > "$base/build.log" 2>&1 || cannot "the build failed (see $base/build.log)"
mkdir -p "$bin.tmp"
for t in mkfs/mkfs.xfs db/xfs_db repair/xfs_repair io/xfs_io mdrestore/xfs_mdrestore; do
	cp "$src/$t" "$bin.tmp/" || cannot "the build made no $t"
done
sed 's|^\(xfs_db\)|"$(dirname "$0")"/xfs_db|' "$src/db/xfs_metadump.sh" > "$bin.tmp/xfs_metadump"
chmod +x "$bin.tmp/xfs_metadump"
rm -rf "$bin"
mv "$bin.tmp" "$bin"
say "$("$bin/xfs_db" -V)"
echo "$bin"
