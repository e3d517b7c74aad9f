#!/usr/bin/env python3
"""Labels games with Stockfish the way lichess analyses them today: every position at a fixed
node budget (default 1,000,000), one thread, `ucinewgame` per game. Writes PGN in the format of
`$ARBITER_CORPUS/analysis/lichess-12-stockfish15-1M.pgn`: after each move
`{ [%eval E] [%best UCI] }` (E from White's side, pawns or #N), a leading `{ [%best UCI] }`
for the start position, no comment after a move that ends the game on the board.

Reproducible: the games are the first --games of --pgn (in file order) whose Site is not in
--skip (a PGN whose games are already labelled), or with --sample a seeded draw across kinds
(below); the budget is in nodes, Stockfish runs with one thread and its default hash, and its
version is printed and written in each game's `Annotator` tag.

--sample SEED (issue 33's development and held-out sets): --per-kind games (default 8) of each
of five kinds, drawn with random.Random(SEED) from the shared corpus, games of 20 to
--max-plies plies without a Variant or FEN tag and not in --skip:
  bullet, blitz, rapid/classical: `games/lichess/lichess_2021-10_first999.pgn` and
      `lichess_db_1000k.pgn`, by the Event tag;
  twic: `games/twic/*.pgn`;  master: `games/otb-pgnmentor/*.pgn`.
The draws are interleaved kind by kind (bullet, blitz, rapid, twic, master, bullet, ...), and
the i-th game of that order (from 0) goes to the development set when i is even, to the
held-out set when odd: `--out` gets `-dev.pgn` and `-heldout.pgn` appended. The split is fixed
before any game is searched; each game also gets a `[ReferenceSet "dev|heldout"]` tag and a
`[ReferenceKind "..."]` tag. The games are searched shortest first, so that a partial run
holds as many whole games as it can, from both halves; a second run with the same --out
goes on after the games already written. `--half dev` and `--half heldout` label one half
each, so two runs (one a half, the same --out) share a loaded machine's idle time. Stockfish is a separate program, run at `nice -n 19` (--nice); /usr/games/pgn-extract turns the
moves into SAN and UCI. Stops cleanly (whole games only) at --deadline (HH:MM, UTC).

  nice -n 10 scripts/stockfish_reference.py --sample 33 --skip \
      $ARBITER_CORPUS/analysis/lichess-12-stockfish15-1M.pgn --max-plies 120 \
      --out ~/.cache/arbiter-ci/analysis-reference/sf15-1M    # the issue-33 sets (about 4,000 positions)

  scripts/stockfish_reference.py --pgn $ARBITER_CORPUS/games/lichess/lichess_2021-10_first999.pgn \
      --skip $ARBITER_CORPUS/analysis/lichess-12-stockfish15-1M.pgn --games 20 --with-eval \
      --out /tmp/reference.pgn --deadline 11:05
"""

import argparse
import datetime
import glob
import os
import random
import re
import subprocess
import sys


