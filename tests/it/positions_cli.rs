//! `arbiter search` and `arbiter index` (issue 34, docs/POSITIONS.md): hand-checked answers
//! on `testdata/positions/games.pgn` (transpositions, en passant only when legal, castling
//! rights, every relaxation and the mirror), the oracle (every query's games are exactly
//! those a replay of every stored game finds), index append across imports, resume of an
//! interrupted `index` build, and bad input. With ARBITER_CORPUS set, the oracle runs on the
//! master games too.

use arbiter::chess::Position;
use arbiter::db::encode::{decode_moves, start_position};
use arbiter::db::query::positions::{Hit, explore, search, trees};
use arbiter::db::query::{Filter, Selection};
use arbiter::positions::query::{
    parse_fen_query, parse_material, parse_pattern, parse_pawns, parse_sequence,
};
use arbiter::positions::{Identity, Matcher, Query};
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_arbiter");

/// Every stored game, as a search selects them.
fn every(conn: &Connection) -> Selection {
    Selection::compile(conn, &Filter::default()).unwrap()
}
const GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/positions/games.pgn");

fn arbiter(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run arbiter")
}

/// A database of this build taken back to before schema version 11 (the analyses as one
/// table a game, no game summaries), for the tests that make an older file to be brought up to date.
const BEFORE_11: &str = "DROP VIEW analyses; DROP VIEW evaluations; \
    DROP TABLE run_evaluations; DROP TABLE analysis_runs; \
    CREATE TABLE evaluations (game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE, \
        ply INTEGER NOT NULL, score_cp INTEGER, mate INTEGER, depth INTEGER NOT NULL, \
        nodes INTEGER NOT NULL, best_move INTEGER, deep INTEGER NOT NULL, \
        engine INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game_id, ply)) WITHOUT ROWID; \
    CREATE TABLE analyses (game_id INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE, \
        white_accuracy REAL, black_accuracy REAL, white_inaccuracies INTEGER NOT NULL, \
        white_mistakes INTEGER NOT NULL, white_blunders INTEGER NOT NULL, \
        black_inaccuracies INTEGER NOT NULL, black_mistakes INTEGER NOT NULL, \
        black_blunders INTEGER NOT NULL, settings TEXT NOT NULL, engine_positions INTEGER, \
        engine_nodes INTEGER, positions INTEGER); DROP TABLE position_summaries;";

fn import(db: &Path, files: &[&str], extra: &[&str]) {
    let mut args = vec!["import", "-q", "--db", db.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend_from_slice(files);
    let out = arbiter(&args);
    assert!(
        out.status.code() != Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn database() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    import(&db, &[GAMES], &[]);
    (dir, db)
}

/// `(id, ply)` of `arbiter search --format csv` with these arguments.
fn searched(db: &Path, args: &[&str]) -> Vec<(i64, u32)> {
    let mut all = vec![
        "search",
        "--db",
        db.to_str().unwrap(),
        "--format",
        "csv",
        "--sort",
        "id",
    ];
    all.extend_from_slice(args);
    let out = arbiter(&all);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[f.len() - 1].parse().unwrap())
        })
        .collect()
}

const AFTER_NF6: &str = "rnbqkb1r/pppp1ppp/5n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
const EP: &str = "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
const NO_KINGSIDE: &str = "rnbqkb1r/pppppppp/5n2/8/8/5N2/PPPPPPPP/RNBQKB1R w Qq - 6 4";
const E4_E5: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

