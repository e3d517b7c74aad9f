//! The Laws joined to positions (issue 34): `--repetition N`, `--claimable threefold|fifty`,
//! `--automatic fivefold|seventy-five`. Hand-made games (`testdata/positions/laws.pgn`) with
//! their exact games and plies, alone and combined with the other query forms; the same
//! answers for games stored without a verdict; an oracle (every answer is what a brute-force
//! replay of every stored game finds) on the committed games and, with ARBITER_CORPUS, on the
//! master games; the threefold games of the corpus's draw-rules files; exports; bad values.

use crate::common::cli::{arbiter, ok, s};
use crate::common::corpus;
use arbiter::chess::{MoveList, Position};
use arbiter::db::encode::{decode_moves, start_position};
use arbiter::db::query::positions::{Hit, search};
use arbiter::db::query::{Filter, Selection};
use arbiter::laws::claims::{ClaimWay, fifty};
use arbiter::laws::{Edition, GameInput, LawsChoice, TerminationKind, VerdictOptions, judge};
use arbiter::positions::Query;
use arbiter::positions::laws::{AutomaticKind, ClaimKind, LawsQuery};
use arbiter::positions::query::parse_fen_query;
use rusqlite::Connection;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const LAWS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/positions/laws.pgn");
const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/positions/games.pgn");

/// The start position, by its moves' count of 9.2.2 occurrences.
const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// After 1.Nf3 Nf6 2.Nc3 Nc6 (game 3 reaches it at plies 4, 12 and 16).
const FOUR_KNIGHTS: &str = "r1bqkb1r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R w KQkq - 4 3";
/// After 1.e4 Nf6 2.e5 d5 without the en passant capture (game 4: plies 8 and 12; at ply 4
/// exd6 was legal, so that placement was another position).
const NO_EP: &str = "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 4 5";

fn import(db: &Path, files: &[&str], extra: &[&str]) {
    let mut args = vec!["import", "-q", "--db", s(db)];
    args.extend_from_slice(extra);
    args.extend_from_slice(files);
    ok(&args);
}

fn database(extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("laws.sqlite");
    import(&db, &[LAWS], extra);
    (dir, db)
}

/// `(id, ply)` of `arbiter search --format csv` with these arguments.
fn searched(db: &Path, args: &[&str]) -> Vec<(i64, u32)> {
    let mut all = vec!["search", "--db", s(db), "--format", "csv", "--sort", "id"];
    all.extend_from_slice(args);
    let text = String::from_utf8(ok(&all).stdout).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[f.len() - 1].parse().unwrap())
        })
        .collect()
}

/// The hand-made games' answers, one query a line: what each form means, exactly.
fn hand_made_answers(db: &Path) {
    // Games 1, 2, 7, 8 shuffle knights; the start position comes back every 4 plies.
    // Game 3 reaches the four knights' position by three move orders (plies 4, 12, 16), game 4
    // the same placement three times, of which the first had exd6 e.p. legal.
    assert_eq!(
        searched(db, &["--repetition", "2"]),
        [(1, 4), (2, 4), (3, 6), (4, 12), (7, 4), (8, 4)]
    );
    assert_eq!(
        searched(db, &["--repetition", "3"]),
        [(1, 8), (2, 8), (3, 16), (7, 8), (8, 8)]
    );
    assert_eq!(searched(db, &["--repetition", "5"]), [(7, 16), (8, 16)]);
    // Claims passed over: game 2 stops at the third occurrence (claimed), game 3's third one
    // comes by transposition (Black could write 8...Nf6 at ply 15).
    assert_eq!(
        searched(db, &["--claimable", "threefold"]),
        [(1, 7), (3, 15), (7, 7), (8, 7)]
    );
    // Fifty moves from a clock of 98: by a written move at ply 1 under the 2017 and 2001 Laws
    // (games 5 and 11), only once made, at ply 2, under the 1980 and 1993 Laws (games 6 and
    // 10); game 9 starts at 148.
    assert_eq!(
        searched(db, &["--claimable", "fifty"]),
        [(5, 1), (6, 2), (9, 0), (10, 2), (11, 1)]
    );
    // Automatic endings only under the 2014 Laws: game 7, not the same moves in 1985 (8).
    assert_eq!(searched(db, &["--automatic", "fivefold"]), [(7, 16)]);
    assert_eq!(searched(db, &["--automatic", "seventy-five"]), [(9, 2)]);
}

