#!/usr/bin/env python3
"""Compares arbiter's `--analyse` with lichess's own evaluations (issue 25).

Takes every game of the given PGN files that carries lichess's `[%eval]` on every move, imports
them with `arbiter import --analyse` into a temporary database, and compares what arbiter stored
with what the file says:

- labels (inaccuracy, mistake, blunder): the reference labels are recomputed from the file's
  evals with docs/ANALYSIS.md's thresholds (drop of the mover's winning chances 0.1/0.2/0.3,
  scores clamped to +-1000 cp, a mate counting 1000); arbiter's are its stored findings.
  Precision and recall per label (a move counts for a label when both gave it exactly that one);
- per-side game accuracy (lichess's formula on the file's evals, start at +15 cp as lichess
  does) against `analyses.white_accuracy`/`black_accuracy`: mean absolute difference and bias;
- the centipawn slope: least squares of arbiter's cp on lichess's where lichess is within +-400
  cp and neither is a mate;
- throughput: games per CPU-second of the import (user + system time of the child process).

Usage:
  scripts/analysis_bench.py [--arbiter target/release/arbiter] [--jobs 2] [--limit N]
                            [-- EXTRA IMPORT FLAGS...] 
Example:
  scripts/analysis_bench.py --jobs 2
  scripts/analysis_bench.py -- --engine /usr/games/stockfish --engine-nodes 1000000
"""

import argparse
import glob
import math
import os
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile

CORPUS = os.environ.get("ARBITER_CORPUS", "/work/shared/corpus")
MATE_CP = 1000
WC_K = 0.00368208
THRESHOLDS = (0.1, 0.2, 0.3)
LABELS = ("inaccuracy", "mistake", "blunder")

MOVE_RE = re.compile(
    r"(\d+\.+\s*)?([NBRQK]?[a-h]?[1-8]?x?[a-h][1-8](=[NBRQ])?[+#]?|O-O-O[+#]?|O-O[+#]?)"
    r"[?!]*\s*(?:\$\d+\s*)*(\{[^}]*\})?"
)
EVAL_RE = re.compile(r"\[%eval\s+([#\-0-9.]+)")


def split_games(text):
    return [g for g in re.split(r"\n\s*\n(?=\[Event )", text) if g.strip()]


def movetext(game):
    lines = [l for l in game.splitlines() if not l.startswith("[")]
    return " ".join(lines)


def white_cp(token):
    """A lichess eval (White's view) as clamped centipawns."""
    if token.startswith("#"):
        n = int(token[1:])
        return MATE_CP if n > 0 else -MATE_CP
    return max(-MATE_CP, min(MATE_CP, round(float(token) * 100)))


def reference_evals(game):
    """White-view cp after every move (index 0: the start, +15 as lichess), or None."""
    text = movetext(game)
    while True:
        stripped = re.sub(r"\([^()]*\)", " ", text)
        if stripped == text:
            break
        text = stripped
    evals = [15]
    moves = list(MOVE_RE.finditer(text))
    if not moves:
        return None
    for i, m in enumerate(moves):
        comment = m.group(4) or ""
        e = EVAL_RE.search(comment)
        san = m.group(2)
        if e:
            evals.append(white_cp(e.group(1)))
        elif i == len(moves) - 1 and san.endswith("#"):
            evals.append(MATE_CP if i % 2 == 0 else -MATE_CP)
        else:
            return None
    return evals


def wc(cp):
    cp = max(-MATE_CP, min(MATE_CP, cp))
    return 2 / (1 + math.exp(-WC_K * cp)) - 1


def label_of(drop):
    for i in (2, 1, 0):
        if drop >= THRESHOLDS[i]:
            return LABELS[i]
    return None


def labels(evals):
    """{ply: label} from White-view cp, White moving first."""
    out = {}
    for k in range(len(evals) - 1):
        sign = 1 if k % 2 == 0 else -1
        d = wc(sign * evals[k]) - wc(sign * evals[k + 1])
        lab = label_of(d)
        if lab:
            out[k + 1] = lab
    return out


def move_accuracy(before, after):
    loss = before - after
    if loss <= 0:
        return 100.0
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * loss) - 3.1669))