#[test]
fn transpositions_en_passant_castling_and_each_relaxation() {
    let (_dir, db) = database();
    // 1.e4 e5 2.Nf3 Nf6 and 1.Nf3 Nf6 2.e4 e5: one position, both at ply 4.
    assert_eq!(searched(&db, &[AFTER_NF6]), [(1, 4), (2, 4)]);
    // After 2...d5 beside the e5 pawn exd6 is legal: game 4 has the placement without it.
    assert_eq!(searched(&db, &[EP]), [(3, 4)]);
    assert_eq!(searched(&db, &["--ignore-ep", EP]), [(3, 4), (4, 4)]);
    // Without the king-side rights only after 3.Rh1 Rh8 (game 5, ply 6); any rights: also
    // after 1.Nf3 Nf6 (games 2 and 5 at ply 2).
    assert_eq!(searched(&db, &[NO_KINGSIDE]), [(5, 6)]);
    assert_eq!(
        searched(&db, &["--ignore-castling", NO_KINGSIDE]),
        [(2, 2), (5, 2)]
    );
    // 1.e4 e5 with White to move; 1.e3 e5 2.e4 and 1.Nf3 e6 2.Ng1 e5 3.e4 with Black.
    assert_eq!(searched(&db, &[E4_E5]), [(1, 2)]);
    assert_eq!(
        searched(&db, &["--ignore-side", E4_E5]),
        [(1, 2), (6, 3), (7, 5)]
    );
    // The mirror of 1.e4: ...e5 with White's pieces at home, White to move (game 7, ply 4).
    assert_eq!(searched(&db, &[AFTER_E4]), [(1, 1), (3, 1), (4, 1), (8, 1)]);
    assert_eq!(
        searched(&db, &["--mirror", AFTER_E4]),
        [(1, 1), (3, 1), (4, 1), (7, 4), (8, 1)]
    );
    // The other forms.
    assert_eq!(searched(&db, &["--sequence", "Bxh7+ Kxh7 Ng5+"]), [(8, 12)]);
    assert_eq!(searched(&db, &["--material", "KRPKR"]), [(9, 0)]);
    assert_eq!(searched(&db, &["--material", "KRKRP"]), []);
    assert_eq!(
        searched(&db, &["--material", "KRKRP", "--mirror"]),
        [(9, 0)]
    );
    assert_eq!(
        searched(&db, &["--pawns", "abdfgh/abefgh", "--mirror"]),
        [(10, 18)]
    );
    assert_eq!(
        searched(&db, &["--material", "down>=3", "--held", "4"]),
        [(8, 22)]
    );
    // Filters combine: the selection's games only.
    assert_eq!(searched(&db, &[AFTER_NF6, "--white", "Beta"]), [(2, 4)]);
    // The tree and the move orders.
    let out = arbiter(&[
        "search",
        "--db",
        db.to_str().unwrap(),
        "--reverse-tree",
        "--tree",
        AFTER_NF6,
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Nxe5"), "{text}");
    assert!(text.contains("Nc3"), "{text}");
    assert!(
        text.contains("e4 e5 Nf3 Nf6") && text.contains("Nf3 Nf6 e4 e5"),
        "{text}"
    );
}

/// Every stored game's first ply matching `query`, by replaying all of them: exact
/// positions by the keys of every position, the other forms by the matcher.
fn brute_force(conn: &Connection, query: &Query) -> Vec<Hit> {
    let matcher = Matcher::new(query);
    let targets: Vec<u64> = query
        .position
        .as_ref()
        .map(|p| query.identity.targets(p))
        .unwrap_or_default();
    let mut stmt = conn
        .prepare("SELECT id, start_fen, variant, moves FROM games ORDER BY id")
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Vec<u8>>(3)?,
            ))
        })
        .unwrap();
    let mut hits = Vec::new();
    for row in rows {
        let (id, fen, variant, blob) = row.unwrap();
        let start = start_position(fen.as_deref(), variant == "chess960").unwrap();
        let moves = decode_moves(&start, &blob).unwrap();
        let ply = if query.material.is_none()
            && query.patterns.is_empty()
            && query.pawns.is_none()
            && query.sequence.is_none()
        {
            let mut pos: Position = start;
            let mut found = targets.contains(&query.identity.key(&pos)).then_some(0);
            for (i, &m) in moves.iter().enumerate() {
                if found.is_some() {
                    break;
                }
                pos.play_unchecked(m);
                if targets.contains(&query.identity.key(&pos)) {
                    found = Some(i as u32 + 1);
                }
            }
            found
        } else {
            matcher.first_match(&start, &moves)
        };
        if let Some(ply) = ply {
            hits.push(Hit { id, ply });
        }
    }
    hits
}

fn identity(flags: &str) -> Identity {
    Identity {
        ignore_side: flags.contains('s'),
        ignore_castling: flags.contains('c'),
        ignore_ep: flags.contains('e'),
        mirror: flags.contains('m'),
    }
}

/// Runs each query through the index and by brute force; returns how many matched games.
/// An exact position is also answered from the key index (`explore`: count, the first
/// rows, the tree without replays) and must agree: the count, the rows, and the tree the
/// replay of every matching game gives.
fn oracle(db: &Path, queries: &[Query]) -> Vec<usize> {
    let conn = Connection::open(db).unwrap();
    queries
        .iter()
        .map(|q| {
            let found = search(&conn, q, &every(&conn)).unwrap();
            let expected = brute_force(&conn, q);
            assert_eq!(found.hits, expected, "{q:?}");
            explore_agrees(&conn, q, &expected);
            // A selection is asked of the candidates alone: the same games as the filter.
            let long = Filter {
                min_plies: Some(20),
                ..Filter::default()
            };
            let long = Selection::compile(&conn, &long).unwrap();
            let kept: Vec<Hit> = expected
                .iter()
                .copied()
                .filter(|h| {
                    conn.query_row("SELECT ply_count FROM games WHERE id = ?1", [h.id], |r| {
                        r.get::<_, i64>(0)
                    })
                    .unwrap()
                        >= 20
                })
                .collect();
            assert_eq!(search(&conn, q, &long).unwrap().hits, kept, "{q:?}");
            if let Some(e) = explore(&conn, q, &long, usize::MAX, false).unwrap() {
                assert_eq!((e.total, e.hits), (kept.len(), kept.clone()), "{q:?}");
            }
            expected.len()
        })
        .collect()
}

fn explore_agrees(conn: &Connection, q: &Query, expected: &[Hit]) {
    let Some(e) = explore(conn, q, &every(conn), 7, false).unwrap() else {
        return;
    };
    assert_eq!(e.total, expected.len(), "{q:?}");
    assert_eq!(e.hits, expected[..expected.len().min(7)], "{q:?}");
    let Some(e) = explore(conn, q, &every(conn), 0, true).unwrap() else {
        assert!(!q.identity.is_exact() || q.identity.mirror, "{q:?}");
        return;
    };
    assert_eq!(e.total, expected.len(), "{q:?}");
    let replayed = trees(conn, expected, false).unwrap();
    let tree = e.trees.unwrap();
    assert_eq!(tree.branches(), replayed.branches(), "{q:?}");
}

