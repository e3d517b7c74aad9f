"""arbiter on Apache Spark: judge shards of PGN on the executors, collect Parquet, reduce.

    spark-submit spark/judge.py --arbiter PATH --out DIR INPUT...   (a cluster)
    python spark/judge.py --arbiter PATH --out DIR INPUT...         (local mode)

The map step is arbiter itself (`arbiter check SHARD --output DIR --format parquet`): each
shard becomes `OUT/shards/NAME/` holding games.parquet, findings.parquet and
player_games.parquet, and last of all the completion marker `_SUCCESS` (the shard's counts
as JSON). A shard folder without the marker is never read; a re-run redoes exactly the shards
that have none. Spark only distributes the shards, moves the bytes and runs the reduce steps
in Spark SQL: the Hive-partitioned dataset (`OUT/dataset/TABLE/year=YYYY/month=MM/`), the
findings by code and month, the player statistics of the top players and the encounters that
ratings read. See spark/README.md.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlparse

MARKER = "_SUCCESS"
TABLES = ("games", "findings", "player_games")


# ---------------------------------------------------------------- shards and names


def shard_name(uri: str) -> str:
    """The shard's folder name: the input's file name, with anything but letters, digits,
    `.`, `-` and `_` replaced by `_`, so that it is the same in a path and in a URI."""
    base = uri.rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"[^A-Za-z0-9._-]", "_", base) or "shard"


def is_local(uri: str) -> bool:
    """A path every process of the job opens with the operating system (local mode, or a
    folder mounted on every node); anything else (hdfs:, s3a:, abfss:...) goes through
    Spark's Hadoop file systems."""
    scheme = urlparse(uri).scheme
    return scheme in ("", "file") or (len(scheme) == 1 and os.name == "nt")


def local_path(uri: str) -> str:
    return urlparse(uri).path if uri.startswith("file:") else uri


# ---------------------------------------------------------------- the map task (executors)


def find_arbiter(arbiter: str) -> str:
    """A program on this executor (arbiter, the engine): the copy shipped with the job
    (`--files` or the driver's addFile), else the name on PATH, else the path as given."""
    from pyspark import SparkFiles

    try:
        shipped = SparkFiles.get(os.path.basename(arbiter))
    except Exception:  # no SparkContext files on this worker
        shipped = None
    if shipped and os.path.isfile(shipped):
        if not os.access(shipped, os.X_OK):
            os.chmod(shipped, 0o755)
        return shipped
    return shutil.which(arbiter) or arbiter


def run_arbiter(cmd: list[str], data: bytes | None, timeout: float | None) -> tuple[int, str]:
    """Runs one arbiter process, stdin fed from `data` when given; returns the exit status
    (negative: killed by that signal) and the end of its standard error."""
    proc = subprocess.run(
        cmd,
        input=data,
        stdin=None if data is not None else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=timeout,
    )
    return proc.returncode, proc.stderr.decode("utf-8", "replace")[-2000:]


def install_shard(local_dir: str, out: str, name: str) -> None:
    """Copies a shard folder made on this executor to a remote OUT (hdfs:, s3:...) through
    pyarrow's file systems: the Parquet files first, the marker last, so that a copy cut
    short is never read as complete."""
    from pyarrow import fs as pafs

    filesystem, root = pafs.FileSystem.from_uri(out.replace("s3a://", "s3://"))
    target = f"{root.rstrip('/')}/shards/{name}"
    filesystem.delete_dir_contents(target, missing_dir_ok=True)
    filesystem.create_dir(target, recursive=True)
    files = sorted(os.listdir(local_dir), key=lambda f: (f == MARKER, f))
    for f in files:
        with open(os.path.join(local_dir, f), "rb") as src, filesystem.open_output_stream(
            f"{target}/{f}"
        ) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)


