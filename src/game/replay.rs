//! Replaying one parsed game: set up the start position (FEN/SetUp/Variant tags), resolve
//! each main-line token in strict or lenient SAN, record the repairs, and check variations
//! from the position they branch from. Findings use the PGN reader's located `Finding`.

use crate::chess::fen::parse_setup;
use crate::chess::san::{self, SanMode};
use crate::chess::{Move, Position, SanError};
use crate::findings::severity;
use crate::game::keys::PlyKey;
use crate::pgn::{Finding, Game, MoveNode, Pos, Severity};

/// Finding codes of the replay stage (declared in the one catalogue, `crate::findings`).
pub mod code {
    pub use crate::findings::replay::*;

    /// Lenient repairs, one code per kind: `move.repaired.<kind>`.
    pub fn repair(kind: crate::chess::Repair) -> &'static str {
        use crate::chess::Repair::*;
        match kind {
            CastlingZeros => REPAIRED_CASTLING_ZEROS,
            MissingCapture => REPAIRED_MISSING_CAPTURE,
            SuperfluousCapture => REPAIRED_SUPERFLUOUS_CAPTURE,
            OverDisambiguation => REPAIRED_OVER_DISAMBIGUATION,
            PromotionForm => REPAIRED_PROMOTION_FORM,
            LongAlgebraic => REPAIRED_LONG_ALGEBRAIC,
            Uci => REPAIRED_UCI,
            EnPassantSuffix => REPAIRED_EN_PASSANT_SUFFIX,
            CheckSuffix => REPAIRED_CHECK_SUFFIX,
            AnnotationGlyph => REPAIRED_ANNOTATION_GLYPH,
            PawnLetter => REPAIRED_PAWN_LETTER,
        }
    }
}

/// A game replayed through the rules core. When a main-line move fails, `moves` holds the
/// moves before it and `complete` is false.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub start: Position,
    /// The FEN tag's text, when the game did not start from the standard position.
    pub start_fen: Option<String>,
    pub chess960: bool,
    pub moves: Vec<Move>,
    /// With [`replay_keyed`], the key data of the position after each of `moves` (what the
    /// Laws count repetitions and moves by); empty otherwise.
    pub keys: Vec<PlyKey>,
    /// The position after the last move played, its Zobrist hash not kept (the main line
    /// is played without it) unless `hashed`: read it through [`Replayed::final_position`].
    last: Position,
    /// `last`'s hash was kept on the way ([`replay_keyed`]).
    hashed: bool,
    pub complete: bool,
    pub findings: Vec<Finding>,
}

impl Replayed {
    /// The position after the last move played, with its Zobrist hash. The hash is
    /// computed here, on demand: `check` without the Laws never needs it, and computing it
    /// for every game was about 1 % of that run.
    pub fn final_position(&self) -> Position {
        let mut pos = self.last;
        if !self.hashed {
            pos.refresh_hash();
        }
        pos
    }