def game_accuracy(evals):
    win = [50 + 50 * wc(cp) for cp in evals]
    n = len(win) - 1
    if n == 0:
        return [None, None]
    window = max(2, min(8, n // 10))
    first = win[: min(window, len(win))]
    repeats = min(window, len(win)) - 2
    sliding = [win[i : i + window] for i in range(len(win) - window + 1)] if len(win) >= window else [win]
    windows = [first] * repeats + sliding

    def sd(xs):
        m = sum(xs) / len(xs)
        return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))

    sums = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    counts = [0, 0]
    for i in range(n):
        w = max(0.5, min(12.0, sd(windows[i])))
        side = i % 2
        before, after = (win[i], win[i + 1]) if side == 0 else (100 - win[i], 100 - win[i + 1])
        a = move_accuracy(before, after)
        sums[side][0] += a * w
        sums[side][1] += w
        sums[side][2] += 1 / max(1.0, a)
        counts[side] += 1
    return [
        (s[0] / s[1] + c / s[2]) / 2 if c and s[1] > 0 else None for s, c in zip(sums, counts)
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", default="target/release/arbiter")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="only the first N eval games")
    ap.add_argument("--files", nargs="*", default=None)
    ap.add_argument("--keep", help="keep the database here")
    ap.add_argument("extra", nargs="*", help="extra import flags (after --)")
    args = ap.parse_args()

    files = args.files or sorted(glob.glob(os.path.join(CORPUS, "games", "lichess", "*.pgn")))
    games, refs = [], []
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            for g in split_games(fh.read()):
                if "%eval" not in g or "[FEN " in g:
                    continue
                ev = reference_evals(g)
                if ev is None:
                    continue
                games.append(g.strip())
                refs.append(ev)
    if args.limit:
        games, refs = games[: args.limit], refs[: args.limit]

    tmp = tempfile.mkdtemp(prefix="arbiter-bench-")
    pgn = os.path.join(tmp, "evals.pgn")
    with open(pgn, "w", encoding="utf-8") as fh:
        fh.write("\n\n".join(games) + "\n")
    db = args.keep or os.path.join(tmp, "a.sqlite")
    if os.path.exists(db):
        os.remove(db)
    cmd = [args.arbiter, "import", pgn, "--db", db, "--quiet", "--jobs", str(args.jobs), "--analyse"]
    cmd += args.extra
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    con = sqlite3.connect(db)
    ids = dict(con.execute("SELECT game_number, id FROM games"))
    tp = {l: 0 for l in LABELS}
    n_ref = {l: 0 for l in LABELS}
    n_ours = {l: 0 for l in LABELS}
    acc_diffs = []
    xs, ys = [], []
    moves = 0
    engine_failed = 0
    for number, ref in enumerate(refs, start=1):
        gid = ids.get(number)
        if gid is None:
            continue
        moves += len(ref) - 1
        ours = {}
        for code, ply in con.execute("SELECT code, ply FROM findings WHERE game_id = ?", (gid,)):
            if code.startswith("analysis.") and code[9:] in LABELS:
                ours[ply] = code[9:]
            if code == "analysis.engine-failed":
                engine_failed += 1
        theirs = labels(ref)
        for lab in theirs.values():
            n_ref[lab] += 1
        for ply, lab in ours.items():
            n_ours[lab] += 1
            if theirs.get(ply) == lab:
                tp[lab] += 1
        row = con.execute(
            "SELECT white_accuracy, black_accuracy FROM analyses WHERE game_id = ?", (gid,)
        ).fetchone()
        if row:
            for a, b in zip(row, game_accuracy(ref)):
                if a is not None and b is not None:
                    acc_diffs.append(a - b)
        for ply, cp, mate in con.execute(
            "SELECT ply, score_cp, mate FROM evaluations WHERE game_id = ?", (gid,)
        ):
            if ply == 0 or ply >= len(ref) or cp is None:
                continue
            r = ref[ply]
            if abs(r) <= 400:
                xs.append(r)
                ys.append(cp)
    settings = con.execute("SELECT settings FROM analyses LIMIT 1").fetchone()
    print(f"games {len(ids)} of {len(refs)}, moves {moves}, import CPU {cpu:.1f} s, "
          f"{len(ids) / max(cpu, 1e-9):.2f} games per CPU-second"
          + (f", engine-failed findings {engine_failed}" if engine_failed else ""))
    print("| label | reference | arbiter | precision | recall |")
    print("|---|---|---|---|---|")
    for lab in reversed(LABELS):
        p = tp[lab] / n_ours[lab] if n_ours[lab] else float("nan")
        r = tp[lab] / n_ref[lab] if n_ref[lab] else float("nan")
        print(f"| {lab} | {n_ref[lab]} | {n_ours[lab]} | {p:.2f} | {r:.2f} |")
    if acc_diffs:
        mad = sum(abs(d) for d in acc_diffs) / len(acc_diffs)
        bias = sum(acc_diffs) / len(acc_diffs)
        print(f"accuracy: {len(acc_diffs)} sides, mean abs diff {mad:.2f}, bias {bias:+.2f} (arbiter - lichess)")
    if xs:
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
        print(f"cp slope (arbiter on lichess, |lichess| <= 400): {slope:.3f} over {len(xs)} positions")
    if settings:
        print(f"settings {settings[0]}")


if __name__ == "__main__":
    main()
