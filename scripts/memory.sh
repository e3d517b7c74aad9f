#!/usr/bin/env bash
# Peak resident memory (GNU time's "Maximum resident set size", the pages SQLite maps from
# the database included) of each command of issue 46 §2 on a database of GAMES games built
# by `arbiter bench import` (distinct copies of the master games), one run each, with the
# load before each run. docs/PERFORMANCE.md keeps the last table.
#
#   ARBITER_CORPUS=/path/to/corpus scripts/memory.sh [GAMES] [DB]
#
# GAMES defaults to 1,000,000. DB is kept when given (reused if it already holds GAMES
# games); else a temporary one is built and removed. BIN picks the binary (default
# target/ci/arbiter). `duplicates` writes its groups to the database: it runs last.
set -euo pipefail
games=${1:-1000000}
bin=${BIN:-target/ci/arbiter}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db=${2:-$tmp/memory.sqlite}
: "${ARBITER_CORPUS:?set ARBITER_CORPUS to the shared corpus}"
master=$tmp/master.pgn
cat "$ARBITER_CORPUS"/games/otb-pgnmentor/*.pgn > "$master"

have=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM games").fetchone()[0])' "$db" 2>/dev/null || echo 0)
# peak LABEL COMMAND...: one run under GNU time; prints the label, peak RSS, CPU and wall.
peak() {
  local label=$1; shift
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%M %U %S %e' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || {
    echo "$label: failed: $(tail -n 3 "$tmp/err")" >&2
  }
  read -r kb user sys wall < "$tmp/time"
  printf '| %s | %.0f MB | %.2f s | %.1f s | %s |\n' "$label" "$(echo "$kb / 1024" | bc -l)" \
    "$(echo "$user + $sys" | bc -l)" "$wall" "$load"
}

echo "| command | peak RSS | CPU (user + sys) | wall | load before |"
echo "|---|---|---|---|---|"
if [ "$have" -lt "$games" ]; then
  start=$(date +%s)
  peak "bench import --games $games (the build)" \
    "$bin" bench import --games "$games" --import-db "$db"
  echo "(the build took $(( $(date +%s) - start )) s)" >&2
fi
peak "import (the master games again: all present)" "$bin" import -q "$master" --db "$db"
for format in pgn csv jsonl parquet; do
  out=$tmp/out.$format
  peak "export --format $format" "$bin" export -q --db "$db" --format "$format" -o "$out"
  rm -rf "$out"
done
e4='rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'
najdorf='rnbqkb1r/1p2pppp/p2p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R w KQkq - 0 6'
peak "search 1.e4" "$bin" search --db "$db" "$e4"
peak "search 1.e4 --limit 100" "$bin" search --db "$db" "$e4" --limit 100
peak "search the Najdorf" "$bin" search --db "$db" "$najdorf"
peak "search --pattern '*/*/*/3P4/*/*/*/*' --limit 100" \
  "$bin" search --db "$db" --pattern '*/*/*/3P4/*/*/*/*' --limit 100
peak "stats players" "$bin" stats players --db "$db" -o "$tmp/board.csv"
peak "ratings --system elo" "$bin" ratings --db "$db" --system elo -o "$tmp/ratings.csv"
peak "tournament --all-events" "$bin" tournament --db "$db" --all-events
peak "analyse --engine none --date-from 2021.12.30 (own search, 2000 nodes)" \
  "$bin" analyse --db "$db" --engine none --date-from 2021.12.30 --nodes 2000
peak "duplicates" "$bin" duplicates -q --db "$db"
