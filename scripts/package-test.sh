#!/usr/bin/env bash
# package-test.sh — what `make package-test` runs: the one Debian package, built here,
# proven on a clean Debian 12 (bookworm) and a clean Debian 13 (trixie), not on the
# machine that built it.
#
#   scripts/package-test.sh [SUITE...]   (as root, from the repository; default: bookworm trixie)
#
# 1. `make deb` (dist/pinvault_V_ARCH.deb), and the same build stamped V+pkgtest1 in
#    .build-deb/upgrade/ (the upgrade): built once, installed into every root.
# 2. For each suite, a minimal root: mmdebstrap --variant=apt, made once and cached as
#    .build-deb/SUITE-ARCH.tar (delete it to make a new one); every run unpacks a fresh
#    copy. Its apt sources are this machine's own: each Debian entry of the host's
#    (`apt-get indextargets`: the host's release and its -updates and -security), with
#    the host's codename replaced by the suite's, so that no mirror is named here
#    (PINVAULT_DEBIAN_MIRROR=URI takes one mirror instead). Downloaded packages are kept
#    in .build-deb/apt-archives-SUITE.
# 3. In that root, by chroot in a private mount namespace, with a fresh /run (so no
#    systemd as PID 1) and no Swift toolchain, the same checks on every suite:
#    - the README's install lines (`apt install ./dist/…`, run where a checkout has
#      dist/) install the .deb and what it depends on, resolving the rest from Debian,
#      and the optional PKCS#11 module; pinvault is at most 20 MiB, with its shell
#      completions; the maintainer scripts
#      create the user and the state directory, enable the socket, and say on stderr
#      what they skipped;
#    - the layout: every file of the package under /usr or /etc (Debian's /usr-move,
#      DEP 17), the PAM module in the directory that holds pam_unix.so, the conffiles,
#      and ldd (no /opt/swift path, nothing not found);
#    - pinvaultd runs as the pinvault user (in a network namespace of its own, so it
#      could reach nothing but its loopback), and pinvault registers, authenticates
#      and is refused a wrong PIN as another uid; its ssh-agent socket lists that
#      uid's key once unlocked and not after lock; pinvault agent, run as that uid,
#      lists it locked and stops cleanly on SIGTERM (its user units installed, enabled
#      for nobody); pamtester (from Debian) signs
#      in through pam_pinvault.so with the right PIN and is refused a wrong one;
#      libpinvault0 and pinvault-pkcs11 (installed and upgraded beside it) put a token
#      for that uid's authenticate credential in `p11-kit list-modules`;
#      on a release whose systemd has varlinkctl (254 and later: trixie), varlinkctl
#      reads the daemon's info and interface and calls GetPolicy;
#    - the upgrade goes over it with both conffiles edited: both are kept and in force.
#      For this install systemd's runtime directory is made by hand, so the postinst
#      takes its systemd branch, with a TPM2: a software TPM (swtpm, run here, its socket
#      in the root) that the root's own systemd-creds reaches through
#      PINVAULT_TPM2_DEVICE=swtpm:path=…: pinvault-seal-pepper seals the plaintext pepper
#      pinvaultd made to the TPM2 and the host key; the seal opens (--check), still opens
#      after a firmware and Secure Boot update (PCRs 0, 2, 4, 7 extended), and pinvaultd
#      started with it decrypted (as LoadCredentialEncrypted= would) opens the old
#      record; a recovery key made of it seals the same pepper again on a TPM2 cleared.
#      debhelper's systemctl calls fail there and are ignored, as its snippets do;
#    - remove keeps vault, pepper and configuration; purge keeps a vault with
#      credentials (uncounted without sqlite3, counted with it), deletes it with
#      PINVAULT_PURGE_CREDENTIALS=yes, and deletes an empty one unasked.
# Each failed check prints what it saw and exits 1; the time each root took is printed.
# Not root: exits 77. PACKAGE_TEST_REUSE_DEBS=1 skips the two builds when both files
# exist (to rerun the root part while working on it).
set -euo pipefail

repository=$(cd "$(dirname "$0")/.." && pwd)
work=$repository/.build-deb

fail() {
	echo "package-test: FAILED: $*" >&2
	exit 1
}
step() { echo "package-test: [$((SECONDS))s] $*"; }