fn fen(q: &str, flags: &str) -> Query {
    Query {
        position: Some(parse_fen_query(q).unwrap()),
        identity: identity(flags),
        held: 1,
        ..Query::default()
    }
}

#[test]
fn every_query_finds_what_a_replay_of_every_game_finds() {
    let (_dir, db) = database();
    let mut queries: Vec<Query> = Vec::new();
    for f in [AFTER_NF6, EP, NO_KINGSIDE, E4_E5, AFTER_E4] {
        for flags in ["", "s", "c", "e", "m", "scem"] {
            queries.push(fen(f, flags));
        }
    }
    let scans = scan_queries();
    let n = scans.len();
    queries.extend(scans);
    let counts = oracle(&db, &queries);
    assert!(
        counts.iter().filter(|&&n| n > 0).count() >= 25,
        "{counts:?}"
    );
    // The scans' windows (`spans::ScanFilter`) and early stops met real matches here.
    let found = counts[counts.len() - n..]
        .iter()
        .filter(|&&c| c > 0)
        .count();
    assert!(found >= 5, "{counts:?}");
}

/// Scans a replay answers, each pruned by the spans or stopped early by the home pawns:
/// patterns (with the mirror, a side to move, pieces and empty ranks), pawn structures by
/// squares and by files, sequences with captures, a known piece taken, a promotion, quiet
/// moves and castling, and the forms with a material held.
fn scan_queries() -> Vec<Query> {
    let q = |patterns: &[&str],
             pawns: Option<&str>,
             seq: Option<&str>,
             mat: Option<&str>,
             held: u32,
             mirror: bool| {
        let mut q = Query {
            patterns: patterns.iter().map(|p| parse_pattern(p).unwrap()).collect(),
            pawns: pawns.map(|p| parse_pawns(p).unwrap()),
            sequence: seq.map(|s| parse_sequence(s).unwrap()),
            material: mat.map(|m| parse_material(m).unwrap()),
            held,
            ..Query::default()
        };
        q.identity.mirror = mirror;
        q
    };
    vec![
        q(&["*/*/*/3P4/*/*/*/*"], None, None, None, 1, false),
        q(
            &["r?????k?/?????ppp/8/8/8/8/5PPP/??????K? w"],
            None,
            None,
            None,
            1,
            true,
        ),
        q(
            &["*/*/*/*/*/*/PP3PPP/*", "*/pp3ppp/*/*/*/*/*/*"],
            None,
            None,
            None,
            1,
            false,
        ),
        q(
            &["*/*/*/*/*/*/5PPP/6K1 b"],
            None,
            None,
            Some("down>=1"),
            4,
            true,
        ),
        q(&[], Some("a2 b2 d4 f2 g2 h2/*"), None, None, 1, false),
        q(&[], Some("*/a7 b7 c6 f7 g7 h7"), None, None, 1, true),
        q(&[], Some("abdfgh/abefgh"), None, None, 1, true),
        q(&[], Some("abcdefgh/*"), None, None, 1, false),
        q(&[], None, Some("Bxh7+ Kxh7"), None, 1, false),
        q(&[], None, Some("Qxd8+ Kxd8"), None, 1, false),
        q(&[], None, Some("e4 e5 Nf3"), None, 1, false),
        q(&[], None, Some("O-O O-O"), None, 1, false),
        q(&[], None, Some("d8=Q"), None, 1, false),
        q(&[], None, Some("exd5 exd5"), Some("QR2B2N2P7"), 1, true),
        q(
            &["*/*/*/*/*/*/*/*K*"],
            None,
            Some("Rxe8+"),
            Some("down>=2"),
            3,
            false,
        ),
        // What the games' summaries rule out (`positions::summary`): pawn squares with the
        // mirror, the middle ranks empty (the start position matches), file counts, and
        // captures by a known piece of each side.
        q(&["*/*/*/*/4P3/*/*/*"], None, None, None, 1, true),
        q(&["*/*/8/8/8/8/*/*"], None, None, None, 1, false),
        q(&["*/*/8/8/8/8/*/* b"], None, None, None, 1, true),
        q(&[], Some("a2 b2 c3 d4 f2 g2 h2/*"), None, None, 1, true),
        q(&[], Some("abcdfgh/abcdefgh"), None, None, 1, false),
        q(&[], None, Some("Kxf7"), None, 1, false),
        q(&[], None, Some("Nxe5 Nxe5"), None, 1, false),
        q(&[], None, Some("exd5 Qxd5"), None, 1, true),
    ]
}

