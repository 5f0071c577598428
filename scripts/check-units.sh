#!/bin/sh
# check-units.sh — what `make check-units` and the deployment tests run on pinvaultd's
# units: `systemd-analyze verify`, then `systemd-analyze security --offline=yes`,
# failing when the overall exposure of pinvaultd.service is above MAX_EXPOSURE (1.0).
#
#   scripts/check-units.sh UNIT_DIR [ROOT]
#
# UNIT_DIR holds pinvaultd.service and pinvaultd.socket. The service's ExecStart= and
# the socket's ExecStartPre= (pinvault-seal-pepper --check) are looked for under ROOT (a
# DESTDIR; default /). When one is not there (the repository's units, nothing
# installed), an executable stand-in takes its place, since verify only checks that the
# command is executable. Exits 77 when systemd-analyze is absent.
set -eu

units=${1:?usage: check-units.sh UNIT_DIR [ROOT]}
root=${2:-}
max=${MAX_EXPOSURE:-1.0}

if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "check-units: systemd-analyze not found; skipped (apt-get install systemd)" >&2
	exit 77
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

binary=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$units/pinvaultd.service")
if [ -x "$root$binary" ]; then
	executable="$root$binary"
else
	executable="$scratch/pinvaultd"
	printf '#!/bin/sh\nexit 0\n' >"$executable"
	chmod 755 "$executable"
	echo "check-units: $root$binary absent; verifying with a stand-in executable"
fi
sed "s|^ExecStart=$binary|ExecStart=$executable|" "$units/pinvaultd.service" >"$scratch/pinvaultd.service"
# The socket's ExecStartPre (pinvault-seal-pepper --check) likewise.
check=$(sed -n 's/^ExecStartPre=\([^ ]*\).*/\1/p' "$units/pinvaultd.socket")
if [ -n "$check" ] && [ ! -x "$root$check" ]; then
	printf '#!/bin/sh\nexit 0\n' >"$scratch/pinvault-seal-pepper"
	chmod 755 "$scratch/pinvault-seal-pepper"
	sed "s|^ExecStartPre=$check|ExecStartPre=$scratch/pinvault-seal-pepper|" "$units/pinvaultd.socket" >"$scratch/pinvaultd.socket"
elif [ -n "$check" ]; then
	sed "s|^ExecStartPre=$check|ExecStartPre=$root$check|" "$units/pinvaultd.socket" >"$scratch/pinvaultd.socket"
else
	cp "$units/pinvaultd.socket" "$scratch/pinvaultd.socket"
fi

# verify prints problems on stderr and may still exit 0 for some: both count.
if ! systemd-analyze verify --man=no "$scratch/pinvaultd.service" "$scratch/pinvaultd.socket" 2>"$scratch/verify.log" \
	|| [ -s "$scratch/verify.log" ]; then
	cat "$scratch/verify.log" >&2
	echo "check-units: systemd-analyze verify failed" >&2
	exit 1
fi
echo "check-units: systemd-analyze verify: ok"

systemd-analyze security --offline=yes --threshold=10 "$scratch/pinvaultd.service" >"$scratch/security.log" 2>&1 || {
	cat "$scratch/security.log" >&2
	echo "check-units: systemd-analyze security failed" >&2
	exit 1
}
exposure=$(sed -n 's/.*Overall exposure level for pinvaultd\.service: \([0-9][0-9.]*\).*/\1/p' "$scratch/security.log")
if [ -z "$exposure" ]; then
	cat "$scratch/security.log" >&2
	echo "check-units: no overall exposure level in the output" >&2
	exit 1
fi
grep '✗' "$scratch/security.log" || true
echo "check-units: overall exposure $exposure (at most $max)"
awk -v e="$exposure" -v m="$max" 'BEGIN { exit !(e <= m) }' || {
	echo "check-units: exposure $exposure is above $max" >&2
	exit 1
}
