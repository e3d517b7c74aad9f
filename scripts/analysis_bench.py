#!/usr/bin/env python3
"""Measures arbiter's analysis against a reference, both tiers, in one command (issue 33).

References:
- `stockfish` (the goal): PGN files with Stockfish's evaluation and best move after every move,
  `{ [%eval E] [%best UCI] }`, as `scripts/stockfish_reference.py` writes them and as
  `$ARBITER_CORPUS/analysis/lichess-12-stockfish15-1M.pgn` holds (Stockfish 15.1, 1,000,000
  nodes a position). Its labels follow lichess's rules (docs/ANALYSIS.md), the best-move rule
  included.
- `lichess` (a comparison): the games of `$ARBITER_CORPUS/games/lichess/*.pgn` with lichess's own
  `[%eval]` on every move (2019-2021 Stockfish, other scale, no best move: the best-move rule
  cannot be applied to them).

For each reference the games are imported into a temporary database, then analysed by
`arbiter analyse --db` with arbiter's own search (tier 1) and, with --engine, by the two tiers
(tier 2). Printed per tier: precision and recall per label (a move counts for a label when both
gave it exactly that one), per-side game accuracy mean |difference| and bias, games per
CPU-second of the analyse command (user + system time of it and its engine), and the engine's
positions and nodes against evaluating every position at the same budget.

  ARBITER_CORPUS=/work/shared/corpus scripts/analysis_bench.py --arbiter target/release/arbiter \\
      --jobs 2 --engine /usr/games/stockfish [--ref PGN ...] [--no-lichess]
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
LABELS = ("inaccuracy", "mistake", "blunder")
CEIL = 1000
# The second look's band (`search::analysis::REFINE_FROM`, `REFINE_MARK`).
REFINE_FROM = 4.0
REFINE_MARK = 5.0


def split_games(text):
    return [g for g in re.split(r"\n\s*\n(?=\[Event )", text.strip()) if g.strip()]


def movetext(game):
    return " ".join(l for l in game.splitlines() if not l.startswith("["))


TOKEN_RE = re.compile(r"\{([^}]*)\}|(\d+\.+)|([^\s{}]+)")


def moves_and_comments(game):
    """[(san, comment)] of the main line, and the comment before the first move."""
    text = movetext(game)
    while True:
        t = re.sub(r"\([^()]*\)", " ", text)
        if t == text:
            break
        text = t
    lead, out = "", []
    for m in TOKEN_RE.finditer(text):
        if m.group(1) is not None:
            if out:
                out[-1][1] += m.group(1)
            else:
                lead += m.group(1)
        elif m.group(3):
            tok = m.group(3)
            if tok in ("1-0", "0-1", "1/2-1/2", "*") or tok.startswith("$"):
                continue
            out.append([tok, ""])
    return lead, out


def parse_eval(comment):
    m = re.search(r"\[%eval\s+([#\-0-9.]+)", comment)
    if not m:
        return None
    t = m.group(1)
    if t.startswith("#"):
        return ("mate", int(t[1:]))
    return ("cp", round(float(t) * 100))


def parse_best(comment):
    m = re.search(r"\[%best\s+(\S+)\]", comment)
    return m.group(1) if m else None


# ---- lichess's rules (docs/ANALYSIS.md; the same as src/search/lichess.rs) -------------------


def wc(cp):
    return max(-1.0, min(1.0, 2 / (1 + math.exp(-0.00368208 * cp)) - 1))


def ceiled(e):
    kind, v = e
    if kind == "mate":
        return -CEIL if v < 0 else CEIL
    return max(-CEIL, min(CEIL, v))


def win_pct(e):
    return 50 + 50 * wc(ceiled(e))


def flip(e):
    return (e[0], -e[1])


def label(before, after, best_played):
    """lichess's label of a move from the mover's evals before and after (mover's view)."""
    if best_played:
        return None
    if before[0] == "cp" and after[0] == "cp":
        d = wc(before[1]) - wc(after[1])
        for t, l in ((0.3, "blunder"), (0.2, "mistake"), (0.1, "inaccuracy")):
            if t <= d:
                return l
    pm = before[1] if before[0] == "mate" else None
    nm = after[1] if after[0] == "mate" else None
    prev_cp = before[1] if before[0] == "cp" else 0
    next_cp = after[1] if after[0] == "cp" else 0
    if pm is None and nm is not None and nm < 0:
        return "inaccuracy" if prev_cp < -999 else "mistake" if prev_cp < -700 else "blunder"
    if pm is not None and pm > 0 and (nm is None or nm < 0):
        return "inaccuracy" if next_cp > 999 else "mistake" if next_cp > 700 else "blunder"
    return None


def move_accuracy(before, after):
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1))