#[test]
fn hand_made_games_give_their_exact_games_and_plies() {
    let (_dir, db) = database(&[]);
    hand_made_answers(&db);
}

#[test]
fn games_stored_without_a_verdict_give_the_same_answers() {
    let (_dir, db) = database(&["--no-laws"]);
    let conn = Connection::open(&db).unwrap();
    let judged: i64 = conn
        .query_row(
            "SELECT count(*) FROM games WHERE laws_edition IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(judged, 0);
    hand_made_answers(&db);
}

#[test]
fn each_form_combines_with_the_others_at_the_same_ply() {
    let (_dir, db) = database(&[]);
    // FEN + --repetition N: that position's N-th occurrence.
    assert_eq!(
        searched(&db, &[START, "--repetition", "3"]),
        [(1, 8), (2, 8), (7, 8), (8, 8)]
    );
    assert_eq!(
        searched(&db, &[FOUR_KNIGHTS, "--repetition", "2"]),
        [(3, 12)]
    );
    assert_eq!(
        searched(&db, &[FOUR_KNIGHTS, "--repetition", "3"]),
        [(3, 16)]
    );
    // The en passant right: the placement's first match is ply 8 (ply 4 had exd6 legal);
    // --ignore-ep finds ply 4 too, but the count stays Art. 9.2.2's.
    assert_eq!(searched(&db, &[NO_EP]), [(4, 8)]);
    assert_eq!(searched(&db, &["--ignore-ep", NO_EP]), [(4, 4)]);
    assert_eq!(searched(&db, &[NO_EP, "--repetition", "2"]), [(4, 12)]);
    assert_eq!(
        searched(&db, &["--ignore-ep", NO_EP, "--repetition", "2"]),
        [(4, 12)]
    );
    assert!(searched(&db, &[NO_EP, "--repetition", "3"]).is_empty());
    // A claim at the start position's third occurrence (present, ply 8) and not before it.
    assert_eq!(
        searched(&db, &[START, "--claimable", "threefold"]),
        [(1, 8), (7, 8), (8, 8)]
    );
    // Material and the sequence played next.
    assert_eq!(
        searched(
            &db,
            &["--material", "KRK", "--claimable", "fifty", "--to", "2000"]
        ),
        [(6, 2), (10, 2)]
    );
    assert_eq!(
        searched(&db, &["--sequence", "e4 e5", "--repetition", "3"]),
        [(1, 8), (3, 16)]
    );
    // The mirror changes nothing the Laws count.
    assert_eq!(
        searched(&db, &["--mirror", "--claimable", "threefold"]),
        [(1, 7), (3, 15), (7, 7), (8, 7)]
    );
    // Two Laws' forms at once: a claim passed over at a fifth occurrence.
    assert_eq!(
        searched(&db, &["--repetition", "5", "--claimable", "threefold"]),
        [(8, 16)]
    );
    // The moves played after the start position's third occurrence (game 2 stops there).
    let tree = ok(&[
        "search",
        "--db",
        s(&db),
        "--tree",
        START,
        "--repetition",
        "3",
        "--format",
        "csv",
    ]);
    let tree = String::from_utf8(tree.stdout).unwrap();
    let rows: Vec<Vec<&str>> = tree
        .lines()
        .skip(1)
        .map(|l| l.split(',').take(2).collect())
        .collect();
    assert_eq!(rows, [["Nf3", "2"], ["e4", "1"]], "{tree}");
    // The selection filters apply.
    assert_eq!(
        searched(&db, &["--claimable", "threefold", "--from", "2000"]),
        [(1, 7), (3, 15), (7, 7)]
    );
}

#[test]
fn exports_carry_the_matching_ply() {
    let (dir, db) = database(&[]);
    let csv = dir.path().join("claims.csv");
    ok(&[
        "export",
        "--db",
        s(&db),
        "--claimable",
        "threefold",
        "--columns",
        "id,white,black",
        "-o",
        s(&csv),
    ]);
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("id,white,black,match_ply"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(
        rows,
        [
            "1,Alpha,Beta,7",
            "3,Gamma,Delta,15",
            "7,Beta,Delta,7",
            "8,Beta,Delta,7"
        ]
    );
    let pgn = String::from_utf8(ok(&["export", "--db", s(&db), "--automatic", "fivefold"]).stdout)
        .unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 1, "{pgn}");
    assert!(pgn.contains("fivefold under the 2017 Laws"), "{pgn}");
    assert!(
        pgn.contains("Ng8 {arbiter: position matched at ply 16}"),
        "{pgn}"
    );
}

#[test]
fn bad_values_are_usage_errors_naming_the_valid_ones() {
    let (_dir, db) = database(&[]);
    for bad in ["0", "-1", "three", "2.5"] {
        let out = arbiter(&["search", "--db", s(&db), "--repetition", bad]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("from 1 up"), "{bad}: {err}");
    }
    let out = arbiter(&["search", "--db", s(&db), "--claimable", "fivefold"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("threefold") && err.contains("fifty"), "{err}");
    let out = arbiter(&["export", "--db", s(&db), "--automatic", "threefold"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("fivefold") && err.contains("seventy-five"),
        "{err}"
    );
}

// ---- the oracle ---------------------------------------------------------------------------

/// A stored game as the oracle reads it.
struct Stored {
    id: i64,
    start: Position,
    moves: Vec<arbiter::chess::Move>,
    edition: Edition,
    date: Option<String>,
}

fn stored_games(conn: &Connection) -> Vec<Stored> {
    let mut stmt = conn
        .prepare("SELECT id, start_fen, variant, moves, laws_edition, date FROM games ORDER BY id")
        .unwrap();
    stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, Option<String>>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Vec<u8>>(3)?,
            r.get::<_, Option<String>>(4)?,
            r.get::<_, Option<String>>(5)?,
        ))
    })
    .unwrap()
    .map(|row| {
        let (id, fen, variant, blob, edition, date) = row.unwrap();
        let start = start_position(fen.as_deref(), variant == "chess960").unwrap();
        let moves = decode_moves(&start, &blob).unwrap();
        let edition = edition
            .as_deref()
            .and_then(Edition::from_year_name)
            .unwrap_or_else(|| LawsChoice::Auto.for_game(date.as_deref()).edition);
        Stored {
            id,
            start,
            moves,
            edition,
            date,
        }
    })
    .collect()
}