def games_of(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    return [g if g.startswith("[") else "[" + g for g in re.split(r"\n\n(?=\[)", text.strip()) if g.strip()]


def site(game):
    m = re.search(r'\[Site "([^"]*)"\]', game)
    return m.group(1) if m else None


def moves_as(game, fmt):
    """The game's main-line moves via pgn-extract, as SAN (`san`) or UCI (`uci`)."""
    out = subprocess.run(
        ["/usr/games/pgn-extract", "-s", "-C", "-N", "-V", f"-W{fmt}", "--nomovenumbers", "--noresults", "-w100000"],
        input=game.encode(),
        capture_output=True,
        check=True,
    ).stdout.decode()
    body = out.split("\n\n", 1)[1] if "\n\n" in out else out
    return body.split()


class Engine:
    def __init__(self, path, nice):
        self.p = subprocess.Popen(["nice", "-n", str(nice), path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.name = None
        self.send("uci")
        for line in self.lines("uciok"):
            if line.startswith("id name "):
                self.name = line[8:].strip()
        self.send("setoption name Threads value 1")
        self.ready()

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def lines(self, until):
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("stockfish stopped")
            line = line.strip()
            yield line
            if line.split(" ")[0] == until:
                return

    def ready(self):
        self.send("isready")
        for _ in self.lines("readyok"):
            pass

    def search(self, uci_moves, nodes):
        self.send("position startpos" + (" moves " + " ".join(uci_moves) if uci_moves else ""))
        self.send(f"go nodes {nodes}")
        score = None
        best = None
        for line in self.lines("bestmove"):
            w = line.split()
            if w[0] == "info" and "score" in w and "lowerbound" not in w and "upperbound" not in w:
                i = w.index("score")
                score = (w[i + 1], int(w[i + 2]))
            if w[0] == "bestmove":
                best = w[1]
        return score, best


def white_eval(score, white_to_move):
    kind, value = score
    if not white_to_move:
        value = -value
    if kind == "mate":
        return f"#{value}"
    return f"{value / 100:.2f}"


KINDS = ("bullet", "blitz", "rapid", "twic", "master")


def kind_of(path, game):
    if "/lichess/" in path:
        ev = re.search(r'\[Event "([^"]*)"\]', game)
        ev = ev.group(1).lower() if ev else ""
        for k in ("bullet", "blitz"):
            if k in ev:
                return k
        return "rapid" if ("rapid" in ev or "classical" in ev) else None
    return "twic" if "/twic/" in path else "master"


def rough_plies(game):
    """Plies from the last move number (cheap; pgn-extract confirms the chosen games)."""
    body = re.sub(r"\{[^}]*\}", " ", "\n".join(l for l in game.splitlines() if not l.startswith("[")))
    nums = re.findall(r"(\d+)\.(\.\.)?", body)
    if not nums:
        return 0
    n, black = nums[-1]
    return 2 * int(n) - (1 if not black else 0)


def sample(seed, per_kind, skip, max_plies, corpus):
    files = sorted(
        glob.glob(os.path.join(corpus, "games", "lichess", "lichess_2021-10_first999.pgn"))
        + glob.glob(os.path.join(corpus, "games", "lichess", "lichess_db_1000k.pgn"))
        + glob.glob(os.path.join(corpus, "games", "twic", "*.pgn"))
        + glob.glob(os.path.join(corpus, "games", "otb-pgnmentor", "*.pgn"))
    )
    pools = {k: [] for k in KINDS}
    for f in files:
        for g in games_of(f):
            if site(g) in skip or '[Variant "' in g or '[FEN "' in g or not 20 <= rough_plies(g) <= max_plies:
                continue
            k = kind_of(f, g)
            if k:
                pools[k].append(g)
    rng = random.Random(seed)
    drawn = {k: rng.sample(pools[k], per_kind) for k in KINDS}
    order = []
    for i in range(per_kind):
        for k in KINDS:
            order.append((k, drawn[k][i]))
    picked = [(k, g, "dev" if i % 2 == 0 else "heldout") for i, (k, g) in enumerate(order)]
    # Searched shortest first (stable): on a loaded machine a partial run then holds the most
    # whole games, from both halves; which half a game is in does not depend on this order.
    return sorted(picked, key=lambda t: rough_plies(t[1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pgn", help="games to label (or --sample)")
    ap.add_argument("--sample", type=int, metavar="SEED", help="a seeded draw across kinds (see above)")
    ap.add_argument("--per-kind", type=int, default=8)
    ap.add_argument("--corpus", default=os.environ.get("ARBITER_CORPUS", "/work/shared/corpus"))
    ap.add_argument("--skip", help="PGN whose games (by Site) are left out")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--first", type=int, default=0, help="leave out this many eligible games first")
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--with-eval", action="store_true", help="only games with lichess's [%%eval] on their moves")
    ap.add_argument("--max-plies", type=int, default=160, help="leave out longer games")
    ap.add_argument("--engine", default="/usr/games/stockfish")
    ap.add_argument("--out", required=True)
    ap.add_argument("--deadline", help="HH:MM UTC: start no game after it")
    ap.add_argument("--nice", type=int, default=19, help="Stockfish's niceness added to this script's")
    ap.add_argument("--half", choices=("dev", "heldout"), help="with --sample: label only this half (two runs, one a half, share a loaded machine's idle time)")
    ap.add_argument("--list", action="store_true", help="print the chosen games and stop")
    args = ap.parse_args()

    skip = {site(g) for g in games_of(args.skip)} if args.skip else set()
    chosen = []
    if args.sample is not None:
        picked = sample(args.sample, args.per_kind, skip, args.max_plies, args.corpus)
    for g in ([] if args.sample is not None else games_of(args.pgn)):
        if site(g) in skip or '[Variant "' in g or '[FEN "' in g:
            continue
        if args.with_eval and "%eval" not in g:
            continue
        if len(moves_as(g, "uci")) > args.max_plies:
            continue
        chosen.append(g)
    chosen = [(None, g, None) for g in chosen[args.first : args.first + args.games]]
    if args.sample is not None:
        chosen = [t for t in picked if args.half in (None, t[2])]
    if args.list:
        for kind, g, part in chosen:
            print(part, kind, rough_plies(g), site(g), re.search(r'\[White "([^"]*)"', g).group(1), re.search(r'\[Date "([^"]*)"', g).group(1))
        return
    engine = Engine(args.engine, args.nice)
    print(f"engine {engine.name}, {args.nodes} nodes, {len(chosen)} games", file=sys.stderr)
    deadline = None
    if args.deadline:
        h, m = map(int, args.deadline.split(":"))
        now = datetime.datetime.now(datetime.timezone.utc)
        deadline = now.replace(hour=h, minute=m, second=0, microsecond=0)
    # A run goes on where an earlier one with the same --out stopped: games already written
    # (by Site) are kept and not searched again, and new ones are appended.
    paths = {s: f"{args.out}-{s}.pgn" for s in ("dev", "heldout")} if args.sample is not None else {None: args.out}
    done = set()
    for path in paths.values():
        if os.path.exists(path):
            done |= {site(g) for g in games_of(path)}
    if done:
        print(f"{len(done)} games already labelled in --out: going on after them", file=sys.stderr)
    outs = {s: open(path, "a") for s, path in paths.items()}
    if True:
        for n, (kind, g, part) in enumerate(chosen, 1):
            out = outs[part]
            if site(g) in done:
                continue
            if deadline and datetime.datetime.now(datetime.timezone.utc) >= deadline:
                print(f"deadline reached after {n - 1} games", file=sys.stderr)
                break
            try:
                san, uci = moves_as(g, "san"), moves_as(g, "uci")
            except subprocess.CalledProcessError:
                san, uci = [], None
            if len(san) != len(uci or [0]) or not san:
                print(f"game {n}/{len(chosen)}: left out, pgn-extract cannot read it: {site(g)}", file=sys.stderr)
                continue
            engine.send("ucinewgame")
            engine.ready()
            comments = []
            for ply in range(len(uci) + 1):
                score, best = engine.search(uci[:ply], args.nodes)
                if best in (None, "(none)"):
                    comments.append(None)
                    continue
                text = f"[%best {best}]"
                if ply > 0:
                    text = f"[%eval {white_eval(score, ply % 2 == 0)}] " + text
                comments.append(text)
            headers = [l for l in g.splitlines() if l.startswith("[")]
            if part:
                headers.append(f'[ReferenceSet "{part}"]')
                headers.append(f'[ReferenceKind "{kind}"]')
            headers.append(f'[Annotator "{engine.name}, {args.nodes} nodes, 1 thread"]')
            result = re.search(r'\[Result "([^"]*)"\]', g).group(1)
            parts = [f"{{ {comments[0]} }}"] if comments[0] else []
            for i, mv in enumerate(san):
                num = f"{i // 2 + 1}." if i % 2 == 0 else f"{i // 2 + 1}..."
                parts.append(f"{num} {mv}")
                if comments[i + 1]:
                    parts.append(f"{{ {comments[i + 1]} }}")
            parts.append(result)
            out.write("\n".join(headers) + "\n\n" + " ".join(parts) + "\n\n")
            out.flush()
            print(f"game {n}/{len(chosen)}: {len(uci)} plies, {kind or ''} {part or ''} {site(g)}", file=sys.stderr, flush=True)
    engine.send("quit")


if __name__ == "__main__":
    main()