def game_accuracy(white_cps):
    win = [50 + 50 * wc(max(-CEIL, min(CEIL, c))) for c in white_cps]
    n = len(win) - 1
    if n == 0:
        return [None, None]
    window = max(2, min(8, n // 10))
    first = win[: min(window, len(win))]
    windows = [first] * (min(window, len(win)) - 2) + (
        [win[i : i + window] for i in range(len(win) - window + 1)] if len(win) >= window else [win]
    )

    def sd(xs):
        m = sum(xs) / len(xs)
        return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))

    sums, counts = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [0, 0]
    for i in range(n):
        w = max(0.5, min(12.0, sd(windows[i])))
        side = i % 2
        b, a = (win[i], win[i + 1]) if side == 0 else (100 - win[i], 100 - win[i + 1])
        acc = move_accuracy(b, a)
        sums[side][0] += acc * w
        sums[side][1] += w
        sums[side][2] += 1 / max(1.0, acc)
        counts[side] += 1
    return [(s[0] / s[1] + c / s[2]) / 2 if c and s[1] > 0 else None for s, c in zip(sums, counts)]


# ---- references ------------------------------------------------------------------------------


def uci_moves(pgn_path):
    out = subprocess.run(
        ["/usr/games/pgn-extract", "-s", "-C", "-N", "-V", "-Wuci", "--nomovenumbers", "--noresults", "-w100000", pgn_path],
        capture_output=True, text=True, check=True,
    ).stdout
    return [g.split("\n\n", 1)[1].split() if "\n\n" in g else [] for g in split_games(out)]


def reference(game, uci, with_best):
    """Per move: (label or None); the White-view cp curve (start +15) for accuracy. None when
    some move lacks an eval (other than a final mate or stalemate)."""
    lead, moves = moves_and_comments(game)
    evals = [("cp", 15)]
    bests = [parse_best(lead)]
    for i, (san, comment) in enumerate(moves):
        e = parse_eval(comment)
        if e is None:
            if i == len(moves) - 1:
                if san.endswith("#"):
                    evals.append(("mated", 1 if i % 2 == 0 else -1))
                    bests.append(None)
                    continue
                e = ("cp", 0)
            else:
                return None
        evals.append(e)
        bests.append(parse_best(comment))
    labels, white_cps = {}, []
    for k, e in enumerate(evals):
        if e[0] == "mated":
            white_cps.append(CEIL * e[1])
        else:
            white_cps.append(ceiled(e))
    for k in range(1, len(evals)):
        white = k % 2 == 1
        before = evals[k - 1]
        after = evals[k]
        if after[0] == "mated":
            continue  # the move gave mate
        if not white:
            before, after = flip(before), flip(after)
        best_played = with_best and uci is not None and bests[k - 1] is not None and bests[k - 1] == uci[k - 1]
        l = label(before, after, best_played)
        if l:
            labels[k] = l
    return labels, white_cps, bests, evals


# ---- running arbiter ---------------------------------------------------------------------------


def run_timed(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), p.stdout