/// What the brute force knows of each ply of a game, computed once for every query:
/// every position's key, occurrences counted over the whole game so far, every legal move
/// tried for a written claim, and the game's end from a fresh verdict under its edition.
struct Brute {
    id: i64,
    keys: Vec<u64>,
    occurrences: Vec<u32>,
    /// A threefold claim per ply: Some(true) on the board, Some(false) by a written move.
    threefold: Vec<Option<bool>>,
    fifty: Vec<Option<bool>>,
    termination: Option<(TerminationKind, u32)>,
    /// The last recorded ply, or an earlier automatic ending.
    end: usize,
}

fn brute(g: &Stored) -> Brute {
    let mut positions = vec![g.start];
    for &m in &g.moves {
        let mut p = *positions.last().unwrap();
        p.play_unchecked(m);
        positions.push(p);
    }
    let keys: Vec<u64> = positions.iter().map(Position::repetition_key).collect();
    let n = g.moves.len();
    let input = GameInput {
        start: g.start,
        moves: &g.moves,
        date: g.date.as_deref(),
        result_tag: None,
        termination_tag: None,
        result_marker: None,
    };
    let options = VerdictOptions {
        laws: LawsChoice::Fixed(g.edition),
        ..VerdictOptions::default()
    };
    let termination = judge(&input, &options).termination;
    let mut seen: HashMap<u64, u32> = HashMap::new();
    let mut occurrences = Vec::with_capacity(n + 1);
    let mut threefold = Vec::with_capacity(n + 1);
    let mut repeated = false;
    for (i, &k) in keys.iter().enumerate() {
        let c = seen.entry(k).or_insert(0);
        *c += 1;
        occurrences.push(*c);
        repeated |= *c >= 2;
        threefold.push(if *c >= 3 {
            Some(true)
        } else if repeated {
            let mut list = MoveList::new();
            positions[i].generate_legal(&mut list);
            list.iter()
                .any(|&m| {
                    let mut child = positions[i];
                    child.play_unchecked(m);
                    seen.get(&child.repetition_key()).is_some_and(|&c| c >= 2)
                })
                .then_some(false)
        } else {
            None
        });
    }
    Brute {
        id: g.id,
        keys,
        occurrences,
        threefold,
        fifty: positions
            .iter()
            .map(|p| fifty(p, g.edition).map(|w| w == ClaimWay::Present))
            .collect(),
        termination,
        end: termination.map_or(n, |(_, t)| (t as usize).min(n)),
    }
}

