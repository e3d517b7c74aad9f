"""The analysis in the map step (issue 45 §4): judge.py --engine analyses each shard (one
engine per task) into the games' analysis columns, and the `player_analysis` reduce equals
the per-player summary of docs/ANALYSIS.md computed from `arbiter export --format csv` of
the same games analysed with the same engine and budget. Stockfish at a tiny budget.

    ARBITER_CORPUS=... ARBITER_BIN=target/ci/arbiter python -m pytest spark/test_analysis.py
"""

import csv
import io
import os
import shutil
import subprocess
import sys

import duckdb
import pytest

from paths import ARBITER, CORPUS, JUDGE  # noqa: E402
SHARD = CORPUS / "games" / "otb" / "pgn4web-lon09r5.pgn"
STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"
# The same engine and budget for the map step and for the database import.
BUDGET = ["--engine-nodes", "1000"]
EXTRA = ["--engine-sweep-nodes", "1000", "--engine-refine-nodes", "0"]
COUNTS = ("inaccuracies", "mistakes", "blunders")


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    if not os.access(STOCKFISH, os.X_OK):
        pytest.skip("no Stockfish on this machine")
    tmp = tmp_path_factory.mktemp("analysis")
    out = tmp / "out"
    proc = subprocess.run(
        [sys.executable, str(JUDGE), "--master", "local[2]", "--arbiter", str(ARBITER),
         "--out", str(out), "--engine", STOCKFISH, "--engine-nodes", "1000",
         *[f"--arbiter-arg={a}" for a in EXTRA], str(SHARD)],
        capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    db = tmp / "games.sqlite"
    subprocess.run([str(ARBITER), "import", str(SHARD), "--db", str(db), "--quiet",
                    "--engine", STOCKFISH, *BUDGET, *EXTRA], check=True, capture_output=True)
    exported = subprocess.run([str(ARBITER), "export", "--db", str(db), "--format", "csv"],
                              capture_output=True, text=True, check=True).stdout
    return out, list(csv.DictReader(io.StringIO(exported)))


def summary_from_export(rows) -> dict:
    """docs/ANALYSIS.md's per-player summary from the exported per-game rows."""
    sides = {}
    for r in rows:
        if not r["analysis_engine"]:
            continue
        n = int(r["ply_count"])
        black_first = bool(r["start_fen"]) and r["start_fen"].split()[1] == "b"
        moves = {"white": n // 2 if black_first else (n + 1) // 2,
                 "black": (n + 1) // 2 if black_first else n // 2}
        for side in ("white", "black"):
            s = sides.setdefault(r[side], {"games": 0, "accuracy": [], "acpl": [],
                                           **{c: [0, 0, False] for c in COUNTS}})
            s["games"] += 1
            for figure in ("accuracy", "acpl"):
                if r[f"{side}_{figure}"]:
                    s[figure].append(float(r[f"{side}_{figure}"]))
            for c in COUNTS:
                if r[f"{side}_{c}"]:
                    s[c][0] += int(r[f"{side}_{c}"])
                    s[c][1] += moves[side]
                    s[c][2] = True
    mean = lambda v: sum(v) / len(v) if v else None  # noqa: E731
    return {p: {"analysed_games": s["games"], "accuracy": mean(s["accuracy"]),
                "acpl": mean(s["acpl"]),
                **{f"{c}_per_100": 100 * s[c][0] / s[c][1] if s[c][2] else None
                   for c in COUNTS}}
            for p, s in sides.items()}


def test_the_map_step_writes_the_analysis_of_each_game(analysed):
    out, exported = analysed
    columns = ["white_accuracy", "black_accuracy", "white_acpl", "black_acpl",
               *[f"{side}_{c}" for side in ("white", "black") for c in COUNTS]]
    rows = duckdb.connect().execute(
        f"SELECT game, analysis_engine, {', '.join(columns)} "
        f"FROM read_parquet('{out}/shards/{SHARD.name}/games.parquet') ORDER BY game").fetchall()
    assert len(rows) == len(exported) == 4
    for got, want in zip(rows, sorted(exported, key=lambda r: int(r["game"]))):
        assert got[1].startswith("Stockfish") and got[1] == want["analysis_engine"]
        for value, column in zip(got[2:], columns):
            text = want[column]
            assert value == (None if text == "" else pytest.approx(float(text))), column


def test_the_player_analysis_reduce_equals_the_export(analysed):
    out, exported = analysed
    want = summary_from_export(exported)
    con = duckdb.connect()
    got = {r[0]: r[1:] for r in con.execute(
        "SELECT player, analysed_games, accuracy, acpl, inaccuracies_per_100, "
        f"mistakes_per_100, blunders_per_100 FROM read_parquet('{out}/reduce/player_analysis/"
        "*.parquet')").fetchall()}
    assert got.keys() == want.keys() and len(got) == 8
    for player, w in want.items():
        g = dict(zip(["analysed_games", "accuracy", "acpl", *[f"{c}_per_100" for c in COUNTS]],
                     got[player]))
        for key, value in w.items():
            assert g[key] == (None if value is None else pytest.approx(value)), (player, key)
    # Stockfish labels every kind: the rates are known.
    assert all(v["mistakes_per_100"] is not None for v in want.values())