    pub fn is_rejected(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    pub fn plies(&self) -> usize {
        self.moves.len()
    }
}

fn finding(
    game: &Game,
    code: &'static str,
    severity: Severity,
    at: Pos,
    ply: Option<u32>,
    token: Option<&str>,
    message: String,
) -> Finding {
    Finding {
        code,
        severity,
        game_number: game.game_number,
        line: if at.line == 0 { game.line } else { at.line },
        column: at.column.max(1),
        byte: if at.line == 0 {
            game.byte_offset
        } else {
            at.byte
        },
        ply,
        token: token.map(str::to_owned),
        message,
    }
}

/// True for the Variant tag values that mean Chess960.
pub fn is_chess960_variant(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let squashed: String = lower
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    matches!(
        squashed.as_str(),
        "chess960" | "fischerandom" | "fischerrandom" | "960"
    )
}

/// The start position from the tags, or a finding saying why there is none.
fn start_position(
    game: &Game,
    mode: SanMode,
    findings: &mut Vec<Finding>,
) -> Option<(Position, Option<String>, bool)> {
    // Two lookups, which compare the names' lengths before any text (cheaper than one
    // pass that makes each tag's name and value into text).
    let variant = game.tags.value("Variant");
    let fen = game.tags.value("FEN");
    let chess960 = variant.is_some_and(is_chess960_variant);
    let Some(fen) = fen else {
        return Some((Position::new(), None, chess960));
    };
    let at = Pos::default();
    if game.tag("SetUp") != Some("1") {
        findings.push(finding(
            game,
            code::SETUP_MISSING,
            severity(code::SETUP_MISSING),
            at,
            None,
            None,
            "FEN tag without [SetUp \"1\"]; the FEN is used".into(),
        ));
    }
    let invalid = |message: String| {
        finding(
            game,
            code::FEN_INVALID,
            severity(code::FEN_INVALID),
            at,
            None,
            Some(fen),
            message,
        )
    };
    let mut setup = match parse_setup(fen) {
        Ok(s) => s,
        Err(e) => {
            findings.push(invalid(e.to_string()));
            return None;
        }
    };
    if mode == SanMode::Lenient {
        let dropped = setup.drop_invalid_castling();
        if dropped.nonempty() {
            let squares: Vec<String> = dropped.map(|s| s.to_string()).collect();
            findings.push(finding(
                game,
                code::FEN_CASTLING,
                severity(code::FEN_CASTLING),
                at,
                None,
                Some(fen),
                format!(
                    "castling rights with rooks on {} dropped: no king and rook can use them",
                    squares.join(", ")
                ),
            ));
        }
    }
    match Position::from_setup(&setup, chess960) {
        Ok(pos) => Some((pos, Some(fen.to_owned()), chess960 || pos.is_chess960())),
        Err(e) => {
            findings.push(invalid(e.to_string()));
            None
        }
    }
}

fn san_error_code(e: &SanError) -> &'static str {
    match e {
        SanError::Syntax(_) => code::UNREADABLE,
        SanError::Illegal(_) => code::ILLEGAL,
        SanError::Ambiguous(_) => code::AMBIGUOUS,
        SanError::NotCanonical { .. } => code::NOT_CANONICAL,
    }
}

/// Replays the main line (and checks the variations) of a parsed game.
pub fn replay(game: &Game, mode: SanMode) -> Replayed {
    replay_with::<false>(game, mode)
}

/// [`replay`], also keeping the key data of every position on the way
/// ([`Replayed::keys`]) for the Laws' verdict: the main line is then played with the
/// Zobrist hash kept, which the plain replay leaves out.
pub fn replay_keyed(game: &Game, mode: SanMode) -> Replayed {
    replay_with::<true>(game, mode)
}