impl Brute {
    /// The first ply at which the query holds.
    fn first(&self, target: Option<u64>, q: &LawsQuery) -> Option<u32> {
        let n = self.keys.len() - 1;
        let went_on = |i: usize, way: Option<bool>, next_present: bool| match way {
            None => false,
            Some(true) => i < self.end,
            Some(false) => i < self.end && !(i + 1 == self.end && next_present),
        };
        (0..=n)
            .find(|&i| {
                target.is_none_or(|t| self.keys[i] == t)
                    && q.repetition.is_none_or(|r| self.occurrences[i] >= r)
                    && q.claimable.is_none_or(|kind| match kind {
                        ClaimKind::Threefold => {
                            went_on(i, self.threefold[i], i < n && self.occurrences[i + 1] >= 3)
                        }
                        ClaimKind::Fifty => {
                            went_on(i, self.fifty[i], i < n && self.fifty[i + 1] == Some(true))
                        }
                    })
                    && q.automatic.is_none_or(|kind| {
                        let want = match kind {
                            AutomaticKind::Fivefold => TerminationKind::Fivefold,
                            AutomaticKind::SeventyFive => TerminationKind::SeventyFiveMoves,
                        };
                        self.termination == Some((want, i as u32)) && i < n
                    })
            })
            .map(|i| i as u32)
    }
}

/// The laws queries of the oracle: each form alone, two together, and with a position.
fn oracle_queries(fens: &[&str]) -> Vec<Query> {
    let laws = |repetition, claimable, automatic| LawsQuery {
        repetition,
        claimable,
        automatic,
    };
    let mut out: Vec<Query> = [
        laws(Some(2), None, None),
        laws(Some(3), None, None),
        laws(Some(4), None, None),
        laws(Some(5), None, None),
        laws(None, Some(ClaimKind::Threefold), None),
        laws(None, Some(ClaimKind::Fifty), None),
        laws(None, None, Some(AutomaticKind::Fivefold)),
        laws(None, None, Some(AutomaticKind::SeventyFive)),
        laws(Some(3), Some(ClaimKind::Threefold), None),
        laws(Some(2), Some(ClaimKind::Fifty), None),
    ]
    .into_iter()
    .map(|l| Query {
        held: 1,
        laws: l,
        ..Query::default()
    })
    .collect();
    for fen in fens {
        for n in [1, 2, 3] {
            out.push(Query {
                position: Some(parse_fen_query(fen).unwrap()),
                held: 1,
                laws: laws(Some(n), None, None),
                ..Query::default()
            });
        }
        out.push(Query {
            position: Some(parse_fen_query(fen).unwrap()),
            held: 1,
            laws: laws(None, Some(ClaimKind::Threefold), None),
            ..Query::default()
        });
    }
    out
}

/// Runs each query through `search` and by brute force; returns the matches per query.
fn oracle(db: &Path, queries: &[Query]) -> Vec<usize> {
    let conn = Connection::open(db).unwrap();
    let games: Vec<Brute> = stored_games(&conn).iter().map(brute).collect();
    queries
        .iter()
        .map(|q| {
            let found = search(
                &conn,
                q,
                &Selection::compile(&conn, &Filter::default()).unwrap(),
            )
            .unwrap();
            let target = q.position.as_ref().map(Position::repetition_key);
            let expected: Vec<Hit> = games
                .iter()
                .filter_map(|g| {
                    let ply = g.first(target, &q.laws)?;
                    Some(Hit { id: g.id, ply })
                })
                .collect();
            assert_eq!(found.hits, expected, "{:?} {:?}", q.laws, q.position);
            expected.len()
        })
        .collect()
}

