"""The Spark job end to end in local[2] mode on small shards of the corpus, checked with DuckDB
against `arbiter check` on the same files; the faults (a bad shard, a partly written shard,
a re-run); and the README's two DuckDB queries.

    ARBITER_CORPUS=... ARBITER_BIN=target/release/arbiter python -m pytest spark/test_judge.py
"""

import csv
import json
import shutil
import subprocess
import sys

import duckdb
import pytest

from paths import ARBITER, CORPUS, JUDGE  # noqa: E402
SHARDS = [
    CORPUS / "games" / "lichess" / "lichess_2021-10_first999.pgn",
    CORPUS / "games" / "lichess" / "lichess_DannyTheDonkey_2019-01-29.pgn",
    CORPUS / "games" / "otb" / "pgn4web-lon09r5.pgn",
]
# The README's two queries, run here as written there.
FINDINGS_BY_CODE = """
SELECT code, count(*) AS findings
FROM read_parquet('{out}/dataset/findings/*/*/*.parquet', hive_partitioning = true)
GROUP BY code ORDER BY findings DESC, code"""
SCORE_BY_YEAR = """
SELECT year, count(*) AS games, sum(score) AS points, round(avg(score), 3) AS score
FROM read_parquet('{out}/dataset/player_games/*/*/*.parquet', hive_partitioning = true)
WHERE player = '{player}' AND score IS NOT NULL
GROUP BY year ORDER BY year"""


def judge(out, *inputs, extra=()):
    cmd = [sys.executable, str(JUDGE), "--master", "local[2]", "--arbiter", str(ARBITER),
           "--out", str(out), *extra, *map(str, inputs)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900)


