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
trap 'kill "$daemon" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -m 700 "$work/state"
# Valgrind 3.19 cannot read the DWARF 5 Swift emits: profile a copy without debug
# sections (function names still come from the symbol table).
objcopy --strip-debug "$build/pinvaultd" "$work/pinvaultd"

valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/callgrind.out" \
    "$work/pinvaultd" --config "$repo/config/pinvaultd.toml" \
    --socket "$work/sock" --ssh-agent-socket "" --state-directory "$work/state" 2>"$work/daemon.log" &
daemon=$!
for _ in $(seq 600); do [ -S "$work/sock" ] || ! kill -0 "$daemon" 2>/dev/null && break; sleep 0.1; done
[ -S "$work/sock" ] || { cat "$work/daemon.log"; exit 1; }

"$build/pinvault-bench" drive-getpolicy "$work/sock" 500 >/dev/null
callgrind_control -i on "$daemon" >/dev/null
"$build/pinvault-bench" drive-getpolicy "$work/sock" "$count"
callgrind_control -d "$daemon" >/dev/null
sleep 1
dump=$(ls -t "$work"/callgrind.out.* | head -n 1)
kill -TERM "$daemon"; wait "$daemon" || true
[ -z "${PROFILE_OUT:-}" ] || cp "$dump" "$PROFILE_OUT"

echo "== instructions per GetPolicy: total Ir ÷ $count"
callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); printf "%.0f\n", $1 / '"$count"' }'
echo "== exclusive (self) cost, top 30"
callgrind_annotate "$dump" 2>/dev/null | sed -n '/file:function/,$p' | head -n 32
echo "== inclusive cost, top 40"
callgrind_annotate --inclusive=yes --threshold=99 "$dump" 2>/dev/null | sed -n '/file:function/,$p' | head -n 42