#[test]
fn every_laws_query_finds_what_a_brute_force_replay_finds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("o.sqlite");
    import(&db, &[LAWS, GAMES], &[]);
    let counts = oracle(&db, &oracle_queries(&[START, FOUR_KNIGHTS, NO_EP]));
    // games.pgn adds no repetition: its rook moves there and back lose castling rights.
    assert_eq!(counts[..10], [6, 5, 2, 2, 4, 5, 1, 1, 4, 0], "{counts:?}");
}

/// The positions of the first `n` third occurrences the search finds, as FENs.
fn third_occurrences(db: &Path, n: usize) -> Vec<String> {
    let conn = Connection::open(db).unwrap();
    let q = Query {
        held: 1,
        laws: LawsQuery {
            repetition: Some(3),
            ..LawsQuery::default()
        },
        ..Query::default()
    };
    let hits = search(
        &conn,
        &q,
        &Selection::compile(&conn, &Filter::default()).unwrap(),
    )
    .unwrap()
    .hits;
    let games = stored_games(&conn);
    hits.iter()
        .take(n)
        .map(|h| {
            let g = games.iter().find(|g| g.id == h.id).unwrap();
            let mut pos = g.start;
            for &m in &g.moves[..h.ply as usize] {
                pos.play_unchecked(m);
            }
            pos.fen()
        })
        .collect()
}

#[test]
fn master_games_laws_oracle() {
    if !crate::common::long() {
        return;
    }
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let files: Vec<String> = std::fs::read_dir(corpus.join("games/otb-pgnmentor"))
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".pgn"))
        .collect();
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    import(&db, &refs, &[]);
    let mut fens = third_occurrences(&db, 3);
    fens.push(START.to_owned());
    let fens: Vec<&str> = fens.iter().map(String::as_str).collect();
    let queries = oracle_queries(&fens);
    let counts = oracle(&db, &queries);
    eprintln!("master games, matches per query: {counts:?}");
    assert!(
        counts[..8].iter().filter(|&&n| n > 0).count() >= 7,
        "{counts:?}"
    );
}

/// The corpus's threefold games (sunfish's test files: engine games that cutechess ended
/// at the first threefold repetition; `do`/`dont` split them by whether Stockfish would
/// have played the repeating move). By Art. 9.2.2 every stored game has its first third
/// occurrence at its last ply, where it was stopped, and the claims passed over are the
/// written-move claims (9.2.1.1) the engines never made, two plies or more before the end.
#[test]
fn the_corpus_threefold_games() {
    let Some(corpus) = corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let rules = corpus.join("draw-rules");
    let mut counts = Vec::new();
    for name in [
        "sunfish-3fold.pgn",
        "sunfish-3fold_do.pgn",
        "sunfish-3fold_dont.pgn",
    ] {
        let db = dir.path().join(name.replace(".pgn", ".sqlite"));
        import(&db, &[s(&rules.join(name))], &[]);
        let conn = Connection::open(&db).unwrap();
        let stored: i64 = conn
            .query_row("SELECT count(*) FROM games", [], |r| r.get(0))
            .unwrap();
        let stored = stored as usize;
        let last_plies: HashMap<i64, u32> = conn
            .prepare("SELECT id, ply_count FROM games")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let third = searched(&db, &["--repetition", "3"]);
        assert_eq!(third.len(), stored, "{name}");
        for (id, ply) in &third {
            assert_eq!(last_plies[id], *ply, "{name}: game {id}");
        }
        let passed = searched(&db, &["--claimable", "threefold"]);
        for (id, ply) in &passed {
            assert!(ply + 2 <= last_plies[id], "{name}: game {id} at ply {ply}");
        }
        counts.push((name, stored, third.len(), passed.len()));
    }
    eprintln!("draw-rules (file, games, --repetition 3, --claimable threefold): {counts:?}");
    assert_eq!(
        counts,
        [
            ("sunfish-3fold.pgn", 703, 703, 130),
            ("sunfish-3fold_do.pgn", 405, 405, 72),
            ("sunfish-3fold_dont.pgn", 184, 184, 35)
        ]
    );
}
