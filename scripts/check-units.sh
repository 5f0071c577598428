#!/bin/sh
# check-units.sh — what `make check-units` and the deployment tests run on pinvaultd's
# units: `systemd-analyze verify`, then `systemd-analyze security --offline=yes`,
# failing when the overall exposure of pinvaultd.service is above MAX_EXPOSURE (1.0);
# the same for pinvault-uhid.service against MAX_UHID_EXPOSURE (1.5: it must run as
# root with /dev/uhid and CAP_SETUID/CAP_SETGID/CAP_KILL, which security scores
# about 1.0 by themselves); and `systemd-analyze verify` of the per-user agent's units when
# USER_UNIT_DIR is given.
#
#   scripts/check-units.sh UNIT_DIR [ROOT [USER_UNIT_DIR]]
#
# UNIT_DIR holds pinvaultd.service, pinvaultd.socket and pinvault-uhid.service, USER_UNIT_DIR
# pinvault-agent.service and pinvault-agent.socket. Each command a unit runs (the
# services' ExecStart=, the socket's ExecStartPre= pinvault-seal-pepper --check) is
# looked for under ROOT (a DESTDIR; default /). When it is not there (the repository's
# units, nothing installed), an executable stand-in takes its place, since verify only
# checks that the command is executable. Exits 77 when systemd-analyze is absent.
set -eu

units=${1:?usage: check-units.sh UNIT_DIR [ROOT]}
root=${2:-}
user_units=${3:-}
max=${MAX_EXPOSURE:-1.0}
max_uhid=${MAX_UHID_EXPOSURE:-1.5}

if ! command -v systemd-analyze >/dev/null 2>&1; then
	echo "check-units: systemd-analyze not found; skipped (apt-get install systemd)" >&2
	exit 77
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The unit $2 of directory $1, into the scratch directory, the command of its $3= (if it
# has one) pointing at the installed program or at a stand-in.
stage() {
	program=$(sed -n "s/^$3=\([^ ]*\).*/\1/p" "$1/$2")
	if [ -z "$program" ]; then
		cp "$1/$2" "$scratch/$2"
		return
	fi
	if [ -x "$root$program" ]; then
		executable="$root$program"
	else
		executable="$scratch/$(basename "$program")"
		printf '#!/bin/sh\nexit 0\n' >"$executable"
		chmod 755 "$executable"
		echo "check-units: $root$program absent; verifying $2 with a stand-in executable"
	fi
	sed "s|^$3=$program|$3=$executable|" "$1/$2" >"$scratch/$2"
}

# verify prints problems on stderr and may still exit 0 for some: both count.
verify() {
	if ! systemd-analyze verify --man=no "$@" 2>"$scratch/verify.log" || [ -s "$scratch/verify.log" ]; then
		cat "$scratch/verify.log" >&2
		echo "check-units: systemd-analyze verify failed" >&2
		exit 1
	fi
}

stage "$units" pinvaultd.service ExecStart
stage "$units" pinvaultd.socket ExecStartPre
stage "$units" pinvault-uhid.service ExecStart
verify "$scratch/pinvaultd.service" "$scratch/pinvaultd.socket" "$scratch/pinvault-uhid.service"
echo "check-units: systemd-analyze verify: ok"

if [ -n "$user_units" ]; then
	stage "$user_units" pinvault-agent.service ExecStart
	stage "$user_units" pinvault-agent.socket ExecStartPre
	verify "$scratch/pinvault-agent.service" "$scratch/pinvault-agent.socket"
	echo "check-units: systemd-analyze verify (user units): ok"
fi

# The overall exposure of service $1 (systemd-analyze security), at most $2.
exposure() {
	systemd-analyze security --offline=yes --threshold=100 "$scratch/$1" >"$scratch/security.log" 2>&1 || {
		cat "$scratch/security.log" >&2
		echo "check-units: systemd-analyze security failed" >&2
		exit 1
	}
	level=$(sed -n "s/.*Overall exposure level for $(echo "$1" | sed 's/\./\\./g'): \([0-9][0-9.]*\).*/\1/p" "$scratch/security.log")
	if [ -z "$level" ]; then
		cat "$scratch/security.log" >&2
		echo "check-units: no overall exposure level in the output" >&2
		exit 1
	fi
	grep '✗' "$scratch/security.log" || true
	echo "check-units: $1: overall exposure $level (at most $2)"
	awk -v e="$level" -v m="$2" 'BEGIN { exit !(e <= m) }' || {
		echo "check-units: $1: exposure $level is above $2" >&2
		exit 1
	}
}

exposure pinvaultd.service "$max"
exposure pinvault-uhid.service "$max_uhid"