def move_uci(bits):
    """A stored move (`chess::Move::to_u16`: from, to, kind; castling as king takes rook) in UCI."""
    if bits is None:
        return None
    sq = lambda i: "abcdefgh"[i % 8] + str(i // 8 + 1)
    f, t, kind = bits & 63, (bits >> 6) & 63, bits >> 12
    if kind == 2:
        t = (f // 8) * 8 + (6 if t % 8 > f % 8 else 2)
    return sq(f) + sq(t) + ("nbrq"[kind - 4] if kind >= 4 else "")


def show_eval(e):
    return None if e is None else (f"#{e[1]}" if e[0] == "mate" else str(e[1]))


def dump_moves(con, gid, number, ref, uci, out):
    """One TSV line per move of a game for `--dump`: the reference's label and evaluations
    (mover's view) beside the own tier's, with its depth, nodes and deep flags."""
    ref_labels, white_cps, bests, ref_evals = ref
    ev = {p: r for p, *r in con.execute(
        "SELECT ply, score_cp, mate, depth, nodes, deep, best_move FROM evaluations WHERE game_id = ?", (gid,))}
    ours = {ply: code.split(".")[1] for code, ply in con.execute(
        "SELECT code, ply FROM findings WHERE game_id = ? AND code IN ('analysis.inaccuracy', 'analysis.mistake', 'analysis.blunder')", (gid,))}
    for ply in range(1, len(white_cps)):
        k = ply - 1
        if k not in ev or ply not in ev or uci is None or k >= len(uci):
            continue
        own = [("mate", ev[p][1]) if ev[p][1] is not None else ("cp", ev[p][0]) for p in (k, ply)]
        # Stored from White's side; the mover's view before and after.
        sign = 1 if k % 2 == 0 else -1
        b, a = [(e[0], sign * e[1]) for e in own]
        rb, ra = [None if e is None or e[0] == "mated" else (e[0], sign * e[1]) for e in (ref_evals[k], ref_evals[ply])]
        out.write("\t".join(str(x) for x in (
            number, ply, ref_labels.get(ply, "-"), ours.get(ply, "-"), show_eval(rb), show_eval(ra),
            int(bests[k] == uci[k]) if bests[k] else "-", show_eval(b), show_eval(a),
            ev[k][2], ev[ply][2], ev[k][3], ev[ply][3], ev[k][4], ev[ply][4], int(move_uci(ev[k][5]) == uci[k]),
        )) + "\n")


DUMP_HEADER = ("game\tply\tref\tours\tref_before\tref_after\tref_best_played\town_before\town_after\t"
               "depth_before\tdepth_after\tnodes_before\tnodes_after\tdeep_before\tdeep_after\town_best_played\n")


def measure(db, refs, cpu, title, budget, uci=None, dump=None):
    con = sqlite3.connect(db)
    by_number = {n: gid for gid, n in con.execute("SELECT id, game_number FROM games")}
    tp = {l: 0 for l in LABELS}
    ours_n = {l: 0 for l in LABELS}
    ref_n = {l: 0 for l in LABELS}
    diffs = []
    covered = {l: [0, 0] for l in LABELS}
    settled = {l: 0 for l in LABELS}
    engine_pos = positions = engine_nodes = 0
    games = 0
    for number, (ref_labels, white_cps, *_) in refs.items():
        gid = by_number.get(number)
        if gid is None:
            continue
        if dump is not None:
            dump_moves(con, gid, number, refs[number], uci.get(number) if uci else None, dump)
        row = con.execute(
            "SELECT white_accuracy, black_accuracy, engine_positions, engine_nodes, positions FROM analyses WHERE game_id = ?",
            (gid,),
        ).fetchone()
        if row is None:
            continue
        games += 1
        ours = {}
        for code, ply in con.execute(
            "SELECT code, ply FROM findings WHERE game_id = ? AND code IN ('analysis.inaccuracy', 'analysis.mistake', 'analysis.blunder')",
            (gid,),
        ):
            ours[ply] = code.split(".")[1]
        for l in LABELS:
            ours_n[l] += sum(1 for v in ours.values() if v == l)
            ref_n[l] += sum(1 for v in ref_labels.values() if v == l)
            tp[l] += sum(1 for p, v in ours.items() if v == l and ref_labels.get(p) == l)
        ref_acc = game_accuracy(white_cps)
        for side in (0, 1):
            if row[side] is not None and ref_acc[side] is not None:
                diffs.append(row[side] - ref_acc[side])
        flags = dict(con.execute("SELECT ply, engine FROM evaluations WHERE game_id = ?", (gid,)))
        deep = dict(con.execute("SELECT ply, deep FROM evaluations WHERE game_id = ?", (gid,)))
        for ply, l in ref_labels.items():
            covered[l][1] += 1
            covered[l][0] += bool(flags.get(ply - 1) and flags.get(ply))
            settled[l] += bool(deep.get(ply - 1) and deep.get(ply))
        engine_pos += row[2] or 0
        engine_nodes += row[3] or 0
        positions += row[4] or 0
    print(f"\n{title}: {games} games")
    for l in LABELS:
        p = tp[l] / ours_n[l] if ours_n[l] else float("nan")
        r = tp[l] / ref_n[l] if ref_n[l] else float("nan")
        print(f"  {l:<11} precision {p:.2f} recall {r:.2f}  (ours {ours_n[l]}, reference {ref_n[l]}, both {tp[l]})")
    if diffs:
        mad = sum(abs(d) for d in diffs) / len(diffs)
        bias = sum(diffs) / len(diffs)
        print(f"  accuracy    mean |diff| {mad:.2f}, bias {bias:+.2f} ({len(diffs)} sides)")
    # A UCI engine is arbiter's child, killed (not waited for) at exit: its CPU is not here.
    print(f"  throughput  {games / cpu:.2f} games per CPU-second ({cpu:.1f} CPU-s of arbiter; an engine's not counted)")
    if engine_pos:
        print("  triage      reference labels whose move the engine evaluated: " + ", ".join(
            f"{l} {c[0]}/{c[1]} ({c[0] / max(1, c[1]):.2f})" for l, c in covered.items()))
        print(
            f"  engine      {engine_pos} of {positions} positions ({engine_pos / positions:.3f}), "
            f"{engine_nodes} nodes = {engine_nodes / (positions * budget):.3f} of every position at {budget}"
        )
    else:
        print("  triage      reference labels whose two positions arbiter settled deep: " + ", ".join(
            f"{l} {settled[l]}/{c[1]} ({settled[l] / max(1, c[1]):.2f})" for l, c in covered.items()))


def stm_view(e, ply):
    """A White-view evaluation ("cp"/"mate", v) as the side to move at `ply` sees it."""
    return (e[0], e[1] if ply % 2 == 0 else -e[1])


def drop_of(before, after):
    """lichess's label metric in Win% points: raw centipawns when both are centipawns."""
    if before[0] == after[0] == "cp":
        return 50 * (wc(before[1]) - wc(after[1]))
    return win_pct(before) - win_pct(after)


def suspect(before, after, mark_drop):
    """The first tier's marking rule (`search::analysis::suspects`), mover's view."""
    return (
        drop_of(before, after) >= mark_drop
        or (before[0] == "mate" and before[1] > 0 and not (after[0] == "mate" and after[1] >= 0))
        or (before[0] == "cp" and after[0] == "mate" and after[1] < 0)
    )


class Sweep:
    """The engine's sweep (`EngineSpec::sweep_nodes`): a quick search of every position of a
    game in order after `ucinewgame`, as the second tier runs it. Per position: the White-view
    evaluation (None when the game is over on the board), the best move and the nodes."""

    def __init__(self, path, nodes, refine_nodes=0):
        self.nodes = nodes
        self.refine_nodes = refine_nodes
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.wait("uciok")
        self.send("setoption name Threads value 1")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait(self, word):
        out = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("the sweep's engine stopped")
            out.append(line.split())
            if out[-1] and out[-1][0] == word:
                return out

    def search(self, uci, ply, nodes):
        """(White-view evaluation or None, best move, nodes) of the position after `ply` moves."""
        self.send("position startpos" + (" moves " + " ".join(uci[:ply]) if ply else ""))
        self.send(f"go nodes {nodes}")
        score, got, best = None, 0, None
        for w in self.wait("bestmove"):
            if w and w[0] == "info" and "score" in w and "lowerbound" not in w and "upperbound" not in w:
                k = w.index("score")
                score = ("mate" if w[k + 1] == "mate" else "cp", int(w[k + 2]))
            if w and w[0] == "info" and "nodes" in w:
                got = int(w[w.index("nodes") + 1])
            if w and w[0] == "bestmove":
                best = w[1]
        if best in (None, "(none)") or score is None:
            return (None, None, got)
        return (stm_view(score, ply), best, got)  # stm_view twice is White's view

    def game(self, uci):
        self.send("ucinewgame")
        self.send("isready")
        self.wait("readyok")
        return [self.search(uci, ply, self.nodes) for ply in range(len(uci) + 1)]


def simulate(db, refs, mark_drop, sweep=None, uci=None, budget=1_000_000):
    """Tier 2 simulated from the reference itself, on the tier-1 database: the engine's
    evaluations at the positions it would search at its budget are taken to be the
    reference's. Those positions are, with `sweep` (a `Sweep`), both ends of every move its
    curve marks (the rule of `search::analysis` with a sweep); without, what the first tier
    marks at `mark_drop` on arbiter's settled curve and the ply before and after each. The
    sweep's evaluations are the curve elsewhere (arbiter's without a sweep), and the sweep's
    nodes count in the cost. Only valid when the reference was made with the tier's engine
    and budget (Stockfish 15.1, 1,000,000 nodes, one thread); an upper bound on precision (a
    real run's hash history differs, and labels near a threshold flip). Also prints the
    triage's recall: the reference labels whose two positions the engine would search."""
    con = sqlite3.connect(db)
    by_number = {n: gid for gid, n in con.execute("SELECT id, game_number FROM games")}
    tp = {l: 0 for l in LABELS}
    ours_n = {l: 0 for l in LABELS}
    ref_n = {l: 0 for l in LABELS}
    covered = {l: 0 for l in LABELS}
    diffs, setn, posn, swept, oracle = [], 0, 0, 0, 0
    for number, (labels, ref_white, bests, _) in refs.items():
        gid = by_number.get(number)
        if gid is None:
            continue
        ev = {p: (c, m) for p, c, m in con.execute("SELECT ply, score_cp, mate FROM evaluations WHERE game_id = ?", (gid,))}
        if not ev:
            continue
        nply = len(ref_white) - 1

        def own(p):
            c, m = ev[p]
            return ("mate", m) if m is not None else ("cp", c)

        marked, skipped = set(), set()
        if sweep is not None:
            row = sweep.game(uci[number])
            swept += sum(r[2] for r in row)
            white = [r[0] if r[0] is not None else own(p) for p, r in enumerate(row)]

            def drop_at(k, mark):
                return suspect(stm_view(white[k], k), flip(stm_view(white[k + 1], k + 1)), mark)

            moves = set()
            for k in range(nply):
                if row[k][0] is not None and row[k][1] != uci[number][k] and drop_at(k, mark_drop):
                    moves.add(k)
            # The second look (`search::analysis::refine`): moves between REFINE_FROM and the
            # mark, the sweep's best not played, both ends searched again at refine_nodes.
            if sweep.refine_nodes:
                candidates = [k for k in range(nply) if k not in moves and row[k][0] is not None
                              and row[k][1] != uci[number][k] and drop_at(k, REFINE_FROM)]
                done = set()
                for k in candidates:
                    for p in (k, k + 1):
                        if p in done:
                            continue
                        r = sweep.search(uci[number], p, sweep.refine_nodes)
                        swept += r[2]
                        done.add(p)
                        if r[0] is not None:
                            row[p] = r
                            white[p] = r[0]
                    if row[k][1] != uci[number][k] and drop_at(k, REFINE_MARK):
                        moves.add(k)
            for k in moves:
                marked.update((k, k + 1))
            # An end wanted only by a move the engine (here the reference) found best is not
            # searched: lichess gives that move no label (`only_after` in search::analysis).
            for k in moves:
                if k + 1 not in moves and not (k + 1 == nply) and bests[k] == uci[number][k]:
                    skipped.add(k + 1)
        else:
            white = [own(p) for p in range(nply + 1)]
            for k in range(nply):
                if suspect(stm_view(white[k], k), flip(stm_view(white[k + 1], k + 1)), mark_drop):
                    marked.update(p for p in (k - 1, k, k + 1) if 0 <= p <= nply)
        own_labels = {ply: code.split(".")[1] for code, ply in con.execute(
            "SELECT code, ply FROM findings WHERE game_id = ? AND code IN ('analysis.inaccuracy', 'analysis.mistake', 'analysis.blunder')", (gid,))}
        ours = {}
        for ply in range(1, nply + 1):
            if ply - 1 in marked and ply in marked:
                if ply in labels:
                    ours[ply] = labels[ply]
            elif sweep is None and ply in own_labels:
                ours[ply] = own_labels[ply]
        for l in LABELS:
            ours_n[l] += sum(v == l for v in ours.values())
            ref_n[l] += sum(v == l for v in labels.values())
            tp[l] += sum(v == l and labels.get(p) == l for p, v in ours.items())
            covered[l] += sum(v == l and p - 1 in marked and p in marked for p, v in labels.items())
        curve = []
        for p in range(nply + 1):
            if p == 0:
                curve.append(15)
            elif p in marked and p not in skipped:
                curve.append(ref_white[p])
            elif white[p][0] == "mate" and white[p][1] == 0:
                curve.append(CEIL if p % 2 == 1 else -CEIL)
            else:
                curve.append(ceiled(white[p]))
        mine, theirs = game_accuracy(curve), game_accuracy(ref_white)
        diffs += [mine[s] - theirs[s] for s in (0, 1) if mine[s] is not None and theirs[s] is not None]
        setn += len(marked - skipped)
        posn += nply
        oracle += len({p for ply in labels for p in (ply - 1, ply)})
    how = (f"the engine's sweep at {sweep.nodes} nodes" + (f", a second look at {sweep.refine_nodes}" if sweep.refine_nodes else "")
           + ", both ends of each move they mark") if sweep else \
        "arbiter's marks, the ply before and after each"
    print(f"\n  tier 2 simulated from the reference (MARK_DROP {mark_drop}; {how}):")
    print(f"  engine      {setn} of {posn} positions ({setn / posn:.3f}) at the budget; "
          f"nodes {(setn * budget + swept) / (posn * budget):.3f} of every position at {budget} (the sweep's included)")
    print(f"  bound       a perfect triage (both ends of exactly the reference's labelled moves) searches "
          f"{oracle / posn:.3f} of the positions")
    print("  triage      reference labels whose two positions the engine searches: " + ", ".join(
        f"{l} {covered[l]}/{ref_n[l]} ({covered[l] / max(1, ref_n[l]):.2f})" for l in LABELS))
    for l in LABELS:
        p = tp[l] / ours_n[l] if ours_n[l] else float("nan")
        r = tp[l] / ref_n[l] if ref_n[l] else float("nan")
        print(f"  {l:<11} precision {p:.2f} recall {r:.2f}  (ours {ours_n[l]}, reference {ref_n[l]}, both {tp[l]})")
    if diffs:
        print(f"  accuracy    mean |diff| {sum(map(abs, diffs)) / len(diffs):.2f}, bias {sum(diffs) / len(diffs):+.2f}")


# The references made here hold corpus games (with Stockfish's evaluations), so they stay
# outside the repository: ARBITER_REFERENCE, or the CI cache folder.
REFERENCE_DIR = os.environ.get("ARBITER_REFERENCE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "arbiter-ci", "analysis-reference")


def stockfish_sets(args):
    """The Stockfish references, as (title, [PGN files]): with --ref, those files as one set;
    otherwise the development set (the 12 corpus games and the development half of
    `$ARBITER_REFERENCE`, by default `~/.cache/arbiter-ci/analysis-reference/`) and the held-out half (scripts/stockfish_reference.py
    --sample 33 made both halves; the goals are read on the held-out one)."""
    if args.ref:
        return [("Stockfish reference (" + ", ".join(os.path.basename(f) for f in args.ref) + ")", args.ref)]
    dev = [os.path.join(CORPUS, "analysis", "lichess-12-stockfish15-1M.pgn")]
    held = []
    for half, files in (("dev", dev), ("heldout", held)):
        f = os.path.join(REFERENCE_DIR, f"sf15-1M-{half}.pgn")
        if os.path.exists(f) and os.path.getsize(f) > 0:
            files.append(f)
    sets = [("Stockfish reference, development set (" + ", ".join(os.path.basename(f) for f in dev) + ")", dev)]
    if held:
        sets.append(("Stockfish reference, HELD-OUT set (" + ", ".join(os.path.basename(f) for f in held) + ")", held))
    return sets


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arbiter", default="target/release/arbiter")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--ref", action="append", help="Stockfish reference PGN (repeatable; default: the development and held-out sets)")
    ap.add_argument("--engine", help="UCI engine for tier 2, a real run (e.g. /usr/games/stockfish; about 1.3 CPU-s a position it searches)")
    ap.add_argument("--engine-nodes", type=int, default=1_000_000)
    ap.add_argument("--engine-timeout", type=int, default=900, help="seconds a position may take (a loaded machine)")
    ap.add_argument("--no-lichess", action="store_true", help="leave out the 133 lichess games")
    ap.add_argument("--no-own", action="store_true", help="leave out tier 1 alone")
    ap.add_argument("--simulate", action="store_true", help="also tier 2 simulated from a Stockfish 1M reference (see simulate())")
    ap.add_argument("--sweep-engine", help="with --simulate: run this engine's sweep (as --engine does) to mark the positions")
    ap.add_argument("--sweep-nodes", type=int, default=20000, help="the sweep's nodes (arbiter's --engine-sweep-nodes)")
    ap.add_argument("--refine-nodes", type=int, default=100000, help="the sweep's second look (arbiter's --engine-refine-nodes; 0: none)")
    ap.add_argument("--mark-drop", type=float, default=5.0, help="the triage threshold the simulation assumes (search::analysis::MARK_DROP)")
    ap.add_argument("--own-nodes", type=int, help="tier 1's deep budget (arbiter's analyse --db --nodes; default its own, 20000)")
    ap.add_argument("--dump", help="write the own tier's judgement of every move beside the reference's to this TSV (a study of the rule)")
    ap.add_argument("--engine-on-lichess", action="store_true", help="run tier 2 on the lichess games too (long)")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="arbiter-bench-")

    sets = []
    for title, files in stockfish_sets(args):
        text = "\n\n".join(open(f, encoding="utf-8").read().strip() for f in files) + "\n"
        sets.append((title, text, True))
    sweep = Sweep(args.sweep_engine, args.sweep_nodes, args.refine_nodes) if args.simulate and args.sweep_engine else None
    if not args.no_lichess:
        games = []
        for f in sorted(glob.glob(os.path.join(CORPUS, "games", "lichess", "*.pgn"))):
            games += [g for g in split_games(open(f, encoding="utf-8", errors="replace").read()) if "%eval" in g]
        sets.append(("lichess's [%eval] (2019-2021)", "\n\n".join(games) + "\n", False))

    for i, (title, text, with_best) in enumerate(sets):
        pgn = os.path.join(tmp, f"set{i}.pgn")
        open(pgn, "w").write(text)
        uci = uci_moves(pgn)
        refs_by_number = {}
        for n, g in enumerate(split_games(text), 1):
            r = reference(g, uci[n - 1] if n - 1 < len(uci) else None, with_best)
            if r is not None:
                refs_by_number[n] = r
        # Only the games with a reference on every move are imported and analysed.
        kept = [g for n, g in enumerate(split_games(text), 1) if n in refs_by_number]
        uci_by_number = {k + 1: uci[n - 1] for k, n in enumerate(sorted(refs_by_number))}
        refs_by_number = {k + 1: refs_by_number[n] for k, n in enumerate(sorted(refs_by_number))}
        open(pgn, "w").write("\n\n".join(kept) + "\n")
        db = os.path.join(tmp, f"set{i}.sqlite")
        subprocess.run([args.arbiter, "import", "--db", db, "-q", "--jobs", str(args.jobs), pgn], check=True, capture_output=True)
        if not args.no_own:
            own_nodes = ["--nodes", str(args.own_nodes)] if args.own_nodes else []
            cpu, _ = run_timed([args.arbiter, "analyse", "--db", db, "-q", "--engine", "none", "--jobs", str(args.jobs)] + own_nodes)
            dump = None
            if args.dump and with_best:
                dump = open(args.dump, "a" if i else "w")
                if not i:
                    dump.write(DUMP_HEADER)
            measure(db, refs_by_number, cpu, f"{title}, tier 1 (arbiter alone)", args.engine_nodes, uci_by_number, dump)
            if dump is not None:
                dump.close()
            if with_best and args.simulate:
                simulate(db, refs_by_number, args.mark_drop, None, uci_by_number, args.engine_nodes)
                if sweep:
                    simulate(db, refs_by_number, args.mark_drop, sweep, uci_by_number, args.engine_nodes)
        if args.engine and (with_best or args.engine_on_lichess):
            cpu, _ = run_timed(
                [args.arbiter, "analyse", "--db", db, "-q", "--jobs", str(args.jobs), "--engine", args.engine,
                 "--engine-nodes", str(args.engine_nodes), "--engine-timeout", str(args.engine_timeout)]
            )
            measure(db, refs_by_number, cpu, f"{title}, tiers 1+2 ({os.path.basename(args.engine)} at {args.engine_nodes} nodes)", args.engine_nodes)


if __name__ == "__main__":
    main()
