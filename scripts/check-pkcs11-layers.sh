#!/bin/sh
# check-pkcs11-layers.sh [DIR]: fails unless the PKCS#11 module's files include one
# way, each only its own layer's header and those below (docs/ARCHITECTURE.md, "The
# C door"). Layer of a file: its header's, or 5 for the entry points.
set -eu
dir=${1:-pkcs11}
layer() {
	case $(basename "$1" | sed 's/\.[ch]$//') in
	pv_pkcs11) echo 0 ;;
	pv_keys) echo 1 ;;
	pv_core) echo 2 ;;
	pv_slots) echo 3 ;;
	pv_sessions) echo 4 ;;
	*) echo 5 ;;
	esac
}
status=0
for file in "$dir"/*.c "$dir"/*.h; do
	own=$(layer "$file")
	for included in $(sed -n 's/^#include "\([^"]*\)"$/\1/p' "$file"); do
		theirs=$(layer "$included")
		if [ "$theirs" -gt "$own" ] || { [ "$theirs" -eq 5 ] && [ "$own" -eq 5 ]; }; then
			echo "check-pkcs11-layers: $file (layer $own) includes $included (layer $theirs)" >&2
			status=1
		fi
	done
done
[ $status -eq 0 ] && echo "check-pkcs11-layers: every include of $dir points down"
exit $status