def judge_shard(task: dict) -> dict:
    """One shard on one executor: arbiter writes OUT/shards/NAME/ (through a temporary
    folder, renamed when complete, marker last). Never raises: whatever goes wrong is the
    shard's error, reported by name, and the other shards go on."""
    name, uri, data = task["name"], task["uri"], task.get("data")
    started = time.monotonic()
    result = {"name": name, "input": uri, "status": "failed", "error": None, "counts": None}
    work = None
    try:
        arbiter = find_arbiter(task["arbiter"])
        remote_out = task["remote_out"]
        if remote_out:
            work = tempfile.mkdtemp(prefix="arbiter-shard-")
            out_dir = work
        else:
            out_dir = os.path.join(local_path(task["out"]), "shards")
        if data is None:
            source = local_path(uri)
            if not os.path.exists(source):
                raise FileNotFoundError(f"{source}: no such file on this executor")
        else:
            source = "-"
        cmd = [arbiter, "check", source, "--output", out_dir, "--format", "parquet"]
        cmd += ["--name", name, "--quiet", "--jobs", str(task["threads"])]
        if task["engine"]:
            # The analysis: one engine process per arbiter worker, so one per task.
            cmd += ["--engine", find_arbiter(task["engine"])]
            if task["engine_nodes"]:
                cmd += ["--engine-nodes", str(task["engine_nodes"])]
        cmd += task["arbiter_args"]
        code, err = run_arbiter(cmd, data, task["timeout"])
        shard_dir = os.path.join(out_dir, name)
        marker = os.path.join(shard_dir, MARKER)
        if code < 0:
            result["error"] = f"arbiter killed by signal {-code}"
        elif code not in (0, 1) or not os.path.exists(marker):
            # 1: some games rejected, which is a finding, not a failure of the shard.
            last = err.strip().splitlines()[-1:] or [f"exit status {code}"]
            result["error"] = f"arbiter exit status {code}: {last[0]}"
        else:
            with open(marker) as f:
                result["counts"] = json.load(f)
            if remote_out:
                install_shard(shard_dir, task["out"], name)
            result["status"] = "done"
    except subprocess.TimeoutExpired:
        result["error"] = f"arbiter killed after the shard timeout ({task['timeout']} s)"
    except Exception as e:  # noqa: BLE001 - any failure is this shard's, by name
        result["error"] = f"{type(e).__name__}: {e}"
    finally:
        if work:
            shutil.rmtree(work, ignore_errors=True)
    result["seconds"] = round(time.monotonic() - started, 3)
    return result


# ---------------------------------------------------------------- the driver


