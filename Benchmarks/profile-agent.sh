#!/bin/sh
# Where `pinvault agent` spends a request: REQUEST_IDENTITIES answered from a
# connection's List (identities), or a SIGN_REQUEST with an unlocked Ed25519 key, one
# AgentSign to pinvaultd (signs). Runs the release daemon as is and the agent under
# callgrind (instruction counts, meaningful even on a busy machine), with one ssh key
# registered (and unlocked, for signs); counts (instrumentation on) only after a
# warm-up, drives COUNT round trips from one connection with pinvault-bench, stops both,
# and prints the top functions (exclusive and inclusive). The client and pinvaultd are
# not counted.
#
#   Benchmarks/profile-agent.sh identities|signs [BUILD_DIR] [COUNT]   (BUILD_DIR default .build/release)
#   PROFILE_OUT=FILE keeps the callgrind dump (for callgrind_annotate or kcachegrind).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-} in
identities) what=REQUEST_IDENTITIES ;;
signs) what=SIGN_REQUEST ;;
*) echo "usage: $0 identities|signs [BUILD_DIR] [COUNT]" >&2; exit 64 ;;
esac
mode=$1
build=${2:-$repo/.build/release}
count=${3:-20000}
work=$(mktemp -d /tmp/pinvault-profile-XXXXXX)
. "$repo/Benchmarks/callgrind-steps.sh"
daemon=
agent=
trap 'kill $agent $daemon 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -m 700 "$work/state"
# Valgrind 3.19 cannot read the DWARF 5 Swift emits: profile a copy without debug
# sections (function names still come from the symbol table).
objcopy --strip-debug "$build/pinvault" "$work/pinvault"

"$build/pinvaultd" --config "$repo/config/pinvaultd.toml" \
    --socket "$work/sock" --ssh-agent-socket "" --ctaphid-socket "" --state-directory "$work/state" 2>"$work/daemon.log" &
daemon=$!
wait_for_socket "$work/sock" "$daemon" "$work/daemon.log"
printf '%s\n' '581302' | "$build/pinvault" --socket "$work/sock" register "profile@example.org" \
    --label ssh --purpose ssh --pin-stdin >/dev/null
[ "$mode" = identities ] || printf '%s\n' '581302' | "$build/pinvault" --socket "$work/sock" unlock "profile@example.org" \
    --ttl 3600 --pin-stdin >/dev/null

HOME="$work" valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out" \
    "$work/pinvault" agent -D --agent-socket "$work/agent.sock" --socket "$work/sock" \
    --config "$work/agent.toml" 2>"$work/agent.log" &
agent=$!
wait_for_socket "$work/agent.sock" "$agent" "$work/agent.log"
count_calls "$agent" "$work" "$count" "$build/pinvault-bench" "drive-$mode" "$work/agent.sock"
report "$what" "$count" "$dump"