def check(path, tmp):
    """`arbiter check`'s summary and findings for one file."""
    summary, findings = tmp / f"{path.name}.json", tmp / f"{path.name}.jsonl"
    subprocess.run([str(ARBITER), "check", str(path), "--quiet", "--jobs", "1",
                    "--summary-json", str(summary), "--findings", str(findings)],
                   stdout=subprocess.DEVNULL, check=False)
    rows = [json.loads(line) for line in findings.read_text().splitlines()]
    return json.loads(summary.read_text()), rows


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("spark")
    out = tmp / "out"
    # A shard cut short: a zstd stream truncated half-way cannot be read to its end.
    whole = subprocess.run(["zstd", "-q", "-c", str(SHARDS[0])], capture_output=True,
                           check=True).stdout
    bad = tmp / "cut.pgn.zst"
    bad.write_bytes(whole[: len(whole) // 2])
    # A shard left half-written by a killed task: a folder without its marker.
    partial = out / "shards" / SHARDS[1].name
    partial.mkdir(parents=True)
    (partial / "games.parquet").write_bytes(b"not parquet: never read")
    proc = judge(out, *SHARDS, bad, tmp / "missing.pgn")
    return tmp, out, bad, proc


def test_a_failing_shard_is_reported_by_name_and_the_others_complete(run):
    tmp, out, bad, proc = run
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"failed shard {bad.name} ({bad}" in proc.stderr or \
        f"failed shard {bad.name} (file:{bad}" in proc.stderr, proc.stderr
    assert "failed shard missing.pgn" in proc.stderr and "no such file" in proc.stderr
    report = json.loads((out / "report.json").read_text())
    status = {r["name"]: r["status"] for r in report["shards"]}
    assert status == {**{s.name: "done" for s in SHARDS}, bad.name: "failed",
                      "missing.pgn": "failed"}
    errors = {r["name"]: r["error"] for r in report["shards"]}
    assert "exit status 2" in errors[bad.name], errors
    for s in SHARDS:
        assert (out / "shards" / s.name / "_SUCCESS").is_file()
    assert not (out / "shards" / bad.name).exists()
    # No temporary folder is left behind by the failed shard.
    assert sorted(p.name for p in (out / "shards").iterdir()) == sorted(s.name for s in SHARDS)


def test_counts_and_findings_equal_check(run):
    tmp, out, _, _ = run
    con = duckdb.connect()
    for shard in SHARDS:
        summary, rows = check(shard, tmp)
        marker = json.loads((out / "shards" / shard.name / "_SUCCESS").read_text())
        assert marker["games"] == summary["games"]
        assert marker["accepted"] == summary["accepted"]
        q = "SELECT count(*) FROM read_parquet('{}/dataset/{}/*/*/*.parquet', " \
            "hive_partitioning = true) WHERE shard = ?"
        games = con.execute(q.format(out, "games"), [shard.name]).fetchone()[0]
        assert games == summary["accepted"] > 0
        players = con.execute(q.format(out, "player_games"), [shard.name]).fetchone()[0]
        assert players == 2 * summary["accepted"]
        by_code = dict(con.execute(
            f"SELECT code, count(*) FROM read_parquet('{out}/dataset/findings/*/*/*.parquet', "
            "hive_partitioning = true) WHERE shard = ? GROUP BY code", [shard.name]).fetchall())
        assert by_code == summary["findings"]
        got = sorted(con.execute(
            f"SELECT game, line, \"column\", ply, code, severity, message "
            f"FROM read_parquet('{out}/dataset/findings/*/*/*.parquet', "
            "hive_partitioning = true) WHERE shard = ?", [shard.name]).fetchall(),
            key=repr)
        want = sorted(((r["game"], r["line"], r["column"], r["ply"], r["code"],
                        r["severity"], r["message"]) for r in rows), key=repr)
        assert got == want


def test_the_dataset_is_hive_partitioned_by_year_and_month(run):
    _, out, _, _ = run
    months = sorted(p.name for p in (out / "dataset" / "games" / "year=2021").iterdir())
    assert months == ["month=10"]
    con = duckdb.connect()
    (n,) = con.execute(
        f"SELECT count(*) FROM read_parquet('{out}/dataset/games/year=2021/month=10/*.parquet')"
    ).fetchone()
    assert n == 999


def test_the_readme_queries(run):
    _, out, _, _ = run
    con = duckdb.connect()
    by_code = con.execute(FINDINGS_BY_CODE.format(out=out)).fetchall()
    assert by_code and all(n > 0 for _, n in by_code)
    years = con.execute(SCORE_BY_YEAR.format(out=out, player="DannyTheDonkey")).fetchall()
    assert [y for y, *_ in years] == [2017]
    (_, games, points, score) = years[0]
    (want_games, want_points) = con.execute(
        "SELECT count(*), sum(CASE WHEN white = 'DannyTheDonkey' THEN s ELSE 1 - s END) FROM ("
        "SELECT white, CASE coalesce(lawful_result, result) WHEN '1-0' THEN 1.0 "
        "WHEN '0-1' THEN 0.0 WHEN '1/2-1/2' THEN 0.5 END AS s "
        f"FROM read_parquet('{out}/dataset/games/*/*/*.parquet', hive_partitioning = true) "
        "WHERE 'DannyTheDonkey' IN (white, black)) WHERE s IS NOT NULL").fetchone()
    assert (games, points) == (want_games, want_points)
    assert games > 0 and score == round(points / games, 3)


def test_the_spark_sql_reduce(run):
    _, out, _, _ = run
    con = duckdb.connect()
    report = json.loads((out / "report.json").read_text())
    accepted = sum(r["counts"]["accepted"] for r in report["shards"] if r["counts"])
    (encounters,) = con.execute(
        f"SELECT count(*) FROM read_parquet('{out}/reduce/encounters/*.parquet')").fetchone()
    (finished,) = con.execute(
        f"SELECT count(*) FROM read_parquet('{out}/dataset/games/*/*/*.parquet', "
        "hive_partitioning = true) WHERE coalesce(lawful_result, result) "
        "IN ('1-0', '0-1', '1/2-1/2')").fetchone()
    assert encounters == finished <= accepted
    (pairs, games) = con.execute(
        f"SELECT count(*), sum(games) FROM read_parquet('{out}/reduce/pairs/*.parquet')").fetchone()
    assert games == encounters and 0 < pairs <= encounters
    top = con.execute(
        f"SELECT player, games, white_games + black_games, wins + draws + losses + unfinished "
        f"FROM read_parquet('{out}/reduce/top_players/*.parquet') ORDER BY games DESC").fetchall()
    assert top[0][0] == "DannyTheDonkey"
    assert all(g == by_colour == by_result for _, g, by_colour, by_result in top)
    (findings,) = con.execute(
        f"SELECT sum(findings) FROM read_parquet('{out}/reduce/findings_by_month/*.parquet')"
    ).fetchone()
    assert findings == report["totals"]["findings"]
    # The leaderboard of every player (spark/test_search.py compares it with stats players).
    (players, danny) = con.execute(
        f"SELECT count(*), max(games) FILTER (WHERE player = 'DannyTheDonkey') "
        f"FROM read_parquet('{out}/reduce/players/*.parquet')").fetchone()
    assert players == report["reduce"]["players"] >= len(top)
    assert danny == top[0][1]


def ratings(source, csv_path):
    """`arbiter ratings --encounters` (pool, largest group): stderr, and the list by player."""
    proc = subprocess.run([str(ARBITER), "ratings", "--encounters", str(source), "--system",
                           "pool", "--largest-group", "-o", str(csv_path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    with open(csv_path, newline="") as f:
        rows = {r["player"]: (float(r["rating"]), int(r["games"]))
                for r in csv.DictReader(f) if r["rating"]}
    return proc.stderr, rows


def test_pool_ratings_in_arbiter_over_the_reduce(run):
    """The pool solve runs in arbiter over Spark's `encounters` (spark/README.md says why),
    and gives the same list as arbiter reading the dataset's `player_games` rows itself."""
    tmp, out, _, _ = run
    (encounters,) = duckdb.connect().execute(
        f"SELECT count(*) FROM read_parquet('{out}/reduce/encounters/*.parquet')").fetchone()
    stderr, from_spark = ratings(out / "reduce" / "encounters", tmp / "pool-spark.csv")
    assert f"{encounters} games, 0 without a result" in stderr, stderr
    _, from_rows = ratings(out / "dataset" / "player_games", tmp / "pool-rows.csv")
    # The largest connected group: DannyTheDonkey and the 26 players of his shard's games
    # who met him or each other (the lichess sample's other players met once, in pairs).
    assert len(from_spark) == 27 and "DannyTheDonkey" in from_spark
    assert from_spark.keys() == from_rows.keys()
    for player, (rating, games) in from_spark.items():
        assert games == from_rows[player][1], player
        assert abs(rating - from_rows[player][0]) < 1e-6, player


def test_the_remote_route_gives_the_same_shard(run, tmp_path):
    """`--remote-io`: the shard's bytes come through Spark's Hadoop file system (binaryFiles)
    into arbiter's stdin and the Parquet goes out through pyarrow, as for hdfs:/s3a: URIs;
    the shard's counts and findings equal those of the local route."""
    _, out, _, _ = run
    remote = tmp_path / "remote"
    proc = judge(remote, f"file://{SHARDS[1]}", extra=["--remote-io", "--no-collect"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    name = SHARDS[1].name
    marker = json.loads((remote / "shards" / name / "_SUCCESS").read_text())
    local = json.loads((out / "shards" / name / "_SUCCESS").read_text())
    assert marker["games"] > 100 and marker["findings"] > 0
    assert marker == local
    con = duckdb.connect()
    query = "SELECT code, ply, game FROM read_parquet('{}') ORDER BY game, ply, code"
    assert con.execute(query.format(remote / "shards" / name / "findings.parquet")).fetchall() \
        == con.execute(query.format(out / "shards" / name / "findings.parquet")).fetchall()


def test_a_rerun_redoes_only_the_shards_without_a_marker(run):
    tmp, out, bad, _ = run
    # Mend the bad shard; everything else is complete and stays as it was.
    shutil.copy(SHARDS[2], tmp / "mended.pgn")
    before = (out / "shards" / SHARDS[0].name / "games.parquet").stat().st_mtime_ns
    proc = judge(out, *SHARDS, tmp / "mended.pgn")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads((out / "report.json").read_text())
    status = {r["name"]: r["status"] for r in report["shards"]}
    assert status == {**{s.name: "skipped" for s in SHARDS}, "mended.pgn": "done"}
    assert (out / "shards" / SHARDS[0].name / "games.parquet").stat().st_mtime_ns == before
    con = duckdb.connect()
    shards = con.execute(
        f"SELECT DISTINCT shard FROM read_parquet('{out}/dataset/games/*/*/*.parquet', "
        "hive_partitioning = true) ORDER BY shard").fetchall()
    assert [s for (s,) in shards] == sorted([s.name for s in SHARDS] + ["mended.pgn"])