class Job:
    def __init__(self, spark, args):
        self.spark = spark
        self.sc = spark.sparkContext
        self.args = args
        self.out = args.out.rstrip("/")
        jvm = self.sc._jvm
        self.hadoop_path = jvm.org.apache.hadoop.fs.Path
        self.conf = self.sc._jsc.hadoopConfiguration()

    def fs(self, uri: str):
        return self.hadoop_path(uri).getFileSystem(self.conf)

    def exists(self, uri: str) -> bool:
        return self.fs(uri).exists(self.hadoop_path(uri))

    def expand(self, inputs: list[str]) -> tuple[list[str], list[dict]]:
        """Input shards as Spark's file systems see them: globs and folders expanded (files
        whose names start with `.` or `_` skipped); an input that names nothing is a failed
        shard."""
        found, missing = [], []
        for pattern in inputs:
            path = self.hadoop_path(pattern)
            statuses = path.getFileSystem(self.conf).globStatus(path)
            if not statuses:
                missing.append(
                    {
                        "name": shard_name(pattern),
                        "input": pattern,
                        "status": "failed",
                        "error": "no such file",
                        "counts": None,
                        "seconds": 0.0,
                    }
                )
                continue
            for st in statuses:
                if st.isDirectory():
                    fs = st.getPath().getFileSystem(self.conf)
                    for child in fs.listStatus(st.getPath()):
                        n = child.getPath().getName()
                        if child.isFile() and not n.startswith((".", "_")):
                            found.append(child.getPath().toString())
                else:
                    found.append(st.getPath().toString())
        return sorted(dict.fromkeys(found)), missing

    def task(self, name: str, uri: str) -> dict:
        a = self.args
        return {
            "name": name,
            "uri": uri,
            "out": self.out,
            "arbiter": a.arbiter,
            "threads": a.threads,
            "timeout": a.shard_timeout,
            "arbiter_args": a.arbiter_args,
            "engine": a.engine,
            "engine_nodes": a.engine_nodes,
            "remote_out": a.remote_io or not is_local(self.out),
        }

    def run_shard(self, name: str, uri: str) -> dict:
        """One Spark job for one shard, so that a shard whose task fails past Spark's retries
        (an executor lost again and again, bytes that cannot be read) fails alone."""
        self.sc.setJobGroup(f"shard {name}", f"arbiter on {uri}")
        task = self.task(name, uri)
        try:
            if is_local(uri) and not self.args.remote_io:
                rdd = self.sc.parallelize([task], 1)
            else:
                # Spark reads the bytes (any Hadoop file system); arbiter gets them on stdin.
                rdd = self.sc.binaryFiles(uri, 1).map(lambda kv: dict(task, data=kv[1]))
            results = rdd.map(judge_shard).collect()
            if len(results) != 1:
                raise RuntimeError(f"{len(results)} results for one shard")
            return results[0]
        except Exception as e:  # noqa: BLE001 - the Spark job of this shard failed
            msg = str(e).strip().splitlines()
            return {
                "name": name,
                "input": uri,
                "status": "failed",
                "error": f"Spark job failed: {msg[0] if msg else type(e).__name__}",
                "counts": None,
                "seconds": 0.0,
            }

    def map(self, inputs: list[str]) -> list[dict]:
        uris, results = self.expand(inputs)
        names: dict[str, str] = {}
        for uri in uris:
            n = shard_name(uri)
            if n in names:
                sys.exit(f"judge.py: two inputs make the same shard name {n!r}: {names[n]} and {uri}")
            names[n] = uri
        todo = []
        for n, uri in names.items():
            marker = f"{self.out}/shards/{n}/{MARKER}"
            if not self.args.force and self.exists(marker):
                results.append(
                    {"name": n, "input": uri, "status": "skipped", "error": None,
                     "counts": self.read_marker(marker), "seconds": 0.0}
                )
            else:
                todo.append((n, uri))
        for program in (self.args.arbiter, self.args.engine):
            if program and program != "none" and os.path.isfile(program):
                self.sc.addFile(os.path.abspath(program))
        workers = self.args.parallel or max(1, self.sc.defaultParallelism // self.args.threads)
        lock = threading.Lock()
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            for r in pool.map(lambda t: self.run_shard(*t), todo):
                with lock:
                    results.append(r)
                    status = r["status"] if r["status"] == "done" else f"FAILED: {r['error']}"
                    print(f"shard {r['name']}: {status} ({r['seconds']} s)", flush=True)
        return sorted(results, key=lambda r: r["name"])

    def read_marker(self, uri: str) -> dict:
        """A shard's counts. Not through textFile: Hadoop's input formats skip files whose
        names start with `_`, the marker's among them."""
        if is_local(uri):
            with open(local_path(uri)) as f:
                return json.load(f)
        stream = self.fs(uri).open(self.hadoop_path(uri))
        try:
            text = self.sc._jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8")
        finally:
            stream.close()
        return json.loads(text)

    # ------------------------------------------------------------ collect and reduce

    def collect(self, done: list[str]) -> None:
        """One Hive-partitioned dataset from the complete shards (marker present), written
        to a temporary folder and renamed over the previous one when whole."""
        from pyspark.sql import functions as F

        dataset, temp = f"{self.out}/dataset", f"{self.out}/dataset.tmp"
        fs = self.fs(self.out)
        fs.delete(self.hadoop_path(temp), True)
        shard = F.element_at(F.split(F.input_file_name(), "/"), -2)
        month = F.lpad(F.col("month").cast("string"), 2, "0")

        def read(table):
            paths = [f"{self.out}/shards/{n}/{table}.parquet" for n in done]
            return self.spark.read.parquet(*paths).withColumn("shard", shard)

        games = read("games")
        dates = games.select("shard", "game", "year", "month")
        findings = read("findings").join(dates, ["shard", "game"], "left")
        tables = {"games": games, "findings": findings, "player_games": read("player_games")}
        for table, df in tables.items():
            (df.withColumn("month", month)
               .write.mode("overwrite")
               .partitionBy("year", "month")
               .parquet(f"{temp}/{table}"))
        fs.delete(self.hadoop_path(dataset), True)
        if not fs.rename(self.hadoop_path(temp), self.hadoop_path(dataset)):
            raise RuntimeError(f"could not rename {temp} to {dataset}")

    def reduce(self, top: int) -> dict:
        """Spark SQL over the dataset: the three summaries, written under OUT/reduce/."""
        spark = self.spark
        for table in TABLES:
            spark.read.parquet(f"{self.out}/dataset/{table}").createOrReplaceTempView(table)
        queries = {
            "findings_by_month": """
                SELECT code, severity, year, month, count(*) AS findings,
                       count(DISTINCT shard, game) AS games
                FROM findings GROUP BY code, severity, year, month
                ORDER BY code, year, month""",
            "top_players": f"""
                SELECT player, count(*) AS games,
                       sum(CASE WHEN score = 1 THEN 1 ELSE 0 END) AS wins,
                       sum(CASE WHEN score = 0.5 THEN 1 ELSE 0 END) AS draws,
                       sum(CASE WHEN score = 0 THEN 1 ELSE 0 END) AS losses,
                       sum(CASE WHEN score IS NULL THEN 1 ELSE 0 END) AS unfinished,
                       sum(score) AS score,
                       sum(CASE WHEN colour = 'white' THEN 1 ELSE 0 END) AS white_games,
                       sum(CASE WHEN colour = 'white' THEN score END) AS white_score,
                       sum(CASE WHEN colour = 'black' THEN 1 ELSE 0 END) AS black_games,
                       sum(CASE WHEN colour = 'black' THEN score END) AS black_score,
                       avg(rating) AS average_rating,
                       avg(opponent_rating) AS average_opponent_rating,
                       min(year) AS first_year, max(year) AS last_year
                FROM player_games WHERE duplicate = 0
                GROUP BY player ORDER BY games DESC, player LIMIT {int(top)}""",
            # What the ratings read, one row per rated game from White's side: the pool
            # solve needs only these (and period systems the date).
            "encounters": """
                SELECT player AS white, opponent AS black, score AS white_score,
                       rating AS white_rating, opponent_rating AS black_rating,
                       date, year, month, tc_class, shard, game_id
                FROM player_games
                WHERE colour = 'white' AND score IS NOT NULL AND duplicate = 0""",
            # The pool's sufficient statistics: per pair of players (in name order), the
            # games, the first player's points and the draws. Maximum likelihood over
            # these gives the same ratings as over the games themselves.
            "pairs": """
                SELECT least(white, black) AS a, greatest(white, black) AS b,
                       count(*) AS games,
                       sum(CASE WHEN white < black THEN white_score
                                WHEN white > black THEN 1 - white_score
                                ELSE 0.5 END) AS a_score,
                       sum(CASE WHEN white_score = 0.5 THEN 1 ELSE 0 END) AS draws
                FROM encounters GROUP BY least(white, black), greatest(white, black)""",
        }
        shown = {}
        for name, sql in queries.items():
            df = spark.sql(sql)
            df.write.mode("overwrite").parquet(f"{self.out}/reduce/{name}")
            spark.read.parquet(f"{self.out}/reduce/{name}").createOrReplaceTempView(name)
            shown[name] = spark.table(name).count()
        # The leaderboard of every player (`arbiter stats players`), and each player's
        # analysis summary over the analysed games.
        tables = {"players": leaderboard(spark, spark.table("player_games")),
                  "player_analysis": player_analysis(spark, spark.table("games"))}
        for name, df in tables.items():
            df.write.mode("overwrite").parquet(f"{self.out}/reduce/{name}")
            shown[name] = spark.read.parquet(f"{self.out}/reduce/{name}").count()
        return shown


# ---------------------------------------------------------------- the leaderboard reduce

# FIDE Rating Regulations table 8.1.1 as arbiter keeps it (p in hundredths -> dp).
FIDE_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "src",
                          "stats", "ratings", "fide_table_8_1_1.csv")


