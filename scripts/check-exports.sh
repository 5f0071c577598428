#!/bin/sh
# check-exports.sh SHARED_OBJECT [VERSION_SCRIPT | SYMBOL...]
#
# Fails unless the dynamic symbols SHARED_OBJECT defines are exactly those named:
# the globals of a version script (libpinvault.map), or the symbols given. Also
# fails when it needs the Swift runtime or anything from the toolchain (ldd).
set -eu
object=$1
shift
if [ $# -eq 1 ] && [ -f "$1" ]; then
	expected=$(sed -n 's/^ *\([a-zA-Z_][a-zA-Z0-9_]*\);$/\1/p' "$1" | sort)
else
	expected=$(printf '%s\n' "$@" | sort)
fi
actual=$(nm -D --defined-only "$object" | awk '$2 ~ /^[TDBRVW]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u)
if [ "$actual" != "$expected" ]; then
	echo "check-exports: $object exports other symbols than expected:" >&2
	diff -u /dev/fd/3 /dev/fd/4 3<<E 4<<A >&2 || true
$expected
E
$actual
A
	exit 1
fi
if ldd "$object" | grep -q 'libswift\|libFoundation\|libdispatch\|/opt/swift\|not found'; then
	echo "check-exports: $object needs the Swift runtime or a missing library:" >&2
	ldd "$object" >&2
	exit 1
fi
echo "check-exports: $object exports exactly $(echo "$expected" | wc -l) symbols; ldd: $(ldd "$object" | awk '{print $1}' | tr '\n' ' ')"