# ---------------------------------------------------------------------------------
# Inside: run by the outside part below in a private mount namespace, so every mount
# made here goes away with it.
if [ "${1:-}" = --inside ]; then
	root=$2 package=$3 upgrade=$4 version=$5 upgrade_version=$6 upstream=$7 suite=$8
	socket=/run/pinvault/io.pinvault.Vault
	pin=48291637
	user_uid=1000
	SECONDS=${PACKAGE_TEST_SECONDS:-0}

	mount -t proc proc "$root/proc"
	mount -t tmpfs -o mode=0755 tmpfs "$root/dev"
	for node in null zero full random urandom tty; do
		touch "$root/dev/$node"
		mount --bind "/dev/$node" "$root/dev/$node"
	done
	ln -s /proc/self/fd "$root/dev/fd"
	mount -t tmpfs -o mode=0755 tmpfs "$root/run"
	mkdir -p "$work/apt-archives-$suite/partial"
	mount --bind "$work/apt-archives-$suite" "$root/var/cache/apt/archives"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	cp "$package" "$upgrade" "$root/tmp/"
	# --- libpinvault0 and pinvault-pkcs11, built beside each pinvault .deb: the first
	# build's in /tmp/checkout/dist, as `make deb` leaves them in a checkout, for the
	# README's install lines; the upgrade's installed with it (pam_pinvault.so links
	# libpinvault.so.0).
	c_upgrades=
	mkdir -p "$root/tmp/checkout/dist"
	cp "$package" "$root/tmp/checkout/dist/"
	for name in libpinvault0 pinvault-pkcs11 libpinvault-dev; do
		for pair in "$package:$version" "$upgrade:$upgrade_version"; do
			deb=${pair%:*} deb_version=${pair##*:}
			companion=${deb%/*}/${name}_${deb_version}_${deb##*_}
			[ -f "$companion" ] || companion=${deb%/*}/${name}_${deb_version}_all.deb
			[ -f "$companion" ] || fail "no ${name}_${deb_version} beside $deb"
			if [ "$deb" = "$package" ]; then
				cp "$companion" "$root/tmp/checkout/dist/"
			elif [ "$name" != libpinvault-dev ]; then
				cp "$companion" "$root/tmp/"
				c_upgrades="$c_upgrades /tmp/${companion##*/}"
			fi
		done
	done
	package=/tmp/${package##*/}
	upgrade=/tmp/${upgrade##*/}
	# The README's install lines, as a newcomer types them: `make deb && apt install
	# ./dist/…` and the optional PKCS#11 module's `apt install ./dist/…`.
	readme_installs=$(sed -n -e 's/^make deb && apt install \(\.\/dist\/.*\.deb\)$/\1/p' \
		-e 's/^apt install \(\.\/dist\/pinvault-pkcs11_\*\.deb\) .*$/\1/p' "$repository/README.md")
	[ "$(wc -l <<<"$readme_installs")" = 2 ] || fail "README.md has no 'make deb && apt install ./dist/…' and PKCS#11 install lines: $readme_installs"

	in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
	apt_get() { in_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y "$@" </dev/null; }
	# A program in the root as uid:gid, in a network namespace of its own (loopback only).
	as_uid() {
		local uid=$1 gid=$2
		shift 2
		unshare --net -- chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin LANG=C.UTF-8 PINVAULT_SOCKET="$socket" \
			setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"
	}
	pinvault() { as_uid "$user_uid" "$user_uid" /usr/bin/pinvault "$@"; }

	daemon_pid=
	daemon_log=$root/tmp/pinvaultd.log
	stop_daemon() {
		[ -n "$daemon_pid" ] || return 0
		kill -TERM "$daemon_pid"
		local status=0
		wait "$daemon_pid" || status=$?
		daemon_pid=
		[ "$status" = 0 ] || { cat "$daemon_log" >&2; fail "pinvaultd exited $status after SIGTERM"; }
	}
	tpm_pid=
	trap 'if [ -n "$daemon_pid" ]; then kill -KILL "$daemon_pid" 2>/dev/null || true; fi; stop_tpm' EXIT
	# pinvaultd as the pinvault user on the default configuration and state directory,
	# extra environment as NAME=VALUE arguments.
	start_daemon() {
		local uid gid
		uid=$(in_root id -u pinvault) gid=$(in_root id -g pinvault)
		in_root install -d -o pinvault -g pinvault -m 0755 /run/pinvault
		unshare --net -- chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin LANG=C.UTF-8 "$@" \
			setpriv --reuid="$uid" --regid="$gid" --clear-groups -- \
			/usr/sbin/pinvaultd --socket "$socket" >"$daemon_log" 2>&1 &
		daemon_pid=$!
		local tries=0
		until [ -S "$root$socket" ]; do
			tries=$((tries + 1))
			if [ "$tries" -gt 200 ] || ! kill -0 "$daemon_pid" 2>/dev/null; then
				cat "$daemon_log" >&2
				fail "pinvaultd did not come up on $socket"
			fi
			sleep 0.05
		done
	}
	expect_status() {
		local expected=$1 what=$2
		shift 2
		local status=0 output
		output=$("$@" 2>&1) || status=$?
		[ "$status" = "$expected" ] || fail "$what: exit $status, expected $expected: $output"
		printf '%s\n' "$output"
	}
	installed_version() { in_root dpkg-query -W -f '${db:Status-Abbrev}${Version}' pinvault 2>/dev/null || true; }

	# A software TPM2 for the root: swtpm runs here, its socket at $tpm_device in the
	# root. It has no resource manager, as /dev/tpmrm0 has: the sessions a client leaves
	# loaded (systemd 252's decrypt leaves one) are flushed after each program.
	tpm_state=$(mktemp -d)
	tpm_socket=/tmp/swtpm/tpm.sock
	tpm_device=swtpm:path=$tpm_socket
	start_tpm() {
		rm -rf "$tpm_state/state" "$root/tmp/swtpm"
		mkdir -p "$tpm_state/state" "$root/tmp/swtpm"
		swtpm_setup --tpm2 --tpmstate "$tpm_state/state" --pcr-banks sha256 >"$tpm_state/setup.log" 2>&1 \
			|| { cat "$tpm_state/setup.log" >&2; fail "swtpm_setup"; }
		# --daemon returns once its sockets listen.
		swtpm socket --tpm2 --daemon --flags startup-clear --tpmstate "dir=$tpm_state/state" \
			--server "type=unixio,path=$root$tpm_socket" --ctrl "type=unixio,path=$root$tpm_socket.ctrl" \
			--pid "file=$tpm_state/pid" --log "file=$tpm_state/swtpm.log" || fail "swtpm did not start"
		tpm_pid=$(cat "$tpm_state/pid")
	}
	stop_tpm() {
		[ -n "$tpm_pid" ] || return 0
		kill -TERM "$tpm_pid" 2>/dev/null || true
		while kill -0 "$tpm_pid" 2>/dev/null && [ "$(ps -o stat= -p "$tpm_pid" | cut -c1)" != Z ]; do sleep 0.1; done
		tpm_pid=
	}
	tpm_tool() { TPM2TOOLS_TCTI="swtpm:path=$root$tpm_socket" "$@" >/dev/null 2>&1; }
	flush_tpm() {
		for kind in --transient-object --loaded-session --saved-session; do
			tpm_tool tpm2_flushcontext "$kind" || fail "tpm2_flushcontext $kind"
		done
	}
	# pinvault-seal-pepper in the root, with the TPM2 named; the sessions flushed after.
	seal_pepper_in_root() {
		local status=0
		in_root pinvault-seal-pepper --tpm2-device="$tpm_device" "$@" || status=$?
		flush_tpm
		return "$status"
	}

	# --- a clean root: no toolchain --------------------------------------------------
	[ ! -e "$root/opt/swift" ] || fail "the root has /opt/swift"
	if in_root sh -c 'command -v swift swiftc' >/dev/null; then fail "the root has a Swift toolchain"; fi

	# --- install ---------------------------------------------------------------------
	step "$suite: the README's install lines in a checkout's place (Depends from the root's sources: $(cat "$root"/etc/apt/sources.list "$root"/etc/apt/sources.list.d/*.list 2>/dev/null | grep '^deb ' | cut -d' ' -f2- | paste -sd, -))"
	apt_get update >/dev/null
	: >"$root/tmp/install.log"
	while read -r debs; do
		echo "package-test:     apt install $debs"
		# The shell in the root expands the README's globs, as the reader's does.
		in_root sh -c "cd /tmp/checkout && DEBIAN_FRONTEND=noninteractive apt-get -q -y install $debs" \
			</dev/null >>"$root/tmp/install.log" 2>&1 || { cat "$root/tmp/install.log" >&2; fail "apt install $debs"; }
	done <<<"$readme_installs"
	[ "$(installed_version)" = "ii $version" ] || fail "installed: '$(installed_version)', expected 'ii $version'"
	grep -q "no pepper sealed" "$root/tmp/install.log" || { cat "$root/tmp/install.log" >&2; fail "the postinst did not say it skipped the pepper"; }
	grep -q "enabled for the next boot but not started" "$root/tmp/install.log" || fail "the postinst did not say it skipped starting the socket"
	echo "package-test: the postinst said:"
	grep '^pinvault: ' "$root/tmp/install.log" | sed 's/^/    /'

	step "layout, conffiles, user, state directory, enabled socket"
	for path in /usr/sbin/pinvaultd /usr/bin/pinvault /usr/sbin/pinvault-seal-pepper /usr/sbin/pinvault-uhid; do
		[ -x "$root$path" ] || fail "$path missing"
	done
	for path in /usr/lib/systemd/system/pinvaultd.service /usr/lib/systemd/system/pinvaultd.socket \
		/usr/lib/systemd/system/pinvault-uhid.service /usr/share/man/man8/pinvault-uhid.8.gz \
		/usr/lib/sysusers.d/pinvault.conf /usr/share/varlink/io.pinvault.Vault.varlink \
		/usr/share/doc/pinvault/copyright /usr/share/doc/pinvault/changelog.Debian.gz \
		/usr/share/man/man8/pinvaultd.8.gz /usr/share/man/man1/pinvault.1.gz \
		/usr/share/man/man5/pinvaultd.toml.5.gz /usr/share/man/man8/pinvault-seal-pepper.8.gz \
		/usr/share/man/man8/pam_pinvault.8.gz /usr/share/pam-configs/pinvault \
		/etc/pinvault/pinvaultd.toml /etc/pinvault/deny-list.txt; do
		[ -f "$root$path" ] || fail "$path missing"
	done
	# Every file under /usr, but the conffiles (DEP 17: nothing in /lib, /bin or /sbin,
	# which are links into /usr on both releases).
	outside=$(in_root dpkg -L pinvault | while read -r path; do
		[ -d "$root$path" ] && [ ! -L "$root$path" ] && continue
		case $path in /usr/* | /etc/pinvault/*) ;; *) echo "$path" ;; esac
	done)
	[ -z "$outside" ] || fail "files outside /usr: $outside"
	# The PAM module beside pam_unix.so, in the multiarch security/ directory, by the
	# package's path (/usr/lib/...), which is where libpam looks on both releases.
	pam_module=$(in_root dpkg -L pinvault | grep '/security/pam_pinvault\.so$' || true)
	case $pam_module in /usr/lib/*/security/pam_pinvault.so) ;; *) fail "pam_pinvault.so at '$pam_module'" ;; esac
	pam_unix=$(in_root dpkg -L libpam-modules | grep '/security/pam_unix\.so$')
	[ "$(in_root readlink -f "$(dirname "$pam_module")")" = "$(in_root readlink -f "$(dirname "$pam_unix")")" ] \
		|| fail "$pam_module is not beside $pam_unix"
	echo "package-test: $pam_module beside $pam_unix"
	grep -q '^ListenStream=/run/pinvault/ssh-agent.sock$' "$root/usr/lib/systemd/system/pinvaultd.socket" \
		|| fail "pinvaultd.socket does not list the ssh-agent socket"
	grep -qx 'ExecStart=/usr/sbin/pinvaultd --config /etc/pinvault/pinvaultd.toml --exit-on-idle-seconds 300' "$root/usr/lib/systemd/system/pinvaultd.service" \
		|| fail "ExecStart= does not point at /usr/sbin/pinvaultd"
	conffiles=$(in_root dpkg-query -W -f '${Conffiles}' pinvault)
	for file in /etc/pinvault/pinvaultd.toml /etc/pinvault/deny-list.txt; do
		grep -q " $file " <<<"$conffiles" || fail "$file is not a conffile: $conffiles"
	done
	in_root getent passwd pinvault >/dev/null || fail "no pinvault user"
	[ "$(in_root stat -c '%U %a' /var/lib/pinvault)" = "pinvault 700" ] || fail "/var/lib/pinvault: $(in_root stat -c '%U %a' /var/lib/pinvault)"
	[ -L "$root/etc/systemd/system/sockets.target.wants/pinvaultd.socket" ] || fail "pinvaultd.socket not enabled"
	[ ! -e "$root/etc/systemd/system/multi-user.target.wants/pinvaultd.service" ] || fail "pinvaultd.service enabled on its own"
	[ ! -e "$root/etc/credstore.encrypted/pinvault.pepper" ] || fail "a pepper was sealed without systemd"
	[ "$(in_root pinvaultd --version)" = "$upstream" ] || fail "pinvaultd --version: $(in_root pinvaultd --version), expected $upstream"
	[ "$(in_root pinvault --version)" = "$upstream" ] || fail "pinvault --version: $(in_root pinvault --version), expected $upstream"
	# The command line links no Foundation (its internationalization data alone is tens of MB).
	cli_bytes=$(stat -c %s "$root/usr/bin/pinvault")
	echo "package-test: /usr/bin/pinvault is $((cli_bytes / 1024)) KiB, /usr/sbin/pinvaultd $(($(stat -c %s "$root/usr/sbin/pinvaultd") / 1024)) KiB"
	[ "$cli_bytes" -le $((20 * 1024 * 1024)) ] || fail "/usr/bin/pinvault is $cli_bytes bytes, more than 20 MiB"
	for path in /usr/share/bash-completion/completions/pinvault /usr/share/zsh/vendor-completions/_pinvault \
		/usr/share/fish/vendor_completions.d/pinvault.fish; do
		grep -q 'change-pin' "$root$path" || fail "$path missing or naming no command"
	done

	step "ldd: no /opt/swift, nothing missing"
	for binary in /usr/sbin/pinvaultd /usr/bin/pinvault "$pam_module"; do
		libraries=$(in_root ldd "$binary")
		echo "$libraries" | sed "s|^|    $binary: |"
		if grep -q '/opt/swift\|not found\|libswift\|libFoundation\|libdispatch' <<<"$libraries"; then
			fail "$binary needs the toolchain"
		fi
	done

	# --- use -------------------------------------------------------------------------
	step "pinvaultd as the pinvault user; register and authenticate as uid $user_uid"
	start_daemon
	registered=$(expect_status 0 "register" pinvault register alice@example.org --label package-test --pin-stdin --json <<<"$pin")
	grep -q '"publicKey"' <<<"$registered" || fail "register answered: $registered"
	authenticated=$(expect_status 0 "auth" pinvault auth alice@example.org --challenge-hex 00ff10 --pin-stdin --json <<<"$pin")
	grep -q '"signature"' <<<"$authenticated" || fail "auth answered: $authenticated"
	expect_status 2 "auth with a wrong PIN" pinvault auth alice@example.org --challenge-hex 00 --pin-stdin <<<"59384712" >/dev/null

	step "the ssh-agent socket: uid $user_uid's ssh key after unlock, none after lock, never an app's key"
	expect_status 0 "register an ssh key" pinvault register alice-ssh --purpose ssh --pin-stdin <<<"$pin" >/dev/null
	agent=/run/pinvault/ssh-agent.sock
	[ "$(in_root stat -c '%U %a' "$agent")" = "pinvault 666" ] || fail "$agent: $(in_root stat -c '%U %a' "$agent" 2>&1)"
	# REQUEST_IDENTITIES (11) in perl-base (no ssh-add in the root): "type count".
	identities() {
		as_uid "$user_uid" "$user_uid" perl -MIO::Socket::UNIX -e '
			my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "connect: $!\n";
			print $s pack("NC", 1, 11);
			read($s, my $length, 4) == 4 or die "no reply\n";
			read($s, my $body, unpack("N", $length)) == unpack("N", $length) or die "short reply\n";
			my ($type, $count) = unpack("CN", $body);
			print "$type ", $count // 0, "\n";' "${1:-$agent}"
	}
	[ "$(identities)" = "12 0" ] || fail "the agent before unlock answered: $(identities)"
	for user in alice@example.org alice-ssh; do
		expect_status 0 "unlock $user" pinvault unlock "$user" --ttl 5m --pin-stdin <<<"$pin" >/dev/null
	done
	[ "$(identities)" = "12 1" ] || fail "the agent after unlocking an app's key and an ssh key answered: $(identities)"
	expect_status 0 "lock" pinvault lock --all >/dev/null
	[ "$(identities)" = "12 0" ] || fail "the agent after lock answered: $(identities)"

	step "pinvault agent: its user units, enabled for nobody; run as uid $user_uid, it lists the locked ssh key"
	for unit in pinvault-agent.socket pinvault-agent.service; do
		[ -f "$root/usr/lib/systemd/user/$unit" ] || fail "/usr/lib/systemd/user/$unit missing"
	done
	grep -qx 'ExecStart=/usr/bin/pinvault agent' "$root/usr/lib/systemd/user/pinvault-agent.service" \
		|| fail "pinvault-agent.service does not run /usr/bin/pinvault agent"
	[ ! -e "$root/etc/systemd/user/sockets.target.wants/pinvault-agent.socket" ] || fail "pinvault-agent.socket enabled for every user"
	in_root install -d -o "$user_uid" -g "$user_uid" -m 0700 /tmp/agent-home
	unshare --net -- chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin LANG=C.UTF-8 PINVAULT_SOCKET="$socket" \
		HOME=/tmp/agent-home setpriv --reuid="$user_uid" --regid="$user_uid" --clear-groups -- \
		/usr/bin/pinvault agent -D --agent-socket /tmp/agent-home/agent.sock >"$root/tmp/agent.log" 2>&1 &
	agent_pid=$!
	tries=0
	until [ -S "$root/tmp/agent-home/agent.sock" ]; do
		tries=$((tries + 1))
		[ "$tries" -lt 300 ] && kill -0 "$agent_pid" 2>/dev/null || { cat "$root/tmp/agent.log" >&2; fail "pinvault agent did not serve"; }
		sleep 0.1
	done
	[ "$(identities /tmp/agent-home/agent.sock)" = "12 1" ] || fail "pinvault agent answered: $(identities /tmp/agent-home/agent.sock)"
	kill -TERM "$agent_pid"
	agent_status=0
	wait "$agent_pid" || agent_status=$?
	[ "$agent_status" = 0 ] || { cat "$root/tmp/agent.log" >&2; fail "pinvault agent exited $agent_status on SIGTERM"; }
	expect_status 0 "wipe the ssh key" pinvault wipe alice-ssh --yes --pin-stdin <<<"$pin" >/dev/null

	# --- pinvault-pkcs11 (issue 24) --------------------------------------------------
	step "pinvault-pkcs11: in p11-kit's registry, uid $user_uid's authenticate credential a token"
	library=$(in_root dpkg -L libpinvault0 | grep '/libpinvault\.so\.0$' || true)
	module=$(in_root dpkg -L pinvault-pkcs11 | grep '/pkcs11/pinvault-pkcs11\.so$' || true)
	[ -n "$library" ] && [ -n "$module" ] || fail "libpinvault.so.0 or pinvault-pkcs11.so is not in its package"
	[ -f "$root/usr/share/p11-kit/modules/pinvault.module" ] || fail "/usr/share/p11-kit/modules/pinvault.module missing"
	for binary in "$library" "$module"; do
		libraries=$(in_root ldd "$binary")
		if grep -q '/opt/swift\|not found\|libswift\|libFoundation\|libdispatch' <<<"$libraries"; then fail "$binary: $libraries"; fi
	done
	# p11-kit is only Recommended: installed here by name, whatever apt does with recommendations.
	apt_get install p11-kit >"$root/tmp/p11-kit.log" 2>&1 || { cat "$root/tmp/p11-kit.log" >&2; fail "apt-get install p11-kit"; }
	status=0
	# p11-kit looks up HOME for its user configuration; uid 1000 has no passwd entry yet.
	modules=$(as_uid "$user_uid" "$user_uid" env HOME=/nonexistent p11-kit list-modules 2>&1) || status=$?
	[ "$status" = 0 ] || fail "p11-kit list-modules as uid $user_uid: exit $status: $modules"
	grep -q "token: alice@example.org (package-test)" <<<"$modules" || fail "p11-kit list-modules shows no PinVault token: $modules"
	grep -q "library-manufacturer: PinVault" <<<"$modules" || fail "p11-kit list-modules shows no PinVault module: $modules"

	step "pam_pinvault through pamtester: a right PIN signs in, a wrong one is counted"
	apt_get install pamtester >"$root/tmp/pamtester.log" 2>&1 || { cat "$root/tmp/pamtester.log" >&2; fail "apt-get install pamtester"; }
	grep -q ":$user_uid:" "$root/etc/passwd" || echo "pvuser:x:$user_uid:$user_uid::/nonexistent:/usr/sbin/nologin" >>"$root/etc/passwd"
	pam_user=$(in_root getent passwd "$user_uid" | cut -d: -f1)
	expect_status 0 "register a login credential" pinvault register "$pam_user" --label login --purpose login --pin-stdin <<<"$pin" >/dev/null
	printf 'auth required pam_pinvault.so socket=%s\n' "$socket" >"$root/etc/pam.d/pinvault-package-test"
	signed_in=$(in_root pamtester pinvault-package-test "$pam_user" authenticate <<<"$pin" 2>&1) \
		|| fail "pamtester with the right PIN: $signed_in"
	grep -q "successfully authenticated" <<<"$signed_in" || fail "pamtester with the right PIN: $signed_in"
	refused=$(in_root pamtester pinvault-package-test "$pam_user" authenticate <<<"59384712" 2>&1) \
		&& fail "pamtester took a wrong PIN: $refused"
	grep -q "Wrong PIN (9 attempts left)" <<<"$refused" || fail "pamtester with a wrong PIN: $refused"
	rm "$root/etc/pam.d/pinvault-package-test"

	# varlinkctl came with systemd 254: trixie has it, bookworm's 252 does not.
	if in_root sh -c 'command -v varlinkctl' >/dev/null; then
		step "varlinkctl of systemd $(in_root dpkg-query -W -f '${Version}' systemd): info, introspect, call GetPolicy"
		info=$(expect_status 0 "varlinkctl info" as_uid "$user_uid" "$user_uid" varlinkctl info "$socket")
		printf '%s\n' "$info" | sed 's/^/    /'
		grep -q 'Vendor: PinVault' <<<"$info" || fail "varlinkctl info: $info"
		grep -q "Version: $upstream" <<<"$info" || fail "varlinkctl info names no version $upstream: $info"
		grep -q 'io.pinvault.Vault' <<<"$info" || fail "varlinkctl info lists no io.pinvault.Vault: $info"
		interface=$(expect_status 0 "varlinkctl introspect" as_uid "$user_uid" "$user_uid" varlinkctl introspect "$socket" io.pinvault.Vault)
		grep -q '^method GetPolicy()' <<<"$interface" || fail "varlinkctl introspect: $interface"
		called=$(expect_status 0 "varlinkctl call" as_uid "$user_uid" "$user_uid" varlinkctl call "$socket" io.pinvault.Vault.GetPolicy '{}')
		grep -Eq '"minLength" ?: ?6' <<<"$called" || fail "varlinkctl call GetPolicy: $called"
	elif [ "$suite" = bookworm ]; then
		step "no varlinkctl in bookworm (systemd 252; it came with 254)"
	else
		fail "$suite's systemd has no varlinkctl"
	fi
	# The purge checks below count alice's credential alone.
	expect_status 0 "wipe the login credential" pinvault wipe "$pam_user" --yes --pin-stdin <<<"$pin" >/dev/null
	stop_daemon
	[ -f "$root/var/lib/pinvault/vault.sqlite" ] || fail "no vault.sqlite in /var/lib/pinvault"
	[ -f "$root/var/lib/pinvault/pepper" ] || fail "pinvaultd made no <state>/pepper"

	# --- upgrade ---------------------------------------------------------------------
	step "edit both conffiles; upgrade to $upgrade_version with systemd's runtime directory made by hand"
	sed -i 's/^min_length = 6$/min_length = 8/' "$root/etc/pinvault/pinvaultd.toml"
	grep -qx 'min_length = 8' "$root/etc/pinvault/pinvaultd.toml" || fail "could not edit pinvaultd.toml"
	printf '# added by the package test\n13572468\n' >>"$root/etc/pinvault/deny-list.txt"
	# The root's systemd-creds reaches swtpm through its TCTI (tpm2-tools brings the
	# TSS libraries it loads).
	apt_get install libtss2-tcti-swtpm0 tpm2-tools >"$root/tmp/tss.log" 2>&1 || { cat "$root/tmp/tss.log" >&2; fail "apt-get install libtss2-tcti-swtpm0"; }
	start_tpm
	mkdir -p "$root/run/systemd/system"
	# shellcheck disable=SC2086
	in_root env DEBIAN_FRONTEND=noninteractive PINVAULT_TPM2_DEVICE="$tpm_device" apt-get -q -y install "$upgrade" $c_upgrades \
		</dev/null >"$root/tmp/upgrade.log" 2>&1 || { cat "$root/tmp/upgrade.log" >&2; fail "apt-get install (upgrade)"; }
	flush_tpm
	rmdir "$root/run/systemd/system"
	[ "$(installed_version)" = "ii $upgrade_version" ] || fail "after the upgrade: '$(installed_version)'"
	grep -qx 'min_length = 8' "$root/etc/pinvault/pinvaultd.toml" || fail "the edited pinvaultd.toml was not kept"
	grep -qx '13572468' "$root/etc/pinvault/deny-list.txt" || fail "the edited deny list was not kept"
	leftovers=$(find "$root/etc/pinvault" -name '*.dpkg-*')
	[ -z "$leftovers" ] || fail "dpkg left $leftovers"
	grep -q 'sealed the existing /var/lib/pinvault/pepper' "$root/tmp/upgrade.log" \
		|| { cat "$root/tmp/upgrade.log" >&2; fail "the postinst did not seal the existing pepper"; }
	[ -f "$root/etc/credstore.encrypted/pinvault.pepper" ] || fail "no sealed pepper"

	step "the postinst's seal to the TPM2 opens, and still opens after a firmware and Secure Boot update"
	sed -n 's/^pinvault-seal-pepper: /    /p' "$root/tmp/upgrade.log"
	seal_pepper_in_root --check >/dev/null || fail "the postinst's seal does not open (systemd $(in_root dpkg-query -W -f '${Version}' systemd))"
	digest=$(printf '5a%.0s' {1..32})
	tpm_tool tpm2_pcrextend "0:sha256=$digest" "2:sha256=$digest" "4:sha256=$digest" "7:sha256=$digest" || fail "tpm2_pcrextend"
	seal_pepper_in_root --check >/dev/null || fail "a firmware update locked the postinst's seal away"

	step "pinvaultd with the sealed pepper decrypted into \$CREDENTIALS_DIRECTORY opens the old record"
	in_root install -d -m 0700 -o pinvault /run/credentials/pinvaultd.service
	in_root systemd-creds decrypt --name=pinvault.pepper --tpm2-device="$tpm_device" /etc/credstore.encrypted/pinvault.pepper \
		/run/credentials/pinvaultd.service/pinvault.pepper
	flush_tpm
	cmp -s "$root/run/credentials/pinvaultd.service/pinvault.pepper" "$root/var/lib/pinvault/pepper" \
		|| fail "the TPM2 seal does not hold the pepper pinvaultd made"
	in_root chown pinvault /run/credentials/pinvaultd.service/pinvault.pepper
	start_daemon CREDENTIALS_DIRECTORY=/run/credentials/pinvaultd.service
	grep -q 'source=credentials' "$daemon_log" || { cat "$daemon_log" >&2; fail "pinvaultd did not load the pepper from the credential"; }
	policy=$(expect_status 0 "policy" pinvault policy --json)
	grep -Eq '"minLength" ?: ?8' <<<"$policy" || fail "the edited min_length is not in force: $policy"
	checked=$(expect_status 5 "check-pin of the PIN added to the deny list" pinvault check-pin --pin-stdin --json <<<"13572468")
	grep -q 'denyListed' <<<"$checked" || fail "check-pin: $checked"
	expect_status 0 "auth after the upgrade" pinvault auth alice@example.org --challenge-hex 01 --pin-stdin <<<"$pin" >/dev/null
	stop_daemon
	rm -rf "$root/run/credentials"

	step "a recovery key of the TPM2 seal brings the pepper back on a cleared TPM2"
	seal_pepper_in_root --recovery-key-file=/root/pinvault-recovery-key >/dev/null || fail "no recovery key made"
	[ "$(in_root stat -c %a /root/pinvault-recovery-key)" = 400 ] || fail "the recovery key is not 0400"
	stop_tpm
	start_tpm
	refused=0
	seal_pepper_in_root --check >/dev/null 2>"$root/tmp/check.log" || refused=$?
	[ "$refused" = 1 ] && grep -q -- '--recover=' "$root/tmp/check.log" \
		|| { cat "$root/tmp/check.log" >&2; fail "--check on a cleared TPM2: exit $refused"; }
	seal_pepper_in_root --recover=/root/pinvault-recovery-key >/dev/null || fail "--recover"
	seal_pepper_in_root --check >/dev/null || fail "the recovered seal does not open"
	in_root systemd-creds decrypt --name=pinvault.pepper --tpm2-device="$tpm_device" /etc/credstore.encrypted/pinvault.pepper - \
		2>/dev/null | cmp -s - "$root/var/lib/pinvault/pepper" || fail "the recovered seal holds another pepper"
	flush_tpm
	rm -f "$root/root/pinvault-recovery-key"
	stop_tpm

	# --- this release's lintian ---------------------------------------------------------
	# make deb ran bookworm's lintian; a later release's knows more, the /usr-move among
	# it (files in aliased directories such as /lib, which DEP 17 moves under /usr).
	if [ "$suite" != bookworm ]; then
		step "lintian of $suite on the package"
		apt_get install --no-install-recommends lintian >"$root/tmp/lintian-install.log" 2>&1 \
			|| { cat "$root/tmp/lintian-install.log" >&2; fail "apt-get install lintian"; }
		lintian_status=0
		in_root lintian --fail-on error --display-info "$package" >"$root/tmp/lintian.log" 2>&1 || lintian_status=$?
		sed 's/^/    /' "$root/tmp/lintian.log"
		[ "$lintian_status" = 0 ] || fail "$suite's lintian found errors (exit $lintian_status)"
		if grep -Eq 'aliased|usrmerge|usr-merge|/usr-move' "$root/tmp/lintian.log"; then
			fail "$suite's lintian complains of the /usr-move"
		fi
	fi

	# --- remove and purge ------------------------------------------------------------
	step "remove keeps the vault, the pepper and the configuration"
	apt_get remove pinvault >/dev/null 2>&1 || fail "apt-get remove"
	[ "$(installed_version)" = "rc $upgrade_version" ] || fail "after remove: '$(installed_version)'"
	[ ! -e "$root/usr/sbin/pinvaultd" ] || fail "pinvaultd still there after remove"
	for path in /var/lib/pinvault/vault.sqlite /etc/credstore.encrypted/pinvault.pepper /etc/pinvault/pinvaultd.toml; do
		[ -e "$root$path" ] || fail "remove deleted $path"
	done

	# apt-get purge, with NAME=VALUE arguments in its environment.
	purge() {
		in_root env DEBIAN_FRONTEND=noninteractive "$@" apt-get -q -y purge pinvault </dev/null >"$root/tmp/purge.log" 2>&1 \
			|| { cat "$root/tmp/purge.log" >&2; fail "apt-get purge"; }
		[ -z "$(installed_version)" ] || [ "$(installed_version)" = "un " ] || fail "after purge: '$(installed_version)'"
		[ ! -e "$root/etc/pinvault" ] || fail "purge left /etc/pinvault: $(ls -A "$root/etc/pinvault")"
		[ ! -e "$root/etc/systemd/system/sockets.target.wants/pinvaultd.socket" ] || fail "purge left the socket enabled"
		grep '^pinvault: ' "$root/tmp/purge.log" | sed 's/^/    /'
	}
	kept() {
		for path in /var/lib/pinvault/vault.sqlite /etc/credstore.encrypted/pinvault.pepper; do
			[ -e "$root$path" ] || fail "purge deleted $path from a vault with credentials"
		done
	}
	gone() {
		for path in /var/lib/pinvault /etc/credstore.encrypted/pinvault.pepper; do
			[ ! -e "$root$path" ] || fail "purge left $path"
		done
	}

	step "purge without sqlite3: credentials cannot be counted, so the vault is kept"
	purge
	grep -q 'may hold credentials' "$root/tmp/purge.log" || fail "purge did not say why it kept the vault"
	kept

	step "purge with sqlite3 installed: 1 credential counted, kept"
	apt_get install "$package" >/dev/null 2>&1 || fail "reinstall"
	apt_get install sqlite3 >/dev/null 2>&1 || fail "apt-get install sqlite3"
	purge
	grep -q 'holds 1 credential(s)' "$root/tmp/purge.log" || fail "purge did not count the credential"
	kept

	step "purge with PINVAULT_PURGE_CREDENTIALS=yes deletes them"
	apt_get install "$package" >/dev/null 2>&1 || fail "reinstall"
	purge PINVAULT_PURGE_CREDENTIALS=yes
	gone

	step "an empty vault is purged unasked"
	apt_get install "$package" >/dev/null 2>&1 || fail "reinstall"
	start_daemon
	expect_status 0 "policy" pinvault policy >/dev/null
	stop_daemon
	[ -f "$root/var/lib/pinvault/vault.sqlite" ] || fail "no vault made"
	purge
	gone
	for path in /usr/sbin/pinvaultd /usr/bin/pinvault /usr/lib/systemd/system/pinvaultd.service /usr/lib/sysusers.d/pinvault.conf; do
		[ ! -e "$root$path" ] || fail "purge left $path"
	done
	in_root getent passwd pinvault >/dev/null || fail "the pinvault user was removed (Debian keeps system users)"
	exit 0
fi

# ---------------------------------------------------------------------------------
# Outside.
if [ "$(id -u)" != 0 ]; then
	echo "package-test: SKIPPED: needs root (mmdebstrap, chroot, mounts); run: sudo make package-test" >&2
	exit 77
fi
cd "$repository"
arch=$(dpkg --print-architecture)
version=$(dpkg-parsechangelog -SVersion)
upstream=$(dpkg-parsechangelog -SVersion | sed 's/-[^-]*$//')
upgrade_version=$version+pkgtest1
package=$repository/dist/pinvault_${version}_$arch.deb
upgrade=$work/upgrade/pinvault_${upgrade_version}_$arch.deb
mkdir -p "$work"

if [ "${PACKAGE_TEST_REUSE_DEBS:-}" = 1 ] && [ -f "$package" ] && [ -f "$upgrade" ]; then
	step "reusing $package and $upgrade"
else
step "make deb ($version) and its upgrade ($upgrade_version)"
	make --no-print-directory deb >"$work/deb.log" 2>&1 || { tail -n 40 "$work/deb.log" >&2; fail "make deb (log: $work/deb.log)"; }
	# Relative to the repository (where make runs): its path may hold spaces.
	make --no-print-directory deb PINVAULT_DEB_VERSION="$upgrade_version" PINVAULT_DEB_DIR=".build-deb/upgrade" >"$work/deb-upgrade.log" 2>&1 \
	|| { tail -n 40 "$work/deb-upgrade.log" >&2; fail "make deb PINVAULT_DEB_VERSION=$upgrade_version (log: $work/deb-upgrade.log)"; }
fi
[ -f "$package" ] && [ -f "$upgrade" ] || fail "no $package or $upgrade"
step "$(du -k "$package" | cut -f1) KiB package, $(dpkg-deb -f "$package" Installed-Size) KiB installed"

# The apt sources of a SUITE root: this machine's own Debian entries (its release, and
# the -updates and -security beside it), with its codename replaced by SUITE's. apt
# itself says what the host's sources are (one line per repository and release).
sources_for() {
	local suite=$1 host uri release
	if [ -n "${PINVAULT_DEBIAN_MIRROR:-}" ]; then
		echo "deb $PINVAULT_DEBIAN_MIRROR $suite main"
		return
	fi
	host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$host" ] || fail "/etc/os-release names no VERSION_CODENAME: set PINVAULT_DEBIAN_MIRROR"
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Target-Of: deb' 'Identifier: Packages' 'Component: main' \
		| sort -u | while read -r uri release; do
			case $release in
			"$host") echo "deb $uri $suite main" ;;
			"$host"-*) echo "deb $uri $suite-${release#"$host"-} main" ;;
			esac
		done
}