#[inline(always)]
fn replay_with<const KEYS: bool>(game: &Game, mode: SanMode) -> Replayed {
    let mut findings = Vec::new();
    let Some((start, start_fen, chess960)) = start_position(game, mode, &mut findings) else {
        let start = Position::new();
        return Replayed {
            start,
            start_fen: game.tag("FEN").map(str::to_owned),
            chess960: false,
            moves: Vec::new(),
            keys: Vec::new(),
            last: start,
            hashed: false,
            complete: false,
            findings,
        };
    };
    let mut pos = start;
    // Written by index and cut to the moves played at the end: a push per move kept the
    // vector's length in memory (this loop holds too much for the registers) and cost ten
    // instructions a move. Measured: 6M fewer instructions on the master games.
    let mut moves = vec![Move::NONE; game.moves.len()];
    let mut keys = if KEYS {
        vec![PlyKey::default(); game.moves.len()]
    } else {
        Vec::new()
    };
    // How many moves were played: all, unless a move fails.
    let mut played = game.moves.len();
    let mut complete = true;
    for (i, node) in game.moves.iter().enumerate() {
        // Bytes, not `as_str`: the text is only needed (and UTF-8 checked) for a finding.
        // Canonical SAN (nearly every token) is played by the fast path; the general reader
        // takes the rest and decides the errors and repairs. The fast path leaves the
        // position's Zobrist hash behind (nothing here reads it): `final_position` computes it.
        // A null move is never canonical SAN, so the fast path may come before its test,
        // but not before the variations, which start from the position before the move.
        let token = node.san.as_bytes();
        let plain = node.variations().is_empty();
        if plain && let Some(mv) = play_fast::<KEYS>(&mut pos, token) {
            moves[i] = mv;
            if KEYS {
                keys[i] = PlyKey::of(&pos);
            }
            continue;
        }
        let ply = i as u32 + 1;
        if node.san.is_null() {
            let token = node.san.as_str();
            findings.push(finding(
                game,
                code::NULL_MOVE,
                severity(code::NULL_MOVE),
                node.pos,
                Some(ply),
                Some(token),
                "a null move is not a move of chess; the game cannot be replayed past it".into(),
            ));
            (complete, played) = (false, i);
            break;
        }
        // Variations replace this move: check them from the position before it.
        if !plain {
            check_variations(game, &pos, node, ply, mode, &mut findings);
            if let Some(mv) = play_fast::<KEYS>(&mut pos, token) {
                moves[i] = mv;
                if KEYS {
                    keys[i] = PlyKey::of(&pos);
                }
                continue;
            }
        }
        match san::play_san_bytes(&mut pos, token, mode) {
            Ok(r) => {
                for kind in &r.repairs {
                    let token = node.san.as_str();
                    findings.push(finding(
                        game,
                        code::repair(*kind),
                        severity(code::repair(*kind)),
                        node.pos,
                        Some(ply),
                        Some(token),
                        format!(
                            "{token:?} read as {:?} ({})",
                            r.canonical.as_str(),
                            kind.code()
                        ),
                    ));
                }
                moves[i] = r.mv;
                if KEYS {
                    keys[i] = PlyKey::of(&pos);
                }
            }
            Err(e) => {
                let token = node.san.as_str();
                findings.push(finding(
                    game,
                    san_error_code(&e),
                    severity(san_error_code(&e)),
                    node.pos,
                    Some(ply),
                    Some(token),
                    format!("move {}{}: {e}", move_number_text(&pos), token),
                ));
                (complete, played) = (false, i);
                break;
            }
        }
    }
    moves.truncate(played);
    keys.truncate(played);
    Replayed {
        start,
        start_fen,
        chess960,
        moves,
        keys,
        last: pos,
        // Every move of the main line was played keeping the hash (the fast path's hashed
        // form, or `play_san_bytes`), from a start position whose hash is whole.
        hashed: KEYS,
        complete,
        findings,
    }
}

/// The replay's fast path: canonical SAN, with the hash kept when the keys are wanted.
#[inline(always)]
fn play_fast<const KEYS: bool>(pos: &mut Position, token: &[u8]) -> Option<Move> {
    if KEYS {
        san::play_canonical_hashed(pos, token)
    } else {
        san::play_canonical_unhashed(pos, token)
    }
}

/// `12.` or `12...` for messages.
fn move_number_text(pos: &Position) -> String {
    match pos.turn() {
        crate::chess::Color::White => format!("{}. ", pos.fullmove_number()),
        crate::chess::Color::Black => format!("{}... ", pos.fullmove_number()),
    }
}

