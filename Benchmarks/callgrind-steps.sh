# The steps the profile scripts share (sourced, not run): a process under callgrind with
# instrumentation off until the warm-up is done, one driver's calls counted, the report.

# wait_for_socket PATH PID LOG: until PATH exists, or the process PID has gone (LOG is shown).
wait_for_socket() {
    for _ in $(seq 600); do [ -S "$1" ] || ! kill -0 "$2" 2>/dev/null && break; sleep 0.1; done
    [ -S "$1" ] || { cat "$3"; exit 1; }
}

# count_calls PID WORK COUNT DRIVE...: 500 uncounted calls (DRIVE … 500), then COUNT
# counted ones (DRIVE … COUNT); the process is then stopped and its dump left in $dump
# (and copied to $PROFILE_OUT when set).
count_calls() {
    pid=$1 work=$2 count=$3
    shift 3
    "$@" 500 >/dev/null
    callgrind_control -i on "$pid" >/dev/null
    "$@" "$count"
    callgrind_control -d "$pid" >/dev/null
    sleep 1
    dump=$(ls -t "$work"/callgrind.out.* | head -n 1)
    kill -TERM "$pid"; wait "$pid" || true
    [ -z "${PROFILE_OUT:-}" ] || cp "$dump" "$PROFILE_OUT"
}

# report WHAT COUNT DUMP: instructions per call, then the top functions, exclusive and inclusive.
report() {
    echo "== instructions per $1: total Ir ÷ $2"
    callgrind_annotate "$3" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); printf "%.0f\n", $1 / '"$2"' }'
    echo "== exclusive (self) cost, top 30"
    callgrind_annotate "$3" 2>/dev/null | sed -n '/file:function/,$p' | head -n 32
    echo "== inclusive cost, top 40"
    callgrind_annotate --inclusive=yes --threshold=99 "$3" 2>/dev/null | sed -n '/file:function/,$p' | head -n 42
}
