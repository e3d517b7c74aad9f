//! The PGN reader on the shared corpus (`ARBITER_CORPUS`): other parsers' edge cases with the
//! behaviour we chose for each, and real game files with exact counts and a write → read
//! round trip.

use crate::common;
use common::corpus;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use arbiter::pgn::{self, Game, Splitter, WriteOptions, code};
use arbiter::pipeline::source;

struct Read {
    games: Vec<Game>,
    trailing: Vec<pgn::Finding>,
}

fn read(path: &Path) -> Read {
    let source = source::open(path).unwrap_or_else(|e| panic!("{e}"));
    let mut splitter = Splitter::new(source);
    let games = splitter
        .by_ref()
        .map(|raw| pgn::parse_game(&raw.unwrap_or_else(|e| panic!("{}: {e}", path.display()))))
        .collect();
    Read {
        games,
        trailing: splitter.take_trailing_findings(),
    }
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// (file, games, rejected games, finding codes seen other than missing-tag and crlf).
/// Where we differ from the parser the file comes from, the reason is in docs/FINDINGS.md.
const EDGE_CASES: &[(&str, usize, usize, &[&str])] = &[
    (
        "chess-library/backslash_header.pgn",
        1,
        0,
        &["malformed-tag"],
    ),
    ("chess-library/bare", 1, 0, &[]),
    (
        "chess-library/corrupted.pgn",
        1,
        1,
        &["missing-result-marker", "unreadable-token"],
    ),
    (
        "chess-library/empty_body.pgn",
        2,
        0,
        &["bad-result-tag", "empty-game", "missing-result-marker"],
    ),
    ("chess-library/multiple.pgn", 4, 0, &[]),
    (
        "chess-library/no_moves.pgn",
        1,
        0,
        &["empty-game", "missing-result-marker"],
    ),
    (
        "chess-library/no_moves_but_comment_followed_by_termination_marker.pgn",
        2,
        0,
        &["empty-game"],
    ),
    (
        "chess-library/no_moves_but_game_termination_2.pgn",
        1,
        0,
        &["empty-game", "result-mismatch"],
    ),
    (
        "chess-library/no_moves_but_game_termination_multiple_2.pgn",
        3,
        0,
        &["empty-game"],
    ),
    (
        "chess-library/no_moves_two_games.pgn",
        2,
        0,
        &["empty-game"],
    ),
    ("chess-library/skip.pgn", 2, 0, &["result-mismatch"]),
    (
        "chess-library/square_bracket_in_header.pgn",
        1,
        0,
        &["result-mismatch"],
    ),
    ("chess-library/variations.pgn", 1, 0, &[]),
    (
        "chess.js/0.pgn",
        1,
        1,
        &[
            "bad-nag",
            "empty-game",
            "misplaced-nag",
            "text-after-result",
            "unreadable-token",
        ],
    ),
    ("chess.js/benchmark.pgn", 100, 0, &[]),
    (
        "mliebelt-pgn-parser/sampleGameThrow.pgn",
        1,
        1,
        &["missing-result-marker", "unreadable-token"],
    ),
    ("mliebelt-pgn-parser/twic-01-232games.pgn", 232, 0, &[]),
    ("notnil-chess/0008.pgn", 1, 0, &["missing-result-marker"]),
    ("notnil-chess/0015.pgn", 1, 0, &[]),
    (
        "notnil-chess/valid_notation_tests.json",
        1,
        1,
        &[
            "empty-game",
            "malformed-tag",
            "missing-result-marker",
            "unreadable-token",
        ],
    ),
    (
        "pgn-extract/TEST-DESCRIPTIONS.txt",
        0,
        0,
        &["garbage-skipped"],
    ),
    (
        "pgn-extract/infiles/nested-comment.pgn",
        1,
        1,
        &["unreadable-token"],
    ),
    (
        "pgn-extract/infiles/odds.pgn",
        32,
        0,
        &["not-utf8", "null-move"],
    ),
    (
        "pgn-extract/infiles/test-allownullmoves.pgn",
        2,
        0,
        &["null-move"],
    ),
    (
        "pgn-extract/infiles/test-nobadresults.pgn",
        9,
        0,
        &["result-mismatch"],
    ),
    ("pgn-extract/infiles/test-notags.pgn", 1, 0, &[]),
    ("pgn-extract/infiles/test-long-line.pgn", 1, 0, &[]),
    (
        "pgn-extract/outfiles/test-WWdeutsch-out.pgn",
        1,
        1,
        &["empty-variation", "unreadable-token"],
    ),
    (
        "pgn-extract/outfiles/test-WWepd-out.pgn",
        0,
        0,
        &["garbage-skipped"],
    ),
    (
        "pgn4web/test.pgn",
        14,
        // Game 11 (`a5*`, a result glued to the last move) is read as kokopu reads it.
        1,
        &[
            "empty-variation",
            "garbage-skipped",
            "glued-result",
            "misplaced-variation",
            "missing-result-marker",
            "null-move",
            "result-in-variation",
            // What followed `a5*` on its line (game 12's start) is text after the result.
            "text-after-result",
        ],
    ),
    (
        "pychess/badpgn.pgn",
        1,
        1,
        &[
            "empty-game",
            "malformed-tag",
            "misplaced-variation",
            "unreadable-token",
        ],
    ),
    (
        "pychess/a.pgn",
        1,
        0,
        &["bad-result-tag", "missing-result-marker"],
    ),
    (
        "python-chess/antichess-programfox.pgn",
        2,
        2,
        &["unsupported-variant"],
    ),
    ("python-chess/chessbase-empty-line.pgn", 1, 0, &[]),
    ("python-chess/cutechess-fischerrandom.pgn", 4, 0, &[]),
    (
        "python-chess/knightvuillaume-jannlee-zh-lichess.pgn",
        1,
        1,
        &["unreadable-token", "unsupported-variant"],
    ),
    ("python-chess/utf8-bom.pgn", 2, 0, &["bom", "empty-game"]),
    (
        "scalachess/FWWRC.pgn",
        605,
        0,
        &["empty-game", "missing-result-marker"],
    ),
    ("scid/res_gameLatin1.pgn", 1, 0, &["not-utf8"]),
    ("scid/res_gameUTF8.pgn", 1, 0, &[]),
    ("sunfish/gaviota-starters.pgn", 2400, 0, &["crlf"]),
    ("sunfish/pgns.pgn", 278, 0, &[]),
];

#[test]
fn every_edge_case_file_goes_through_without_panic() {
    let Some(root) = corpus() else { return };
    let dir = root.join("pgn-edge-cases");
    let files = files_under(&dir);
    assert!(files.len() > 290, "{} files", files.len());
    let mut games = 0;
    for file in &files {
        games += read(file).games.len();
    }
    assert_eq!(games, 5090);
}

#[test]
fn edge_cases_behave_as_documented() {
    let Some(root) = corpus() else { return };
    for &(file, games, rejected, codes) in EDGE_CASES {
        let r = read(&root.join("pgn-edge-cases").join(file));
        let seen: BTreeSet<&str> = r
            .games
            .iter()
            .flat_map(|g| g.findings.iter())
            .chain(r.trailing.iter())
            .map(|f| f.code)
            .filter(|&c| c != code::MISSING_TAG && (c != code::CRLF || codes.contains(&"crlf")))
            .collect();
        let expected: BTreeSet<String> = codes.iter().map(|c| format!("pgn.{c}")).collect();
        let seen: BTreeSet<String> = seen.into_iter().map(str::to_owned).collect();
        assert_eq!(r.games.len(), games, "{file}: games");
        assert_eq!(
            r.games.iter().filter(|g| g.is_rejected()).count(),
            rejected,
            "{file}: rejected"
        );
        assert_eq!(seen, expected, "{file}: codes");
    }
}

#[test]
fn specific_edge_case_details() {
    let Some(root) = corpus() else { return };
    let edge = root.join("pgn-edge-cases");

    // `Sf3` (German notation) is an error at its place, never skipped silently.
    let r = read(&edge.join("mliebelt-pgn-parser/sampleGameThrow.pgn"));
    let f = r.games[0]
        .findings
        .iter()
        .find(|f| f.code == code::UNREADABLE_TOKEN)
        .unwrap();
    assert_eq!((f.line, f.column, f.ply), (2, 13, Some(3)));
    assert_eq!(f.token.as_deref(), Some("Sf3"));

    // A backslash before the closing quote: kept, with a warning.
    let r = read(&edge.join("chess-library/backslash_header.pgn"));
    assert_eq!(r.games[0].tag("Event"), Some("Tournament \\"));

    // `]` and escaped quotes inside tag values.
    let r = read(&edge.join("chess-library/square_bracket_in_header.pgn"));
    let g = &r.games[0];
    assert_eq!(
        g.tag("Event"),
        Some("Batch 10: s20red4c4_t3 vs master[!important]")
    );
    assert_eq!(g.tag("White"), Some("New-cfe8\"dsadsa\"ce842c"));

    // Latin-1 file: read as Windows-1252, giving what scid expects for it.
    let latin = read(&edge.join("scid/res_gameLatin1.pgn"));
    let expected = read(&edge.join("scid/res_gameLatin1expected.pgn"));
    assert_eq!(latin.games[0].tag("White"), Some("Kràmnìk, VlãÚdimir"));
    assert_eq!(latin.games[0].tags, expected.games[0].tags);
    assert_eq!(latin.games[0].plies(), expected.games[0].plies());
    assert!(latin.games[0].has_finding(code::NOT_UTF8));

    // The BOM is skipped and reported.
    let r = read(&edge.join("python-chess/utf8-bom.pgn"));
    assert_eq!(r.games[0].tag("Event"), Some("A"));
    assert_eq!(r.games[0].findings[0].code, code::BOM);

    // Null moves are kept as such.
    let r = read(&edge.join("pgn-extract/infiles/test-allownullmoves.pgn"));
    assert!(r.games[0].moves.iter().any(|m| m.san.is_null()));

    // A game without tags, ended by a marker glued to garbage: `1/2-1/2----`.
    let r = read(&edge.join("chess-library/bare"));
    assert_eq!(r.games[0].plies(), 111);
}

/// (file under games/, games, mainline plies). Where the file has `[Event ` lines, the game
/// count equals their number (checked below too).
const GAME_FILES: &[(&str, usize, usize)] = &[
    ("annotated/pgn4web-chess-informant-sample.pgn", 5, 489),
    ("annotated/pgn4web-gotd.pgn", 171, 13092),
    ("annotated/pgn4web-tactics.pgn", 928, 5009),
    ("chess960/pgn4web-chess960wch06.pgn", 8, 579),
    ("chess960/pychess-chess960rwch.pgn", 20, 1692),
    ("chess960/python-chess-cutechess-fischerrandom.pgn", 4, 396),
    ("engine-tcec/TCEC_Season_4_-_Superfinal.pgn", 48, 7756),
    ("engine-tcec/TCEC_Season_5_-_Superfinal.pgn", 48, 6622),
    ("engine-tcec/TCEC_Season_6_-_Superfinal.pgn", 64, 7369),
    ("engine-tcec/TCEC_Season_7_-_Superfinal.pgn", 64, 7677),
    ("lichess/lichess_2021-10_first999.pgn", 999, 66292),
    ("lichess/lichess_DannyTheDonkey_2019-01-29.pgn", 105, 9422),
    ("lichess/lichess_db_1000k.pgn", 438, 28538),
    ("opening-lines/2moves_v2.pgn", 12092, 48368),
    ("opening-lines/8moves_v3.pgn", 34700, 555200),
    (
        "opening-lines/bjbraams_chessdb_198350_lines.pgn",
        198350,
        2517446,
    ),
    ("otb-pgnmentor/Alekhine.pgn", 1660, 132547),
    ("otb-pgnmentor/Anand.pgn", 3965, 318724),
    ("otb-pgnmentor/Anderssen.pgn", 681, 49499),
    ("otb-pgnmentor/Aronian.pgn", 3819, 341239),
    ("otb-pgnmentor/Botvinnik.pgn", 891, 74711),
    ("otb-pgnmentor/Bronstein.pgn", 1930, 145190),
    ("otb-pgnmentor/Capablanca.pgn", 597, 46577),
    ("otb-pgnmentor/Carlsen.pgn", 4089, 374845),
    ("otb-pgnmentor/Caruana.pgn", 3011, 283623),
    ("otb-pgnmentor/Chigorin.pgn", 688, 60144),
    ("otb-pgnmentor/Ding.pgn", 1746, 156468),
    ("otb-pgnmentor/Euwe.pgn", 1122, 85497),
    ("otb-pgnmentor/Firouzja.pgn", 1876, 179739),
    ("otb-pgnmentor/Fischer.pgn", 827, 67340),
    ("otb-pgnmentor/Giri.pgn", 2756, 248600),
    ("otb-pgnmentor/Karpov.pgn", 3520, 294287),
    ("otb-pgnmentor/Kasparov.pgn", 2128, 162894),
    ("otb-pgnmentor/Keres.pgn", 1571, 121350),
    ("otb-pgnmentor/Korchnoi.pgn", 4569, 378771),
    ("otb-pgnmentor/Kramnik.pgn", 3130, 260100),
    ("otb-pgnmentor/Lasker.pgn", 900, 70647),
    ("otb-pgnmentor/Morphy.pgn", 211, 13835),
    ("otb/pgn4web-carlsensvidler.pgn", 1, 74),
    ("otb/pgn4web-euroteams2011.pgn", 76, 5777),
    ("otb/pgn4web-lon09r5.pgn", 4, 386),
    ("otb/pgn4web-oly14r11.pgn", 12, 1165),
    ("otb/pgn4web-tilb98r2.pgn", 6, 512),
    ("otb/pychess-bilbao.pgn", 1, 348),
    ("otb/pychess-dortmund.pgn", 347, 27742),
    ("otb/pychess-world_matches.pgn", 580, 49364),
    ("twic/twic1599_1000k.pgn", 1110, 101487),
    ("twic/twic944.pgn", 2953, 240964),
];

#[test]
fn compressed_input_gives_the_same_games() {
    let Some(root) = corpus() else { return };
    let path = root.join("games/otb/pgn4web-tilb98r2.pgn");
    let text = std::fs::read(&path).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let packed = dir.path().join("games.pgn.unknown-extension");
    std::fs::write(&packed, gz.finish().unwrap()).unwrap();
    let plain = read(&path);
    let unpacked = read(&packed);
    assert_eq!(unpacked.games.len(), 6);
    assert!(plain.games == unpacked.games);
}

#[test]
fn game_files_counts_and_round_trip() {
    let Some(root) = corpus() else { return };
    let games_dir = root.join("games");
    let pgn_files: Vec<PathBuf> = files_under(&games_dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
        .collect();
    assert_eq!(
        pgn_files.len(),
        GAME_FILES.len(),
        "a .pgn file is missing from the table"
    );
    for &(file, games, plies) in GAME_FILES {
        let path = games_dir.join(file);
        let r = read(&path);
        assert_eq!(r.games.len(), games, "{file}: games");
        assert_eq!(
            r.games.iter().map(Game::plies).sum::<usize>(),
            plies,
            "{file}: plies"
        );
        assert!(
            r.games.iter().all(|g| !g.is_rejected()),
            "{file}: a game was rejected"
        );
        let text = std::fs::read(&path).unwrap();
        let events = text
            .split(|&b| b == b'\n')
            .filter(|l| l.starts_with(b"[Event "))
            .count();
        if events > 0 {
            assert_eq!(events, games, "{file}: [Event lines");
        }

        // Write every game, read the whole output back: the same games, none rejected.
        let mut out = String::new();
        for g in &r.games {
            pgn::write_game(g, &WriteOptions::default(), &mut out);
        }
        assert!(
            out.lines()
                .all(|l| l.chars().count() <= 79 || l.starts_with('[') || l.contains(';')),
            "{file}: a line is longer than 79 characters"
        );
        let back = pgn::parse_all(out.as_bytes()).0;
        assert_eq!(back.len(), games, "{file}: round-trip game count");
        for (mut a, b) in r.games.into_iter().zip(&back) {
            // What the writer exports: the Seven Tag Roster first, a marker always present.
            a.tags = pgn::export_tags(&a).into();
            a.result = Some(pgn::export_marker(&a));
            assert!(
                a == *b,
                "{file}: game {} differs after write and read",
                a.game_number
            );
            assert!(
                !b.is_rejected(),
                "{file}: game {} rejected after writing",
                a.game_number
            );
        }
    }
}

mod no_panic {
    use arbiter::pgn;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn splitting_and_parsing_arbitrary_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
            let (games, _) = pgn::parse_all(&bytes);
            for g in &games {
                let _ = pgn::game_to_string(g, &pgn::WriteOptions::default());
            }
        }

        #[test]
        fn pgn_like_bytes_never_panic(text in "[\\[\\]{}()\";%$!?.*\\\\ \\n\\r\\t0-9a-hKQRBNOxZ=+#/-]{0,400}") {
            let (games, _) = pgn::parse_all(text.as_bytes());
            for g in &games {
                let written = pgn::game_to_string(g, &pgn::WriteOptions::default());
                let _ = pgn::parse_all(written.as_bytes());
            }
        }
    }

    #[test]
    fn nesting_is_linear_in_time() {
        // 200k open parentheses and a stray close: no recursion, no quadratic blow-up.
        let mut text = String::from("[Event \"deep\"]\n\n1. e4 ");
        text.push_str(&"( d4 ".repeat(200_000));
        text.push_str(&")".repeat(200_001));
        let start = std::time::Instant::now();
        let (games, _) = pgn::parse_all(text.as_bytes());
        assert_eq!(games.len(), 1);
        // The reader stops at its depth cap (issue 19): the tree is kept to 128 levels and
        // the rest of the movetext is not read.
        assert!(games[0].has_finding(pgn::code::GAME_TOO_COMPLEX));
        let written = pgn::game_to_string(&games[0], &pgn::WriteOptions::default());
        assert!(written.len() < 2_000, "{}", written.len());
        assert!(start.elapsed().as_secs() < 20);
    }
}
