"""spark/search.py in local[2] mode on three shards of the corpus against `arbiter search` on
a database of the same games: the same games and the same first plies for exact positions,
material and patterns; the position rows read with DuckDB.

    ARBITER_CORPUS=... ARBITER_BIN=target/ci/arbiter python -m pytest spark/test_search.py
"""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import search  # noqa: E402
from paths import ARBITER, CORPUS, JUDGE, SEARCH  # noqa: E402
SHARDS = [
    CORPUS / "games" / "lichess" / "lichess_DannyTheDonkey_2019-01-29.pgn",
    CORPUS / "games" / "otb" / "pychess-dortmund.pgn",
    CORPUS / "games" / "otb" / "pgn4web-euroteams2011.pgn",
]
START = "rnbqkbnr/pppppppp/......../......../......../......../PPPPPPPP/RNBQKBNR w"
QUERIES = [
    ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"],
    ["rnbqkbnr/pp2pppp/3p4/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3"],
    # Without the castling field: any castling rights (several keys).
    ["r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w"],
    ["--material", "KRPKR"],
    ["--material", "KRKR", "--held", "6"],
    ["--material", "R vs mPP"],
    ["--material", "white-down>=3"],
    ["--material", "down>=5", "--held", "1"],
    ["--material", "QR2B2N2P7"],
    ["--pattern", "*/*/*/3P4/*/*/*/*"],
    ["--pattern", "*/*/*/*/4P3/2N5/*/* b"],
    ["--pattern", "r*k*/*/*/*/*/*/*/*", "--pattern", "*/*/*/*/*/*/*/[Kk.]*R*"],
    ["--pattern", "*/*/*/*/*/*/*/*", "--material", "R vs m"],
]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("search")
    out = tmp / "out"
    proc = subprocess.run([sys.executable, str(JUDGE), "--master", "local[2]", "--arbiter",
                           str(ARBITER), "--out", str(out), "--no-collect", *map(str, SHARDS)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    db = tmp / "games.sqlite"
    subprocess.run([str(ARBITER), "import", *map(str, SHARDS), "--db", str(db), "--quiet"],
                   check=True, capture_output=True)
    return tmp, out, db


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = SparkSession.builder.master("local[2]").appName("test-search").getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def arbiter_csv(*args) -> list[dict]:
    proc = subprocess.run([str(ARBITER), *args], capture_output=True, text=True, check=True)
    return list(csv.DictReader(io.StringIO(proc.stdout)))


def arbiter_hits(db, query) -> set:
    """`arbiter search` on the database, as (shard, game in its file, first ply)."""
    where = {r["id"]: (Path(r["file"]).name, int(r["game"]))
             for r in arbiter_csv("export", "--db", str(db), "--format", "csv",
                                  "--columns", "id,file,game")}
    rows = arbiter_csv("search", "--db", str(db), "--quiet", *query, "--format", "csv",
                       "--columns", "id,ply")
    return {(*where[r["id"]], int(r["ply"])) for r in rows}


def test_duckdb_reads_the_position_rows(dataset):
    _, out, _ = dataset
    con = duckdb.connect()
    for shard in SHARDS:
        folder = out / "shards" / shard.name
        marker = json.loads((folder / "_SUCCESS").read_text())
        rows, games, start = con.execute(
            "SELECT count(*), count(DISTINCT game), "
            "count(*) FILTER (WHERE ply = 0 AND board = ?) "
            f"FROM read_parquet('{folder}/positions.parquet')", [START]).fetchone()
        assert games == marker["accepted"] > 0
        if marker["rejected"] == 0:
            assert rows == marker["plies"] + marker["accepted"]
        # Every game of these files starts from the standard position.
        assert start == games
        # The key column is the index's key: the same position, the same key.
        (keys,) = con.execute(
            f"SELECT count(DISTINCT key) FROM read_parquet('{folder}/positions.parquet') "
            "WHERE ply = 0").fetchone()
        assert keys == 1


@pytest.mark.parametrize("query", QUERIES, ids=[" ".join(q) for q in QUERIES])
def test_spark_search_equals_arbiter_search(dataset, spark, query):
    _, out, db = dataset
    want = arbiter_hits(db, query)
    meaning = search.explain(str(ARBITER), query)
    got = {(r["shard"], r["game"], r["ply"]) for r in search.search(spark, str(out), meaning)
           .collect()}
    assert got == want
    assert want, f"{query} matches no game of the shards: a test of nothing"


def test_the_command_line_writes_the_hits_and_refuses_what_it_cannot_answer(dataset):
    tmp, out, db = dataset
    hits = tmp / "hits.csv"
    query = ["--material", "KRPKR"]
    proc = subprocess.run([sys.executable, str(SEARCH), "--master", "local[2]", "--arbiter",
                           str(ARBITER), "--out", str(out), *query, "-o", str(hits)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    want = arbiter_hits(db, query)
    assert f"{len(want)} games" in proc.stdout
    got = set()
    for part in hits.glob("*.csv"):
        got |= {(r["shard"], int(r["game"]), int(r["ply"]))
                for r in csv.DictReader(part.open())}
    assert got == want
    # A sequence needs the moves, which the position rows do not hold: arbiter's usage error.
    proc = subprocess.run([sys.executable, str(SEARCH), "--arbiter", str(ARBITER), "--out",
                           str(out), "--sequence", "Bxh7+ Kxh7"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--sequence cannot be answered" in proc.stderr, proc.stderr
    proc = subprocess.run([sys.executable, str(SEARCH), "--arbiter", str(ARBITER), "--out",
                           str(out), "--pattern", "*/*/*/3P4/*/*/*"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--pattern" in proc.stderr, proc.stderr


def test_the_leaderboard_reduce_equals_stats_players(dataset, spark):
    """judge.py's `players` reduce over the shards' `player_games` rows against `arbiter stats
    players` on a database of the same games: every row, every column."""
    import judge

    _, out, db = dataset
    rows = spark.read.parquet(*[str(out / "shards" / s.name / "player_games.parquet")
                                for s in SHARDS])
    got = {r["player"]: r.asDict() for r in judge.leaderboard(spark, rows).collect()
           if r["games"] >= 1}  # stats players' --min-games 1
    want = {r["player"]: r for r in arbiter_csv("stats", "players", "--db", str(db),
                                                "--format", "csv")}
    assert got.keys() == want.keys() and len(got) > 100
    floats = ("score", "score_pct", "white_score", "black_score", "average_opponent",
              "performance_linear", "performance_perfect", "expected_score")
    for player, w in want.items():
        g = got[player]
        for column in judge.LEADER_COLUMNS:
            have, text = g[column], w[column]
            if text == "":
                assert have is None, (player, column, have)
            elif column in floats:
                assert have == pytest.approx(float(text), abs=1e-6), (player, column)
            elif column in ("player", "first_date", "last_date"):
                assert have == text, (player, column)
            else:
                assert have == int(text), (player, column)