def fide_table(path: str = FIDE_TABLE) -> list[int]:
    with open(path) as f:
        rows = [line.strip().split(",") for line in f.read().splitlines()[1:] if line.strip()]
    table = [int(dp) for _, dp in rows]
    if len(table) != 101:
        raise ValueError(f"{path}: {len(table)} rows, table 8.1.1 has 101")
    return table


def expected(own: float, opponent: float) -> float:
    """The logistic expected score (FIDE's table 8.1.2's curve without its 400-point cap)."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - own) / 400.0))


def perfect(opponents: list[int], score: float) -> float:
    """The rating whose expected score against these opponents is the score, by bisection to
    1e-9; the average opponent -/+ 800 at 0 % and 100 % (FIDE's rule)."""
    n = len(opponents)
    average = sum(opponents) / n
    if score <= 0.0:
        return average - 800.0
    if score >= n:
        return average + 800.0
    lo, hi = -10_000.0, 14_000.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if sum(expected(mid, o) for o in opponents) < score:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-9:
            break
    return (lo + hi) / 2.0


def date_text(key: int | None) -> str | None:
    """A date key YYYYMMDD (0 for an unknown month or day) as arbiter prints it."""
    if not key:
        return None
    y, m, d = key // 10_000, key // 100 % 100, key % 100
    part = lambda v: f"{v:02}" if v else "??"  # noqa: E731
    return f"{y:04}.{part(m)}.{part(d)}"


def leader_row(row, table: list[int]) -> dict:
    """One player's leaderboard row from the Spark aggregate: the performance figures of
    `arbiter stats players` (docs/STATS.md) over the rated games collected."""
    games = row["wins"] + row["draws"] + row["losses"]
    out = {k: row[k] for k in ("player", "wins", "draws", "losses", "unfinished",
                               "white_games", "white_score", "black_games", "black_score")}
    score = row["wins"] + row["draws"] / 2
    out.update(games=games, score=float(score),
               score_pct=100.0 * score / games if games else None,
               first_date=date_text(row["first"]), last_date=date_text(row["last"]))
    rated = row["rated"] or []
    n = len(rated)
    out["rated_games"] = n
    out.update(average_opponent=None, performance_fide=None, performance_linear=None,
               performance_perfect=None, expected_score=None)
    if n:
        opponents = [r["opponent_rating"] for r in rated]
        w = sum(1 for r in rated if r["score"] >= 1.0)
        d = sum(1 for r in rated if 0.0 < r["score"] < 1.0)
        lost = n - w - d
        average = sum(opponents) / n
        hundredths = min((100 * (2 * w + d) + n) // (2 * n), 100)
        both = [r for r in rated if r["rating"] is not None]
        out.update(
            average_opponent=average,
            # Rust's f64::round: halves away from zero (ratings are positive).
            performance_fide=int(average + 0.5) + table[hundredths],
            performance_linear=average + 400.0 * (w - lost) / n,
            performance_perfect=perfect(opponents, w + d / 2),
            expected_score=sum(expected(r["rating"], r["opponent_rating"]) for r in both)
            if both else None,
        )
    return out


LEADERBOARD_SQL = """
    SELECT player,
           count(CASE WHEN score = 1 THEN 1 END) AS wins,
           count(CASE WHEN score = 0.5 THEN 1 END) AS draws,
           count(CASE WHEN score = 0 THEN 1 END) AS losses,
           count(CASE WHEN score IS NULL THEN 1 END) AS unfinished,
           count(CASE WHEN colour = 'white' THEN score END) AS white_games,
           coalesce(sum(CASE WHEN colour = 'white' THEN score END), 0D) AS white_score,
           count(CASE WHEN colour = 'black' THEN score END) AS black_games,
           coalesce(sum(CASE WHEN colour = 'black' THEN score END), 0D) AS black_score,
           min(date_key) AS first, max(date_key) AS last,
           -- The performance's games: finished, no forfeit (a decisive game without a move),
           -- against an opponent with a rating tag.
           collect_list(CASE WHEN score IS NOT NULL
                              AND NOT (ply_count = 0 AND score <> 0.5)
                              AND opponent_rating BETWEEN 0 AND 65535
                             THEN named_struct('score', score,
                                               'opponent_rating', opponent_rating,
                                               'rating', CASE WHEN rating BETWEEN 0 AND 65535
                                                              THEN rating END) END) AS rated
    FROM (SELECT *, CASE WHEN year > 0 THEN year * 10000 + coalesce(month, 0) * 100
                                            + coalesce(day, 0) END AS date_key
          FROM player_games WHERE duplicate = 0)
    GROUP BY player"""

LEADER_COLUMNS = ("player", "games", "wins", "draws", "losses", "unfinished", "score",
                  "score_pct", "white_games", "white_score", "black_games", "black_score",
                  "rated_games", "average_opponent", "performance_fide",
                  "performance_linear", "performance_perfect", "expected_score",
                  "first_date", "last_date")


def leaderboard(spark, player_games):
    """`arbiter stats players` for every player of the `player_games` rows (a DataFrame):
    the counts in Spark SQL, each player's performance from his rated games on the
    executors. Names as written: without a database there are no persons."""
    from pyspark.sql.types import (DoubleType, LongType, StringType, StructField,
                                   StructType)

    player_games.createOrReplaceTempView("leader_input")
    if __name__ != "__main__":
        # Imported (spark/search.py, the tests): the executors import this file by name.
        spark.sparkContext.addPyFile(os.path.abspath(__file__))
    table = fide_table()
    ints = {"games", "wins", "draws", "losses", "unfinished", "white_games", "black_games",
            "rated_games", "performance_fide"}
    schema = StructType([
        StructField(c, StringType() if c in ("player", "first_date", "last_date")
                    else LongType() if c in ints else DoubleType()) for c in LEADER_COLUMNS])
    sums = spark.sql(LEADERBOARD_SQL.replace("FROM player_games", "FROM leader_input"))
    rows = sums.rdd.map(lambda r: leader_row(r, table)).map(
        lambda d: tuple(d[c] for c in LEADER_COLUMNS))
    return spark.createDataFrame(rows, schema)


# ---------------------------------------------------------------- the analysis reduce

PLAYER_ANALYSIS_SQL = """
    SELECT player, count(*) AS analysed_games,
           avg(accuracy) AS accuracy, avg(acpl) AS acpl,
           100 * sum(inaccuracies) / sum(CASE WHEN inaccuracies IS NOT NULL THEN moves END)
               AS inaccuracies_per_100,
           100 * sum(mistakes) / sum(CASE WHEN mistakes IS NOT NULL THEN moves END)
               AS mistakes_per_100,
           100 * sum(blunders) / sum(CASE WHEN blunders IS NOT NULL THEN moves END)
               AS blunders_per_100,
           sum(moves) AS moves
    FROM (SELECT white AS player, white_accuracy AS accuracy, white_acpl AS acpl,
                 white_inaccuracies AS inaccuracies, white_mistakes AS mistakes,
                 white_blunders AS blunders,
                 CASE WHEN black_first THEN floor(ply_count / 2)
                      ELSE ceil(ply_count / 2) END AS moves
          FROM analysis_input
          UNION ALL
          SELECT black, black_accuracy, black_acpl, black_inaccuracies, black_mistakes,
                 black_blunders,
                 CASE WHEN black_first THEN ceil(ply_count / 2)
                      ELSE floor(ply_count / 2) END
          FROM analysis_input)
    GROUP BY player"""


def player_analysis(spark, games):
    """Each player's analysis summary over his analysed games (docs/ANALYSIS.md's one
    definition): accuracy and ACPL the means of the per-game figures, each game once;
    inaccuracies, mistakes and blunders per 100 of the player's own moves (a side's plies),
    a count the analysis does not give (NULL) out of both sums, NULL when no game gives it."""
    from pyspark.sql import functions as F

    analysed = (games.where(F.col("analysis_engine").isNotNull())
                     .withColumn("black_first",
                                 F.coalesce(F.split(F.col("start_fen"), " ").getItem(1) == "b",
                                            F.lit(False))))
    analysed.createOrReplaceTempView("analysis_input")
    return spark.sql(PLAYER_ANALYSIS_SQL)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="judge.py",
        description="Judge PGN shards with arbiter on Spark; collect Parquet; reduce.",
    )
    p.add_argument("--arbiter", required=True,
                   help="the arbiter binary: a local path (shipped to the executors) or a "
                        "name found on the executors' PATH or in --files")
    p.add_argument("--out", required=True, help="output folder or URI (shared by all nodes)")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="PGN shards: paths, globs, folders, or hdfs:/s3a:/... URIs")
    p.add_argument("--master", help="Spark master when run with python (default: local[*])")
    p.add_argument("--threads", type=int, default=1,
                   help="arbiter --jobs per shard; set spark.task.cpus to match (default 1)")
    p.add_argument("--parallel", type=int, default=0,
                   help="shards judged at once (default: the cores / --threads)")
    p.add_argument("--shard-timeout", type=float, default=None,
                   help="kill arbiter on a shard after this many seconds (the shard fails)")
    p.add_argument("--top", type=int, default=20, help="players in the top-players table")
    p.add_argument("--force", action="store_true",
                   help="judge every shard again, even those with a completion marker")
    p.add_argument("--no-collect", action="store_true",
                   help="only the map step: no dataset, no reduce")
    p.add_argument("--arbiter-arg", dest="arbiter_args", action="append", default=[],
                   help="one more argument for arbiter check (repeat: --arbiter-arg=--no-laws)")
    p.add_argument("--engine",
                   help="analyse every shard with this UCI engine (arbiter check --engine: one "
                        "engine per task; a local path is shipped to the executors; 'none': "
                        "arbiter's own search)")
    p.add_argument("--engine-nodes", type=int, default=None,
                   help="the engine's node budget per position (default arbiter's: 1000000)")
    p.add_argument("--remote-io", action="store_true",
                   help="treat local inputs and OUT as remote ones: read each shard through Spark's "
                        "Hadoop file systems into arbiter's stdin and copy its Parquet out through "
                        "pyarrow, as for hdfs:/s3a: URIs (tests that route on one machine)")
    args = p.parse_args(argv)
    if args.threads < 1:
        p.error("--threads must be at least 1")
    return args


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("arbiter-judge")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    job = Job(spark, args)
    started = time.monotonic()
    results = job.map(args.inputs)
    map_seconds = time.monotonic() - started
    done = [r["name"] for r in results if r["status"] in ("done", "skipped")]
    failed = [r for r in results if r["status"] == "failed"]
    report = {"shards": results, "map_seconds": round(map_seconds, 3)}
    if not args.no_collect and done:
        job.collect(done)
        report["reduce"] = job.reduce(args.top)
        report["total_seconds"] = round(time.monotonic() - started, 3)
    totals = {}
    for r in results:
        for k, v in (r["counts"] or {}).items():
            if isinstance(v, int):
                totals[k] = totals.get(k, 0) + v
    report["totals"] = totals
    text = json.dumps(report, indent=2) + "\n"
    report_uri = f"{job.out}/report.json"
    if is_local(report_uri):
        os.makedirs(local_path(job.out), exist_ok=True)
        with open(local_path(report_uri), "w") as f:
            f.write(text)
    else:
        out = job.fs(report_uri).create(job.hadoop_path(report_uri), True)
        out.write(bytearray(text.encode()))
        out.close()
    print(f"{len(done)} shards complete ({sum(r['status'] == 'skipped' for r in results)} "
          f"from an earlier run), {len(failed)} failed; totals {json.dumps(totals)}")
    for r in failed:
        print(f"failed shard {r['name']} ({r['input']}): {r['error']}", file=sys.stderr)
    spark.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
