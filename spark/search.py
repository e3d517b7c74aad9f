"""Position search over a judged dataset as a Spark job: the games that reached a position,
a material balance or a pattern of pieces, with the first ply at which each matches, the
answer `arbiter search` gives on the same games.

    python spark/search.py --out OUT --arbiter PATH [FEN] [--material M] [--held N]
        [--pattern P ...] [--ignore-side] [--ignore-castling] [--ignore-ep] [--mirror]
        [-o hits.csv|hits.parquet]

The query is parsed by arbiter (`arbiter search --explain ...` prints what it means over
the position rows: the keys, the material rule, the patterns as regular expressions over
the board text), so the two read a query text the one way; a bad query is arbiter's usage
error (exit 2). Spark then scans `OUT/shards/*/positions.parquet` of the complete shards
(those with their marker): see spark/README.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from judge import MARKER

# The board text's squares (the first 71 characters: ranks 8 to 1 joined by '/'), Q R B N P.
ROLES = "QRBNP"
VALUES = [9, 5, 3, 3, 1]


def explain(arbiter: str, query_args: list[str]) -> dict:
    """What arbiter makes of the query; exits with arbiter's status and message when it
    refuses it."""
    proc = subprocess.run([arbiter, "search", "--explain", "--quiet", *query_args],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        sys.exit(proc.returncode)
    return json.loads(proc.stdout)


def counts(F, side: str) -> list:
    """One side's counts (Q R B N P) from the board text, as Spark columns."""
    squares = F.substring("board", 1, 71)
    letters = ROLES if side == "white" else ROLES.lower()
    return [F.length(squares) - F.length(F.regexp_replace(squares, ch, "")) for ch in letters]


def material_rule(F, rule: dict):
    """The material form of `search --explain` as a Spark condition."""
    white, black = counts(F, "white"), counts(F, "black")
    if "signature" in rule:
        cond = F.lit(True)
        for have, want in ((white, rule["signature"]["white"]),
                           (black, rule["signature"]["black"])):
            if want is not None:
                for c, n in zip(have, want):
                    cond = cond & (c == n)
        return cond
    if "diffs" in rule:
        cond = F.lit(False)
        for diff in rule["diffs"]:
            one = F.lit(True)
            for w, b, d in zip(white, black, diff):
                one = one & (w - b == d)
            cond = cond | one
        return cond
    down = rule["down"]
    points = lambda side: sum(c * v for c, v in zip(side, VALUES))  # noqa: E731
    gap = points(white) - points(black)
    side = (down["side"] or "").lower()
    if side == "white":
        return -gap >= down["points"]
    if side == "black":
        return gap >= down["points"]
    return F.abs(gap) >= down["points"]


def complete_shards(spark, out: str) -> list[str]:
    """The positions files of the shards whose marker is present."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    root = jvm.org.apache.hadoop.fs.Path(f"{out}/shards")
    fs = root.getFileSystem(conf)
    paths = []
    if not fs.exists(root):
        return paths
    for st in fs.listStatus(root):
        name = st.getPath().getName()
        if st.isDirectory() and not name.startswith((".", "_")):
            base = st.getPath().toString()
            if fs.exists(jvm.org.apache.hadoop.fs.Path(f"{base}/{MARKER}")):
                paths.append(f"{base}/positions.parquet")
    return sorted(paths)


def search(spark, out: str, meaning: dict):
    """The matching games: shard, game and the first matching ply, ordered by shard and game."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    paths = complete_shards(spark, out)
    if not paths:
        sys.exit(f"search.py: no complete shard under {out}/shards")
    shard = F.element_at(F.split(F.input_file_name(), "/"), -2)
    rows = spark.read.parquet(*paths).withColumn("shard", shard)
    here = F.lit(True)
    if meaning["keys"] is not None:
        here = here & F.col("key").isin(meaning["keys"])
    for regex in meaning["patterns"]:
        here = here & F.col("board").rlike(regex)
    if meaning["material"] is not None:
        material = material_rule(F, meaning["material"])
        held = int(meaning["held"])
        if held > 1:
            # The material holds on this ply and the held - 1 after it, all in the game.
            span = (Window.partitionBy("shard", "game").orderBy("ply")
                    .rowsBetween(0, held - 1))
            rows = (rows.withColumn("m", material.cast("int"))
                        .withColumn("held", (F.min("m").over(span) == 1)
                                    & (F.count("m").over(span) == held)))
            material = F.col("held")
        here = here & material
    hits = (rows.where(here)
                .groupBy("shard", "game")
                .agg(F.min("ply").alias("ply"))
                .orderBy("shard", "game"))
    return hits


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    p = argparse.ArgumentParser(
        prog="search.py",
        description="Position search over the position rows of a judged dataset, on Spark.")
    p.add_argument("--out", required=True, help="the judge.py output folder or URI")
    p.add_argument("--arbiter", required=True, help="the arbiter binary (parses the query)")
    p.add_argument("--master", help="Spark master when run with python (default: local[*])")
    p.add_argument("-o", "--output", help="write the hits here (.csv or .parquet; a folder)")
    p.add_argument("fen", nargs="?", help="an exact position (FEN)")
    p.add_argument("--material")
    p.add_argument("--held")
    # Passed on for arbiter to refuse (the position rows cannot answer them), as it says.
    p.add_argument("--pawns")
    p.add_argument("--sequence")
    p.add_argument("--pattern", action="append", default=[])
    for flag in ("--ignore-side", "--ignore-castling", "--ignore-ep", "--mirror"):
        p.add_argument(flag, action="store_true")
    args = p.parse_args(argv)
    query = [args.fen] if args.fen else []
    for flag in ("material", "held", "pawns", "sequence"):
        if getattr(args, flag) is not None:
            query += [f"--{flag}", getattr(args, flag)]
    for pattern in args.pattern:
        query += ["--pattern", pattern]
    for flag in ("ignore_side", "ignore_castling", "ignore_ep", "mirror"):
        if getattr(args, flag):
            query.append("--" + flag.replace("_", "-"))
    return args, query


def main(argv: list[str]) -> int:
    args, query = parse_args(argv)
    meaning = explain(args.arbiter, query)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("arbiter-search")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    hits = search(spark, args.out.rstrip("/"), meaning)
    if args.output:
        hits = hits.cache()
        writer = hits.coalesce(1).write.mode("overwrite")
        if args.output.endswith(".parquet"):
            writer.parquet(args.output)
        else:
            writer.option("header", True).csv(args.output)
        print(f"{hits.count()} games")
    else:
        rows = hits.collect()
        print(f"{len(rows)} games")
        for r in rows:
            print(f"{r['shard']}\t{r['game']}\t{r['ply']}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
