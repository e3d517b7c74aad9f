#!/usr/bin/env python3
"""Cross-check arbiter's automatic endings against python-chess.

Runs `arbiter check -q --laws 2014 --findings` on the PGN files given, replays every game of
the same files with python-chess, and compares the first automatic ending each finds:
checkmate and stalemate at the end of the record, the fifth occurrence of a position
(Art. 9.6.1), 75 moves without pawn move or capture (9.6.2), and insufficient material,
which is one kind of dead position (5.2.2). The 2014 Laws are forced on both sides because
python-chess knows only those.

python-chess is GPL-3.0: it is never imported by arbiter's Rust code nor copied into the
repository. Install it in a virtual environment outside the repository and run this script
with that environment's interpreter:

    python3 -m venv ~/.cache/arbiter-ci/pychess-venv
    ~/.cache/arbiter-ci/pychess-venv/bin/pip install chess==1.11.2
    ~/.cache/arbiter-ci/pychess-venv/bin/python scripts/laws_crosscheck.py \\
        target/release/arbiter $ARBITER_CORPUS/games/{engine-tcec,lichess,otb-pgnmentor,twic}/*.pgn \\
        $ARBITER_CORPUS/analysis/*.pgn

(those files are the 51,528 games of the earlier cross-check). It prints the counts of each
agreement category and every disagreement; the exit status is 1 when there is one.

Agreement, per game both programs accept (the earliest ending wins; at the same ply checkmate
and stalemate come before fivefold, fivefold before 75 moves, and those before a dead
position, as in arbiter):
- python-chess's checkmate, stalemate, fivefold or 75-move ending at ply p: arbiter reports
  the same ending at p, or a dead position before p (arbiter decides every dead position,
  python-chess only insufficient material: counted apart, not a disagreement);
- python-chess's insufficient material first at ply p: arbiter's dead position at p or
  before;
- no ending in python-chess: arbiter reports none, or a dead position (counted apart).
"""

import collections
import json
import subprocess
import sys
import tempfile

import chess
import chess.pgn

ENDS = {
    "end.checkmate": "checkmate",
    "end.stalemate": "stalemate",
    "end.fivefold": "fivefold",
    "end.seventy-five": "seventy-five",
    "end.dead-position": "dead",
}


def arbiter_verdicts(arbiter, files):
    """Per (file, game number): ('rejected', None) or the ending (kind, ply), or None."""
    with tempfile.NamedTemporaryFile(suffix=".jsonl") as out:
        subprocess.run(
            [arbiter, "check", "-q", "--laws", "2014", "--findings", out.name, *files],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        verdicts = {}
        with open(out.name, encoding="utf-8") as f:
            for line in f:
                row = json.loads(line)
                key = (row["file"], row["game"])
                # A game the reader or the replay rejects has no verdict; the Laws' own
                # errors (a recorded result against the lawful one) leave it judged.
                if row["severity"] == "error" and not row["code"].startswith("result."):
                    verdicts[key] = ("rejected", None)
                elif row["code"] in ENDS and verdicts.get(key, (None,))[0] != "rejected":
                    verdicts[key] = (ENDS[row["code"]], row["ply"])
        return verdicts


def python_chess_ending(game):
    """The first automatic ending python-chess sees, as (kind, ply), or None; and whether the
    main line replayed without an error."""
    board = game.board()
    if game.errors:
        return None, False
    counts = collections.Counter()
    counts[board._transposition_key()] += 1
    if board.is_insufficient_material():
        return ("dead", 0), True
    dead_at = None
    ply = 0
    for move in game.mainline_moves():
        zeroing = board.is_zeroing(move)
        board.push(move)
        ply += 1
        if zeroing and dead_at is None and board.is_insufficient_material():
            dead_at = ply
        key = board._transposition_key()
        counts[key] += 1
        ending = None
        if board.is_checkmate():
            ending = "checkmate"
        elif board.is_stalemate():
            ending = "stalemate"
        elif counts[key] >= 5 and board.is_fivefold_repetition():
            ending = "fivefold"
        elif board.halfmove_clock >= 150 and board.is_seventyfive_moves():
            ending = "seventy-five"
        if ending:
            return (ending, ply), True
        if dead_at == ply:
            return ("dead", ply), True
    if dead_at is not None:
        return ("dead", dead_at), True
    return None, True


def games(f):
    """python-chess's games of a file, numbered as arbiter numbers them. python-chess ends a
    game's header section at the second of two blank lines (`[Result "1-0"]`, two blank lines,
    `1.b3 1-0`, in a CRLF file of the master games) and reads the movetext as a game of its
    own, without tags; arbiter reads the two as one game, which is what the file means. Such
    a pair is joined here: the first game's tags, the second game's moves."""
    pending = None
    while True:
        game = chess.pgn.read_game(f)
        if pending is not None:
            untagged = game is not None and all(
                game.headers.get(k) in (None, "?", "????.??.??")
                for k in ("Event", "Site", "Date", "Round", "White", "Black")
            )
            if untagged and game.next() is not None and pending.next() is None:
                game.headers = pending.headers
                yield game
                pending = None
                continue
            yield pending
            pending = None
        if game is None:
            return
        if game.next() is None and not game.errors:
            pending = game
        else:
            yield game


def compare(ours, theirs):
    """The agreement category of one game, or a disagreement (starting with 'DISAGREE')."""
    if theirs is None:
        if ours is None:
            return "no ending"
        if ours[0] == "dead":
            return "dead position python-chess does not detect"
        return "DISAGREE: arbiter %s at ply %d, python-chess none" % ours
    kind, ply = theirs
    if ours is None:
        return "DISAGREE: python-chess %s at ply %d, arbiter none" % theirs
    if kind == "dead":
        if ours[0] == "dead" and ours[1] <= ply:
            return "insufficient material" if ours[1] == ply else "dead before insufficient material"
        return "DISAGREE: python-chess dead at ply %d, arbiter %s at ply %d" % (ply, *ours)
    if ours == theirs:
        return kind
    if ours[0] == "dead" and ours[1] < ply:
        return "dead position before python-chess's " + kind
    return "DISAGREE: python-chess %s at ply %d, arbiter %s at ply %d" % (kind, ply, *ours)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: laws_crosscheck.py ARBITER PGN...")
    arbiter, files = sys.argv[1], sys.argv[2:]
    verdicts = arbiter_verdicts(arbiter, files)
    tally = collections.Counter()
    disagreements = []
    for path in files:
        with open(path, encoding="utf-8", errors="replace") as f:
            number = 0
            for game in games(f):
                number += 1
                ours = verdicts.get((path, number))
                if ours is not None and ours[0] == "rejected":
                    tally["rejected by arbiter"] += 1
                    continue
                theirs, ok = python_chess_ending(game)
                if not ok:
                    tally["not replayed by python-chess"] += 1
                    disagreements.append("%s game %d: python-chess could not replay it" % (path, number))
                    continue
                category = compare(ours, theirs)
                tally[category if not category.startswith("DISAGREE") else "disagreements"] += 1
                if category.startswith("DISAGREE"):
                    disagreements.append("%s game %d: %s" % (path, number, category))
    total = sum(tally.values())
    print("games: %d" % total)
    for category, n in sorted(tally.items(), key=lambda kv: -kv[1]):
        print("  %-45s %d" % (category, n))
    for d in disagreements:
        print(d)
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