/// Walks every variation hanging off `node` (and their sub-variations) with an explicit
/// stack, so deep nesting cannot overflow. Only the first bad move of each line is reported.
fn check_variations(
    game: &Game,
    before: &Position,
    node: &MoveNode,
    ply: u32,
    mode: SanMode,
    findings: &mut Vec<Finding>,
) {
    let mut stack: Vec<(Position, &[MoveNode], u32)> = node
        .variations()
        .iter()
        .map(|line| (*before, line.as_slice(), ply))
        .collect();
    while let Some((mut pos, line, first_ply)) = stack.pop() {
        for (i, n) in line.iter().enumerate() {
            let ply = first_ply + i as u32;
            for sub in n.variations() {
                stack.push((pos, sub.as_slice(), ply));
            }
            if n.san.is_null() {
                // Null moves in variations are an annotator's "if it were the other side's turn".
                pos.play_null();
                continue;
            }
            match san::play_san_bytes(&mut pos, n.san.as_bytes(), mode) {
                Ok(_) => {}
                Err(e) => {
                    findings.push(finding(
                        game,
                        code::VARIATION_ILLEGAL,
                        severity(code::VARIATION_ILLEGAL),
                        n.pos,
                        Some(ply),
                        Some(n.san.as_str()),
                        format!("in a variation: {e}"),
                    ));
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::parse_all;

    fn one(text: &str) -> Game {
        let (mut games, _) = parse_all(text.as_bytes());
        assert_eq!(games.len(), 1);
        games.remove(0)
    }

    fn codes(r: &Replayed) -> Vec<&'static str> {
        r.findings.iter().map(|f| f.code).collect()
    }

    /// The main line is played without the Zobrist hash and the final position's hash is
    /// computed when asked for: it equals the one the hashed play steps reach, and a fresh
    /// count.
    #[test]
    fn final_position_hash_is_whole() {
        let g = one(concat!(
            "[Event \"t\"]\n\n1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. d4 Nf6 5. Nf3 Bf5 6. Bc4 e6 ",
            "7. Bd2 c6 8. Qe2 Bb4 9. O-O-O Nbd7 10. a3 Bxc3 11. Bxc3 Qc7 12. d5 cxd5 ",
            "13. Bxd5 Nxd5 14. Rxd5 O-O 15. Rd4 Rfe8 16. g4 Bg6 17. h4 h5 18. g5 a5 ",
            "19. Rhd1 b5 20. Ne5 Nxe5 *\n"
        ));
        let r = replay(&g, SanMode::Lenient);
        assert!(r.complete && !r.is_rejected(), "{:?}", r.findings);
        let mut pos = r.start;
        for &m in &r.moves {
            pos.play_unchecked(m);
        }
        let last = r.final_position();
        assert_eq!(pos, last);
        assert_eq!(last.zobrist(), pos.zobrist());
        assert_eq!(last.zobrist(), pos.zobrist_from_scratch());
    }

    #[test]
    fn replays_a_game_with_repairs() {
        let g = one("[Event \"t\"]\n\n1. e4 e5 2. Ng1f3 Nc6 3. Bb5 a6 4. Bxc6 dc6 5. 0-0 *\n");
        let r = replay(&g, SanMode::Lenient);
        assert!(r.complete && !r.is_rejected());
        assert_eq!(r.plies(), 9);
        let mut pos = r.start;
        let sans: Vec<String> = r
            .moves
            .iter()
            .map(|&m| {
                let san = san::to_san(&pos, m).to_string();
                pos.play_unchecked(m);
                san
            })
            .collect();
        assert_eq!(
            sans,
            ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "O-O"]
        );
        assert_eq!(
            codes(&r),
            [
                "move.repaired.long-algebraic",
                "move.repaired.missing-capture",
                "move.repaired.castling-zeros"
            ]
        );
        let f = &r.findings[1];
        assert_eq!(
            (f.ply, f.line, f.token.as_deref()),
            (Some(8), 3, Some("dc6"))
        );
        // Strict mode rejects the first of them.
        let s = replay(&g, SanMode::Strict);
        assert!(s.is_rejected() && !s.complete);
        assert_eq!(codes(&s), ["move.not-canonical"]);
        assert_eq!(s.plies(), 2);
    }

    #[test]
    fn illegal_and_unreadable_moves_are_located_errors() {
        let g = one("[Event \"t\"]\n\n1. e4 e5 2. Ke3 *\n");
        let r = replay(&g, SanMode::Lenient);
        assert_eq!(codes(&r), ["move.illegal"]);
        let f = &r.findings[0];
        assert_eq!((f.ply, f.line, f.column), (Some(3), 3, 13));
        assert!(f.message.contains("2. Ke3"), "{}", f.message);
        // An unreadable token is the reader's error; the replay stops short of it.
        let g = one("[Event \"t\"]\n\n1. e4 Zq9 *\n");
        assert!(g.has_finding("pgn.unreadable-token") && g.is_rejected());
    }

    #[test]
    fn fen_and_chess960_tags() {
        let g = one(
            "[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1\"]\n\n1. O-O *\n",
        );
        let r = replay(&g, SanMode::Lenient);
        assert!(r.chess960 && r.complete, "{:?}", r.findings);
        assert_eq!(
            r.final_position().fen(),
            "rk5r/8/8/8/8/8/8/R4RK1 b kq - 1 1"
        );
        let bad = one("[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n\n1. e4 *\n");
        assert_eq!(
            codes(&replay(&bad, SanMode::Lenient)),
            ["setup.invalid-fen"]
        );
    }

    #[test]
    fn variations_are_checked_from_their_branch_point() {
        let g = one(
            "[Event \"t\"]\n\n1. e4 (1. d4 d5 (1... Nf6 2. c4) 2. c4) 1... e5 (1... Ke7) 2. Nf3 *\n",
        );
        let r = replay(&g, SanMode::Lenient);
        assert!(r.complete);
        assert_eq!(codes(&r), ["variation.illegal-move"]);
        assert_eq!(r.findings[0].token.as_deref(), Some("Ke7"));
    }

    /// The keyed replay hands the Laws the same key data as a key walk over its moves, on
    /// every ply: castling both ways (rights lost), double steps beside a pawn and en
    /// passant, a promotion taking a rook in its corner, a rook taken in the other, checks,
    /// a repetition; and from a FEN whose en passant capture is legal.
    #[test]
    fn replay_keyed_keeps_the_key_walk_s_keys() {
        let games = [
            concat!(
                "[Event \"t\"]\n\n1. e4 d5 2. e5 f5 3. exf6 Nxf6 4. Nf3 Bg4 5. Be2 Nc6 ",
                "6. O-O Qd7 7. d3 O-O-O 8. b4 e5 9. b5 e4 10. bxc6 exf3 11. cxb7+ Kb8 ",
                "12. Bxf3 Bxf3 13. Qxf3 d4 14. c4 dxc3 15. Nxc3 Qd5 *\n"
            ),
            concat!(
                "[Event \"t\"]\n[SetUp \"1\"]\n",
                "[FEN \"r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1\"]\n\n",
                "1. bxa8=Q+ Kd7 2. Qxh8 Ke6 3. O-O Kd6 4. Rf2 Kd7 5. Rff1 Kd6 6. Rf2 Kd7 ",
                "7. Rff1 Kd6 *\n"
            ),
            concat!(
                "[Event \"t\"]\n[SetUp \"1\"]\n",
                "[FEN \"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3\"]\n\n",
                "3. exf6 Nxf6 4. Nf3 Ng8 5. Ng1 Nf6 *\n"
            ),
        ];
        for text in games {
            let g = one(text);
            let keyed = replay_keyed(&g, SanMode::Lenient);
            assert!(
                keyed.complete && !keyed.is_rejected(),
                "{:?}",
                keyed.findings
            );
            let plain = replay(&g, SanMode::Lenient);
            assert_eq!(keyed.moves, plain.moves);
            assert!(plain.keys.is_empty());
            assert_eq!(keyed.keys, PlyKey::walk(&keyed.start, &keyed.moves));
            assert_eq!(keyed.keys.len(), keyed.moves.len());
            // And each is the position's own repetition key, or that key's en passant
            // alternative.
            let mut pos = keyed.start;
            for (&m, k) in keyed.moves.iter().zip(&keyed.keys) {
                pos.play_unchecked(m);
                let exact = pos.repetition_key();
                assert!(exact == k.plain_key() || Some(exact) == k.key_with_ep());
                assert_eq!(k.halfmove_clock(), pos.halfmove_clock());
            }
            assert_eq!(keyed.final_position(), plain.final_position());
            let last = keyed.final_position();
            assert_eq!(last.zobrist(), last.zobrist_from_scratch());
        }
    }
}