/// The games' summaries (schema version 13) rule games out of a scan without changing its
/// answer: on ranges without them (a database indexed before the version) every game is
/// read as before, `arbiter index` writes them one committed range at a time, and a killed
/// build resumes; with them fewer games are read.
#[test]
fn scans_read_the_summaries_which_index_writes_and_resumes() {
    use arbiter::db::positions::{build, build_summaries, summaries_rows};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    import(&db, &[GAMES], &["--no-position-index"]);
    let conn = Connection::open(&db).unwrap();
    build(&conn, 4, |_, _| {}).unwrap();
    let ranges = |conn: &Connection| -> Vec<(u32, u32)> {
        summaries_rows(conn)
            .unwrap()
            .into_iter()
            .map(|r| (r.0, r.1))
            .collect()
    };
    assert_eq!(ranges(&conn), [(1, 4), (5, 8), (9, 10)]);
    let queries = scan_queries();
    let expected = oracle(&db, &queries);
    assert!(
        expected.iter().filter(|&&n| n > 0).count() >= 7,
        "{expected:?}"
    );
    let replayed = |conn: &Connection| -> Vec<u64> {
        queries
            .iter()
            .map(|q| search(conn, q, &every(conn)).unwrap().replayed)
            .collect()
    };
    let with = replayed(&conn);
    // As a database indexed before version 13: no summaries, every game read as before.
    conn.execute_batch("DELETE FROM position_summaries")
        .unwrap();
    assert_eq!(oracle(&db, &queries), expected);
    let without = replayed(&conn);
    assert!(
        with.iter().zip(&without).all(|(w, o)| w <= o),
        "{with:?} {without:?}"
    );
    let fewer = with.iter().zip(&without).filter(|(w, o)| w < o).count();
    assert!(fewer >= 8, "{with:?} {without:?}");
    // Killed after its first range: that range's games ruled out by their summaries.
    let killed = std::panic::catch_unwind(|| {
        let conn = Connection::open(&db).unwrap();
        build_summaries(&conn, |_, _| panic!("killed")).unwrap();
    });
    assert!(killed.is_err());
    assert_eq!(ranges(&conn), [(1, 4)]);
    assert_eq!(oracle(&db, &queries), expected);
    let out = arbiter(&["index", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("game summaries: 6 of 6"));
    assert_eq!(ranges(&conn), [(1, 4), (5, 8), (9, 10)]);
    assert_eq!(oracle(&db, &queries), expected);
    assert_eq!(replayed(&conn), with);
}

/// Material queries alone (answered from the material index where it covers the games,
/// from every game's spans elsewhere): signatures of endings and of many men (a difference
/// class then bounds them), imbalances, points held, the colour flip, and the forms the
/// index leaves to the spans (a side left free, equal minors).
fn material_queries() -> Vec<Query> {
    let q = |mat: &str, held: u32, mirror: bool| {
        let mut q = Query {
            material: Some(parse_material(mat).unwrap()),
            held,
            ..Query::default()
        };
        q.identity.mirror = mirror;
        q
    };
    vec![
        q("down>=1", 1, false),
        q("down>=1", 6, true),
        q("white-down>=2", 3, true),
        q("black-down>=3", 1, false),
        q("down>=3", 20, false),
        q("N vs PP", 1, true),
        q("B vs N", 2, false),
        q("R vs mPP", 1, false),
        q("KQR2B2N2P7KQR2B2N2P8", 1, true),
        q("KQR2BN2P6KQR2B2NP6", 2, false),
        q("KRPKR", 1, true),
        q("KQKQ", 1, false),
        q("KRKN", 4, true),
        q("QR2B2N2P8", 1, false),
        q("m vs m", 1, false),
    ]
}

/// The material index answers what a replay finds, on ranges it covers and on ranges it
/// does not (indexed before schema version 9: the spans are walked); `arbiter index` writes
/// it from the stored spans, one committed range at a time, and a killed build resumes.
#[test]
fn material_queries_read_the_material_index_which_index_builds_and_resumes() {
    use arbiter::db::positions::{build, build_material, material_candidates, material_ranges};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    import(&db, &[GAMES], &["--no-position-index"]);
    let conn = Connection::open(&db).unwrap();
    // Indexed in ranges of 4 games: each range gets its material rows.
    build(&conn, 4, |_, _| {}).unwrap();
    assert_eq!(material_ranges(&conn).unwrap(), [(1, 4), (5, 8), (9, 10)]);
    let queries = material_queries();
    let expected = oracle(&db, &queries);
    assert!(
        expected.iter().filter(|&&n| n > 0).count() >= 9,
        "{expected:?}"
    );
    // The index names fewer games than there are for a material most games never reach.
    let krk = arbiter::positions::material::Sieve::new(&parse_material("R vs mPP").unwrap(), false)
        .unwrap();
    assert!(material_candidates(&conn, &krk, 1).unwrap().len() < 10);
    // As a database indexed before version 9: every range's spans are walked.
    conn.execute_batch("DELETE FROM position_material").unwrap();
    assert!(material_ranges(&conn).unwrap().is_empty());
    assert_eq!(oracle(&db, &queries), expected);
    // Killed after its first range: that range from the index, the others walked.
    let killed = std::panic::catch_unwind(|| {
        let conn = Connection::open(&db).unwrap();
        build_material(&conn, |_, _| panic!("killed")).unwrap();
    });
    assert!(killed.is_err());
    assert_eq!(material_ranges(&conn).unwrap(), [(1, 4)]);
    assert_eq!(oracle(&db, &queries), expected);
    let out = arbiter(&["index", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("material index: 6 of 6"));
    assert_eq!(material_ranges(&conn).unwrap(), [(1, 4), (5, 8), (9, 10)]);
    assert_eq!(oracle(&db, &queries), expected);
    // An import writes the rows with the rest of the index.
    let (_dir, fresh) = database();
    let conn = Connection::open(&fresh).unwrap();
    assert_eq!(material_ranges(&conn).unwrap(), [(1, 10)]);
    assert_eq!(oracle(&fresh, &queries), expected);
}

/// Positions of stored games at given plies (deep ones too) as FEN queries.
/// The positions at `picks` (game id, ply), each as itself, with castling rights ignored
/// and with its colour flip, and their answers by replay (each found at least once).
fn picked_queries(
    conn: &Connection,
    db: &Path,
    picks: &[(i64, usize)],
) -> (Vec<Query>, Vec<usize>) {
    let queries: Vec<Query> = positions_at(conn, picks)
        .iter()
        .flat_map(|f| [fen(f, ""), fen(f, "c"), fen(f, "m")])
        .collect();
    let expected = oracle(db, &queries);
    assert!(expected.iter().all(|&n| n >= 1), "{expected:?}");
    (queries, expected)
}

/// The committed collection in two files, cut before its castling games.
fn two_halves(dir: &Path) -> (PathBuf, PathBuf) {
    let text = std::fs::read_to_string(GAMES).unwrap();
    let cut = text.find("[Event \"positions: castling").unwrap();
    let (a, b) = (dir.join("a.pgn"), dir.join("b.pgn"));
    std::fs::write(&a, &text[..cut]).unwrap();
    std::fs::write(&b, &text[cut..]).unwrap();
    (a, b)
}

fn positions_at(conn: &Connection, picks: &[(i64, usize)]) -> Vec<String> {
    picks
        .iter()
        .filter_map(|&(id, ply)| {
            let (fen, variant, blob): (Option<String>, String, Vec<u8>) = conn
                .query_row(
                    "SELECT start_fen, variant, moves FROM games WHERE id = ?1",
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
                )
                .ok()?;
            let start = start_position(fen.as_deref(), variant == "chess960").ok()?;
            let moves = decode_moves(&start, &blob).ok()?;
            let mut pos = start;
            for &m in moves.iter().take(ply) {
                pos.play_unchecked(m);
            }
            Some(pos.fen())
        })
        .collect()
}

#[test]
fn master_games_oracle() {
    if !crate::common::long() {
        return;
    }
    let Ok(corpus) = std::env::var("ARBITER_CORPUS") else {
        eprintln!("ARBITER_CORPUS not set: skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let files: Vec<String> = std::fs::read_dir(Path::new(&corpus).join("games/otb-pgnmentor"))
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".pgn"))
        .collect();
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    import(&db, &refs, &[]);
    let conn = Connection::open(&db).unwrap();
    let fens = positions_at(
        &conn,
        &[
            (1, 0),
            (5, 1),
            (9, 10),
            (100, 16),
            (2000, 24),
            (3000, 25),
            (4000, 40),
            (12000, 60),
            (30000, 30),
            (41000, 90),
        ],
    );
    let mut queries: Vec<Query> = fens.iter().map(|f| fen(f, "")).collect();
    queries.push(fen(&fens[2], "s"));
    queries.push(fen(&fens[3], "c"));
    queries.push(fen(&fens[4], "e"));
    queries.push(fen(&fens[5], "m"));
    queries.push(fen(&fens[6], "scem"));
    let other = |f: &dyn Fn(&mut Query)| {
        let mut q = Query {
            held: 1,
            ..Query::default()
        };
        f(&mut q);
        q
    };
    queries.push(other(&|q| {
        q.material = Some(parse_material("KRPKR").unwrap())
    }));
    queries.push(other(&|q| {
        q.material = Some(parse_material("KRPKR").unwrap());
        q.identity.mirror = true;
        q.held = 10;
    }));
    queries.push(other(&|q| {
        q.material = Some(parse_material("R vs mPP").unwrap())
    }));
    queries.push(other(&|q| {
        q.material = Some(parse_material("down>=3").unwrap());
        q.held = 20;
    }));
    queries.push(other(&|q| {
        q.patterns
            .push(parse_pattern("r?????k?/?????ppp/8/8/8/8/5PPP/??????K? w").unwrap())
    }));
    queries.push(other(&|q| {
        q.pawns = Some(parse_pawns("abdfgh/abefgh").unwrap())
    }));
    queries.push(other(&|q| {
        q.sequence = Some(parse_sequence("Bxh7+ Kxh7 Ng5+").unwrap())
    }));
    queries.extend(scan_queries());
    queries.extend(material_queries());
    let counts = oracle(&db, &queries);
    assert!(queries.len() >= 20);
    eprintln!("matches per query: {counts:?}");
    assert!(
        counts.iter().filter(|&&n| n > 0).count() >= 18,
        "{counts:?}"
    );
}

#[test]
fn the_index_is_appended_by_a_second_import() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_halves(dir.path());
    let db = dir.path().join("two.sqlite");
    import(&db, &[a.to_str().unwrap()], &[]);
    import(&db, &[b.to_str().unwrap()], &[]);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(arbiter::db::positions::unindexed_games(&conn).unwrap(), 0);
    let tails: i64 = conn
        .query_row("SELECT count(*) FROM position_tails", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tails, 2);
    assert_eq!(
        searched(&db, &["--ignore-side", E4_E5]),
        [(1, 2), (6, 3), (7, 5)]
    );
    assert_eq!(
        searched(&db, &["--mirror", AFTER_E4]),
        [(1, 1), (3, 1), (4, 1), (7, 4), (8, 1)]
    );
}

#[test]
fn an_interrupted_index_build_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old.sqlite");
    import(&db, &[GAMES], &["--no-position-index"]);
    let conn = Connection::open(&db).unwrap();
    assert_eq!(arbiter::db::positions::unindexed_games(&conn).unwrap(), 10);
    // Without the index every game is replayed; the answers are the same.
    assert_eq!(
        searched(&db, &["--mirror", AFTER_E4]),
        [(1, 1), (3, 1), (4, 1), (7, 4), (8, 1)]
    );
    // Killed after its first step of 3 games: those stay indexed.
    let killed = std::panic::catch_unwind(|| {
        let conn = Connection::open(&db).unwrap();
        arbiter::db::positions::build(&conn, 3, |_, _| panic!("killed")).unwrap();
    });
    assert!(killed.is_err());
    assert_eq!(arbiter::db::positions::unindexed_games(&conn).unwrap(), 7);
    let out = arbiter(&["index", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("indexed 7 games"));
    assert_eq!(arbiter::db::positions::unindexed_games(&conn).unwrap(), 0);
    assert_eq!(
        searched(&db, &["--mirror", AFTER_E4]),
        [(1, 1), (3, 1), (4, 1), (7, 4), (8, 1)]
    );
    assert_eq!(searched(&db, &[AFTER_NF6]), [(1, 4), (2, 4)]);
}

#[test]
fn bad_queries_are_located_usage_errors() {
    let (_dir, db) = database();
    let d = db.to_str().unwrap();
    for (args, needle) in [
        (vec!["--material", "KRXKR"], "at character 3"),
        (vec!["--pattern", "8/8/8/8/8/8/8/P7"], "first or last rank"),
        (
            vec!["--pattern", "8/8/8/3P4/8/8/8/8"],
            "no square may hold the white king",
        ),
        (vec!["--pawns", "a2 b9/*"], "no square"),
        (vec!["--sequence", "Bxh7+ Kxh9"], "at character 7"),
        (vec!["4k3/8/8/8/8/8/8/P3K3 w - - 0 1"], "first or last rank"),
        (vec!["4k3/8/8/8 w"], "FEN"),
        (vec![], "give a FEN"),
    ] {
        let mut all = vec!["search", "--db", d];
        all.extend_from_slice(&args);
        let out = arbiter(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(
            err.contains("example") || err.contains("Examples") || needle == "FEN",
            "{args:?}: {err}"
        );
    }
}

#[test]
fn export_position_round_trips_through_pgn_and_parquet() {
    let (dir, db) = database();
    let d = db.to_str().unwrap();
    let pgn = dir.path().join("found.pgn");
    let out = arbiter(&[
        "export",
        "-q",
        "--db",
        d,
        "--position",
        AFTER_NF6,
        "-o",
        pgn.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Event ").count(), 2);
    assert_eq!(
        text.matches("{arbiter: position matched at ply 4}").count(),
        2,
        "{text}"
    );
    // The exported games, imported again, reach the position at the same ply.
    let again = dir.path().join("again.sqlite");
    import(&again, &[pgn.to_str().unwrap()], &[]);
    assert_eq!(searched(&again, &[AFTER_NF6]), [(1, 4), (2, 4)]);
    // Parquet: the selected games with their match_ply column.
    let parquet = dir.path().join("found.parquet");
    let out = arbiter(&[
        "export",
        "-q",
        "--db",
        d,
        "--format",
        "parquet",
        "--mirror",
        "--position",
        AFTER_E4,
        "-o",
        parquet.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(std::fs::File::open(&parquet).unwrap()).unwrap();
    let mut rows = Vec::new();
    for row in reader.get_row_iter(None).unwrap() {
        let row = row.unwrap();
        let mut id = 0;
        let mut ply = -1;
        for (name, field) in row.get_column_iter() {
            match (name.as_str(), field) {
                ("id", parquet::record::Field::Long(v)) => id = *v,
                ("match_ply", parquet::record::Field::Long(v)) => ply = *v,
                _ => {}
            }
        }
        rows.push((id, ply));
    }
    assert_eq!(rows, [(1, 1), (3, 1), (4, 1), (7, 4), (8, 1)]);
    // A bad query is a usage error here too.
    let out = arbiter(&["export", "--db", d, "--material", "KRXKR"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn index_gives_facts_and_spans_to_games_indexed_before_them_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v6.sqlite");
    import(&db, &[GAMES], &[]);
    let conn = Connection::open(&db).unwrap();
    // As a version-6 database upgraded: the index without the trees' facts and the spans.
    conn.execute("DELETE FROM position_games", []).unwrap();
    assert_eq!(
        arbiter::db::positions::missing_games(&conn).unwrap(),
        [(1, 10)]
    );
    let tree = || {
        let q = fen(AFTER_NF6, "");
        let e = explore(&conn, &q, &every(&conn), 0, true).unwrap().unwrap();
        let t = e.trees.unwrap();
        let b: Vec<(String, u64)> = t
            .branches()
            .iter()
            .map(|b| (b.san.clone(), b.tally.games))
            .collect();
        (e.total, b, e.replayed)
    };
    // Without facts the tree's games are replayed; the answer is the same.
    let (total, branches, replayed) = tree();
    assert_eq!((total, replayed), (2, 2));
    assert_eq!(branches, [("Nc3".to_string(), 1), ("Nxe5".to_string(), 1)]);
    // Killed after its first step of 4 games: those keep their facts.
    let killed = std::panic::catch_unwind(|| {
        let conn = Connection::open(&db).unwrap();
        arbiter::db::positions::build_games(&conn, 4, |_, _| panic!("killed")).unwrap();
    });
    assert!(killed.is_err());
    assert_eq!(
        arbiter::db::positions::missing_games(&conn).unwrap(),
        [(5, 10)]
    );
    let out = arbiter(&["index", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("6 of 6"));
    assert!(
        arbiter::db::positions::missing_games(&conn)
            .unwrap()
            .is_empty()
    );
    // Now the keys settle both games' next moves: nothing replayed.
    let (total, again, replayed) = tree();
    assert_eq!((total, replayed), (2, 0));
    assert_eq!(again, branches);
}

/// Schema version 8's home-pawn index replaces the tail records: a version-7 database
/// (tail records, no home-pawn rows) answers through its tail records, opened for writing
/// it gets the empty table and answers the same, a killed `build_pawns` leaves some ranges
/// under each, and `arbiter index` moves every range to the home-pawn index and empties the
/// tail records; the answers are a replay's throughout.
#[test]
fn a_version_7_index_is_read_and_upgraded_to_the_home_pawn_index() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v7.sqlite");
    import(&db, &[GAMES], &["--no-position-index"]);
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch(&format!(
        "{BEFORE_11} DROP TABLE position_pawns; DROP TABLE position_material; \
             DROP TABLE position_postings; PRAGMA user_version = 7;"
    ))
    .unwrap();
    // Indexed as version 7 did: ranges of 4 games with their tail records.
    arbiter::db::positions::build(&conn, 4, |_, _| {}).unwrap();
    let tail_bytes = |conn: &Connection| -> i64 {
        conn.query_row("SELECT sum(length(records)) FROM position_tails", [], |r| {
            r.get(0)
        })
        .unwrap()
    };
    assert_eq!(tail_bytes(&conn), 2 * 26);
    // Positions after the key index's last ply (games 8 and 10 are longer), and others.
    let picks: Vec<(i64, usize)> = (8..=10)
        .flat_map(|g| [(g, 25), (g, 27), (g, 30), (g, 34), (g, 40)])
        .chain([(1, 4), (3, 5)])
        .collect();
    let (queries, expected) = picked_queries(&conn, &db, &picks);
    drop(conn);
    // Opened for writing: version 10, the table empty, the tail records read.
    let conn = arbiter::db::open_existing(&db).unwrap();
    assert!(
        arbiter::db::positions::pawn_ranges(&conn)
            .unwrap()
            .is_empty()
    );
    assert_eq!(oracle(&db, &queries), expected);
    // Killed after its first range: that range from the home-pawn index, the rest from
    // their tail records.
    let killed = std::panic::catch_unwind(|| {
        let conn = Connection::open(&db).unwrap();
        arbiter::db::positions::build_pawns(&conn, |_, _| panic!("killed")).unwrap();
    });
    assert!(killed.is_err());
    assert_eq!(
        arbiter::db::positions::pawn_ranges(&conn).unwrap(),
        [(1, 4)]
    );
    assert_eq!(oracle(&db, &queries), expected);
    let out = arbiter(&["index", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("home-pawn index: 6 of 6"));
    assert_eq!(
        arbiter::db::positions::pawn_ranges(&conn).unwrap(),
        [(1, 4), (5, 8), (9, 10)]
    );
    assert_eq!(tail_bytes(&conn), 0);
    assert_eq!(oracle(&db, &queries), expected);
}

/// The keys of every position of every stored game up to the key index's last ply, and
/// each with one fingerprint bit flipped (absent), with the games the key index gives for
/// each.
fn key_answers(conn: &Connection) -> Vec<(u64, Vec<u32>)> {
    let mut stmt = conn
        .prepare("SELECT start_fen, variant, moves FROM games ORDER BY id")
        .unwrap();
    let games: Vec<(Option<String>, String, Vec<u8>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let mut keys = Vec::new();
    for (fen, variant, blob) in games {
        let start = start_position(fen.as_deref(), variant == "chess960").unwrap();
        let mut pos = start;
        keys.push(pos.repetition_key());
        for m in decode_moves(&start, &blob).unwrap().into_iter().take(24) {
            pos.play_unchecked(m);
            keys.push(pos.repetition_key());
        }
    }
    let flipped: Vec<u64> = keys.iter().map(|k| k ^ 1 << 30).collect();
    keys.extend(flipped);
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|k| (k, arbiter::db::positions::games_with_key(conn, k).unwrap()))
        .collect()
}

/// Schema version 10's bit-packed key rows: a version-9 database (key rows in
/// `position_keys`) is read as it is, opened for writing it gets the empty table and reads
/// both, a killed re-encoding leaves rows in each and answers the same, and `arbiter index`
/// moves every row over (then one row per bucket); every key gives the same games
/// throughout and the queries a replay's answers.
#[test]
fn a_version_9_key_index_is_re_encoded_and_answers_the_same() {
    use arbiter::db::positions::{build, convert_keys};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v9.sqlite");
    import(&db, &[GAMES], &["--no-position-index"]);
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch(&format!(
        "{BEFORE_11} DROP TABLE position_postings; PRAGMA user_version = 9;"
    ))
    .unwrap();
    // Indexed as version 9 did: ranges of 4 games, key rows in `position_keys`.
    build(&conn, 4, |_, _| {}).unwrap();
    let count = |conn: &Connection, table: &str| -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    };
    let old_rows = count(&conn, "position_keys");
    assert!(old_rows > 100, "{old_rows}");
    let answers = key_answers(&conn);
    let found = answers
        .iter()
        .filter(|(_, games)| !games.is_empty())
        .count();
    assert_eq!(found * 2, answers.len());
    assert!(answers.iter().any(|(_, games)| games.len() >= 5));
    let picks: Vec<(i64, usize)> = (1..=10)
        .flat_map(|g| [(g, 0), (g, 3), (g, 9), (g, 16), (g, 24)])
        .collect();
    let (queries, expected) = picked_queries(&conn, &db, &picks);
    drop(conn);
    // Opened for writing: version 10, the new table empty, the old rows read.
    let conn = arbiter::db::open_existing(&db).unwrap();
    assert_eq!(count(&conn, "position_postings"), 0);
    assert_eq!(key_answers(&conn), answers);
    assert_eq!(oracle(&db, &queries), expected);
    // Killed after its first step of 7 rows: those in the new table, the rest in the old.
    let killed = std::panic::catch_unwind(|| {
        let conn = Connection::open(&db).unwrap();
        convert_keys(&conn, 7, |_, _| panic!("killed")).unwrap();
    });
    assert!(killed.is_err());
    assert_eq!(count(&conn, "position_postings"), 7);
    assert_eq!(count(&conn, "position_keys"), old_rows - 7);
    assert_eq!(key_answers(&conn), answers);
    assert_eq!(oracle(&db, &queries), expected);
    let out = arbiter(&["index", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "key index rows re-encoded: {0} of {0}",
            old_rows - 7
        )),
        "{err}"
    );
    assert_eq!(count(&conn, "position_keys"), 0);
    // Merged: one row per bucket, fewer than the old rows of three ranges.
    let buckets: i64 = conn
        .query_row(
            "SELECT count(DISTINCT row >> 32) FROM position_postings",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(count(&conn, "position_postings"), buckets);
    assert!(buckets < old_rows);
    assert_eq!(key_answers(&conn), answers);
    assert_eq!(oracle(&db, &queries), expected);
    // An import writes the new rows alone, with the same answers.
    let (_fresh_dir, fresh) = database();
    let fresh = Connection::open(&fresh).unwrap();
    assert_eq!(count(&fresh, "position_keys"), 0);
    assert_eq!(key_answers(&fresh), answers);
}

/// An import into a version-9 database writes its games' key rows in the new layout beside
/// the old rows, which stay readable; `arbiter index` then re-encodes the old ones.
#[test]
fn a_version_9_index_is_appended_by_an_import_in_the_new_layout() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_halves(dir.path());
    let db = dir.path().join("v9.sqlite");
    import(&db, &[a.to_str().unwrap()], &["--no-position-index"]);
    let conn = Connection::open(&db).unwrap();
    conn.execute_batch(&format!(
        "{BEFORE_11} DROP TABLE position_postings; PRAGMA user_version = 9;"
    ))
    .unwrap();
    arbiter::db::positions::build(&conn, 100, |_, _| {}).unwrap();
    drop(conn);
    import(&db, &[b.to_str().unwrap()], &[]);
    let conn = Connection::open(&db).unwrap();
    let count = |table: &str| -> i64 {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap()
    };
    let old = count("position_keys");
    assert!(old > 0 && count("position_postings") > 0);
    assert_eq!(arbiter::db::positions::unindexed_games(&conn).unwrap(), 0);
    let answers = |db: &Path| {
        (
            searched(db, &["--ignore-side", E4_E5]),
            searched(db, &["--mirror", AFTER_E4]),
            searched(db, &[AFTER_NF6]),
        )
    };
    let expected = (
        vec![(1, 2), (6, 3), (7, 5)],
        vec![(1, 1), (3, 1), (4, 1), (7, 4), (8, 1)],
        vec![(1, 4), (2, 4)],
    );
    assert_eq!(answers(&db), expected);
    let out = arbiter(&["index", "--db", db.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains(&format!("key index rows re-encoded: {old} of {old}"))
    );
    assert_eq!(count("position_keys"), 0);
    assert_eq!(answers(&db), expected);
}