# A fresh root of SUITE, unpacked from its cached tarball (made first when missing).
make_root() {
	local suite=$1 root=$2 tarball=$work/$1-$arch.tar
	if [ ! -f "$tarball" ]; then
		local -a sources
		mapfile -t sources < <(sources_for "$suite")
		[ "${#sources[@]}" -gt 0 ] || fail "no Debian entry in this machine's apt sources (apt-get indextargets); set PINVAULT_DEBIAN_MIRROR"
		step "mmdebstrap --variant=apt $suite from: ${sources[*]} (cached as $tarball)"
		rm -f "$work/partial.tar"
		mmdebstrap --quiet --variant=apt --mode=root "$suite" "$work/partial.tar" "${sources[@]}" \
			|| fail "mmdebstrap $suite (do this machine's apt sources answer?)"
		mv "$work/partial.tar" "$tarball"
	fi
	rm -rf "$root"
	mkdir -p "$root"
	tar -C "$root" -xf "$tarball"
}

suites=("$@")
[ "${#suites[@]}" -gt 0 ] || suites=(bookworm trixie)
timings=()
for suite in "${suites[@]}"; do
	started=$SECONDS
	root=$work/root-$suite
	make_root "$suite" "$root"
	status=0
	PACKAGE_TEST_SECONDS=$SECONDS unshare --mount --propagation private -- \
		"$0" --inside "$root" "$package" "$upgrade" "$version" "$upgrade_version" "$upstream" "$suite" || status=$?
	# /proc/self/mounts writes a space in a path as \040 (a checkout may have spaces).
	if grep -qF " ${root// /\\040}/" /proc/self/mounts; then fail "mounts left under $root; not removing it"; fi
	rm -rf "$root"
	[ "$status" = 0 ] || fail "in the Debian $suite root (exit $status)"
	timings+=("$suite $((SECONDS - started))s")
done
echo "package-test: passed in ${SECONDS}s (${timings[*]})"
