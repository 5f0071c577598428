#!/bin/sh
# Where pinvaultd's time goes on the cheapest call: runs the release daemon under
# callgrind (instruction counts, meaningful even on a busy machine), counts
# (instrumentation on) only after start-up and a warm-up, drives COUNT GetPolicy round trips from one connection
# with pinvault-bench, stops the daemon, and prints the top functions (inclusive and
# exclusive). (perf stat cannot count instructions in this VM: no hardware counters.)
#
#   Benchmarks/profile-getpolicy.sh [BUILD_DIR] [COUNT]     (BUILD_DIR default .build/release)
#   PROFILE_OUT=FILE keeps the callgrind dump (for callgrind_annotate or kcachegrind).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/.build/release}
count=${2:-20000}
work=$(mktemp -d /tmp/pinvault-profile-XXXXXX)
. "$repo/Benchmarks/callgrind-steps.sh"
trap 'kill "$daemon" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -m 700 "$work/state"
# Valgrind 3.19 cannot read the DWARF 5 Swift emits: profile a copy without debug
# sections (function names still come from the symbol table).
objcopy --strip-debug "$build/pinvaultd" "$work/pinvaultd"

valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out" \
    "$work/pinvaultd" --config "$repo/config/pinvaultd.toml" \
    --socket "$work/sock" --ssh-agent-socket "" --ctaphid-socket "" --state-directory "$work/state" 2>"$work/daemon.log" &
daemon=$!
wait_for_socket "$work/sock" "$daemon" "$work/daemon.log"
count_calls "$daemon" "$work" "$count" "$build/pinvault-bench" drive-getpolicy "$work/sock"
report GetPolicy "$count" "$dump"
