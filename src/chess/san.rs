//! Standard Algebraic Notation (PGN standard 8.2.3, FIDE Laws Appendix C): text → `San` →
//! `Move` against a position, and `Move` → canonical SAN. Two reading modes: `Strict` takes
//! exactly canonical SAN; `Lenient` also takes what real files contain and lists every repair
//! it made. Ambiguous or illegal moves are errors in both modes: nothing is ever guessed.

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, TargetMoves};
use super::position::Position;
use super::types::{CastlingSide, Color, File, Rank, Role, Square};
use std::fmt;

/// A parsed SAN move, not yet tied to a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum San {
    Normal {
        role: Role,
        file: Option<File>,
        rank: Option<Rank>,
        capture: bool,
        to: Square,
        promotion: Option<Role>,
    },
    Castle(CastlingSide),
}

/// The check/mate mark written after a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suffix {
    Check,
    Mate,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SanMode {
    Strict,
    Lenient,
}

/// One kind of repair the lenient reader made to reach canonical SAN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Repair {
    /// `0-0` or `o-o` for `O-O`.
    CastlingZeros,
    /// A capture written without `x` (`ed5`).
    MissingCapture,
    /// `x` on a move that captures nothing.
    SuperfluousCapture,
    /// More origin file/rank than needed (`Nbd7` where `Nd7` is unique).
    OverDisambiguation,
    /// A promotion without `=` (`e8Q`, `e8(Q)`, `e8/Q`).
    PromotionForm,
    /// Long algebraic (`Ng1f3`, `e2-e4`, `e2xe4`).
    LongAlgebraic,
    /// UCI coordinates (`e2e4`, `e7e8q`).
    Uci,
    /// The `e.p.` suffix.
    EnPassantSuffix,
    /// `+`/`#` missing, or present where wrong.
    CheckSuffix,
    /// Annotation glyphs glued to the move (`e4!?`).
    AnnotationGlyph,
    /// A `P` letter for a pawn move.
    PawnLetter,
}

impl Repair {
    /// Stable name, used in finding codes.
    pub fn code(self) -> &'static str {
        match self {
            Repair::CastlingZeros => "castling-zeros",
            Repair::MissingCapture => "missing-capture",
            Repair::SuperfluousCapture => "superfluous-capture",
            Repair::OverDisambiguation => "over-disambiguation",
            Repair::PromotionForm => "promotion-form",
            Repair::LongAlgebraic => "long-algebraic",
            Repair::Uci => "uci",
            Repair::EnPassantSuffix => "en-passant-suffix",
            Repair::CheckSuffix => "check-suffix",
            Repair::AnnotationGlyph => "annotation-glyph",
            Repair::PawnLetter => "pawn-letter",
        }
    }
}

/// Why a SAN token could not be read or played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SanError {
    /// Not SAN at all (in the mode used).
    Syntax(String),
    /// No legal move matches.
    Illegal(String),
    /// More than one legal move matches.
    Ambiguous(String),
    /// Strict mode: a legal move, but not written canonically.
    NotCanonical { token: String, canonical: String },
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SanError::Syntax(t) => write!(f, "{t:?} is not a move in algebraic notation"),
            SanError::Illegal(t) => write!(f, "{t:?} is not a legal move in this position"),
            SanError::Ambiguous(t) => {
                write!(f, "{t:?} is ambiguous: more than one legal move matches")
            }
            SanError::NotCanonical { token, canonical } => {
                write!(f, "{token:?} is not standard SAN (expected {canonical:?})")
            }
        }
    }
}

impl std::error::Error for SanError {}

/// Canonical SAN text on the stack (the longest SAN, e.g. `Qh4xe1+` or `exd8=Q#`, fits).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SanText {
    buf: [u8; 12],
    len: u8,
}

impl SanText {
    fn new() -> SanText {
        SanText {
            buf: [0; 12],
            len: 0,
        }
    }

    /// The text of a token already known to be canonical SAN (ASCII, at most 12 bytes;
    /// anything longer is cut).
    fn from_ascii(text: &[u8]) -> SanText {
        let mut out = SanText::new();
        let n = text.len().min(out.buf.len());
        out.buf[..n].copy_from_slice(&text[..n]);
        out.len = n as u8;
        out
    }

    fn push(&mut self, c: char) {
        if (self.len as usize) < self.buf.len() {
            self.buf[self.len as usize] = c as u8;
            self.len += 1;
        }
    }

    /// The text's bytes (ASCII); comparisons on the hot path use these, not `as_str`,
    /// which checks UTF-8 on every call.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }

    pub fn as_str(&self) -> &str {
        // Only ASCII is ever pushed.
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }
}

impl fmt::Display for SanText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for SanText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// A token resolved against a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub mv: Move,
    pub canonical: SanText,
    /// Empty when the token was canonical. Sorted, without duplicates.
    pub repairs: Vec<Repair>,
}

// ---- writing ----------------------------------------------------------------------------

/// Canonical SAN for a legal move, with `+`/`#`.
pub fn to_san(pos: &Position, m: Move) -> SanText {
    let mut after = *pos;
    after.play_unchecked(m);
    let mut out = san_without_suffix(pos, m);
    push_suffix(&mut out, &after);
    out
}

/// Canonical SAN for a legal move without its suffix, for a replay that has the position
/// after the move in hand anyway: `push_suffix` with that position completes it (the same
/// text as `to_san`, without playing the move a second time).
pub fn san_without_check(pos: &Position, m: Move) -> SanText {
    san_without_suffix(pos, m)
}

/// Appends `+` or `#` as the position after the move requires.
pub fn push_suffix(out: &mut SanText, after: &Position) {
    if after.is_check() {
        out.push(if after.has_legal_moves() { '+' } else { '#' });
    }
}

fn san_without_suffix(pos: &Position, m: Move) -> SanText {
    if m.is_castle() {
        return castling_text(m);
    }
    let role = pos.piece_at(m.from()).map_or(Role::Pawn, |p| p.role);
    let mut same_target = TargetMoves::new();
    if role != Role::Pawn && role != Role::King {
        pos.legal_moves_to(role, m.to(), &mut same_target);
    }
    assemble(pos, m, role, &same_target)
}

fn castling_text(m: Move) -> SanText {
    let mut out = SanText::new();
    let text = match m.castling_side() {
        Some(CastlingSide::QueenSide) => "O-O-O",
        _ => "O-O",
    };
    for c in text.chars() {
        out.push(c);
    }
    out
}

/// SAN without suffix for a non-castling move, given every legal move of the same role to
/// the same square (for disambiguation, PGN standard 8.2.3.4: file if it tells the pieces
/// apart, else rank, else both).
fn assemble(pos: &Position, m: Move, role: Role, same_target: &TargetMoves) -> SanText {
    let mut out = SanText::new();
    let capture = pos.is_capture(m);
    let from = m.from();
    let to = m.to();
    if role == Role::Pawn {
        if capture {
            out.push(from.file().char());
        }
    } else {
        out.push(role.upper_char());
        let mut rivals = same_target
            .iter()
            .map(|o| o.from())
            .filter(|&f| f != from)
            .peekable();
        if role != Role::King && rivals.peek().is_some() {
            let (mut same_file, mut same_rank) = (false, false);
            for r in rivals {
                same_file |= r.file() == from.file();
                same_rank |= r.rank() == from.rank();
            }
            if !same_file {
                out.push(from.file().char());
            } else if !same_rank {
                out.push(from.rank().char());
            } else {
                out.push(from.file().char());
                out.push(from.rank().char());
            }
        }
    }
    if capture {
        out.push('x');
    }
    out.push(to.file().char());
    out.push(to.rank().char());
    if let Some(p) = m.promotion_role() {
        out.push('=');
        out.push(p.upper_char());
    }
    out
}

// ---- parsing -------------------------------------------------------------------------

/// Splits off trailing `+`, `#`, `!`, `?` marks.
fn split_suffix(token: &str) -> (&str, Option<Suffix>, bool) {
    let mut body = token;
    let mut suffix = None;
    let mut glyph = false;
    while let Some(c) = body.chars().last() {
        match c {
            '+' => suffix = suffix.or(Some(Suffix::Check)),
            '#' => suffix = Some(Suffix::Mate),
            '!' | '?' => glyph = true,
            _ => break,
        }
        body = &body[..body.len() - 1];
    }
    // `++` was an old way of writing mate.
    if token.trim_end_matches(['!', '?']).ends_with("++") {
        suffix = Some(Suffix::Mate);
    }
    (body, suffix, glyph)
}

/// Strict grammar: `[NBRQK][file][rank][x]square[=NBRQ][+#]` or `O-O(-O)[+#]`.
pub fn parse_strict(token: &str) -> Result<(San, Option<Suffix>), SanError> {
    parse_strict_bytes(token.as_bytes())
}

/// The token as error text: at most 32 characters.
fn shown(token: &[u8]) -> String {
    String::from_utf8_lossy(token).chars().take(32).collect()
}

/// [`parse_strict`] on bytes: the replay's tokens are ASCII already, and checking UTF-8
/// per token cost more than the parse.
fn parse_strict_bytes(token: &[u8]) -> Result<(San, Option<Suffix>), SanError> {
    let syntax = || SanError::Syntax(shown(token));
    let (body, suffix) = match token.last() {
        Some(b'+') => (&token[..token.len() - 1], Some(Suffix::Check)),
        Some(b'#') => (&token[..token.len() - 1], Some(Suffix::Mate)),
        _ => (token, None),
    };
    match body {
        b"O-O" => return Ok((San::Castle(CastlingSide::KingSide), suffix)),
        b"O-O-O" => return Ok((San::Castle(CastlingSide::QueenSide), suffix)),
        _ => {}
    }
    let b = body;
    let mut i = 0;
    let role = match b.first() {
        Some(&c @ (b'N' | b'B' | b'R' | b'Q' | b'K')) => {
            i = 1;
            Role::from_char(c as char).ok_or_else(syntax)?
        }
        _ => Role::Pawn,
    };
    // Promotion at the end.
    let (core, promotion) = if b.len() >= 2 && b[b.len() - 2] == b'=' {
        let p = Role::from_char(b[b.len() - 1] as char)
            .filter(|r| {
                !matches!(r, Role::Pawn | Role::King) && b[b.len() - 1].is_ascii_uppercase()
            })
            .ok_or_else(syntax)?;
        (&b[i..b.len() - 2], Some(p))
    } else {
        (&b[i..], None)
    };
    let to = match core {
        [.., f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            Square::from_coords(File(f - b'a'), Rank(r - b'1'))
        }
        _ => return Err(syntax()),
    };
    let mut rest = &core[..core.len() - 2];
    let capture = rest.last() == Some(&b'x');
    if capture {
        rest = &rest[..rest.len() - 1];
    }
    let (file, rank) = match rest {
        [] => (None, None),
        [f @ b'a'..=b'h'] => (Some(File(f - b'a')), None),
        [r @ b'1'..=b'8'] => (None, Some(Rank(r - b'1'))),
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => (Some(File(f - b'a')), Some(Rank(r - b'1'))),
        _ => return Err(syntax()),
    };
    if role == Role::Pawn && (rank.is_some() || capture != file.is_some()) {
        return Err(syntax());
    }
    if role != Role::Pawn && promotion.is_some() {
        return Err(syntax());
    }
    Ok((
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        },
        suffix,
    ))
}

/// What the lenient reader saw, before resolution.
struct Loose {
    san: San,
    suffix: Option<Suffix>,
    repairs: Vec<Repair>,
    /// For long algebraic / UCI: the exact origin square.
    from: Option<Square>,
}

fn parse_lenient(token: &str) -> Result<Loose, SanError> {
    let syntax = || SanError::Syntax(token.chars().take(32).collect());
    let mut repairs = Vec::new();
    let (mut body, suffix, glyph) = split_suffix(token.trim());
    if glyph {
        repairs.push(Repair::AnnotationGlyph);
    }
    for ep in ["e.p.", "ep", "e.p"] {
        if let Some(stripped) = body.strip_suffix(ep)
            && stripped.len() >= 2
        {
            body = stripped.trim_end();
            repairs.push(Repair::EnPassantSuffix);
            break;
        }
    }
    let (body, suffix2, _) = split_suffix(body);
    let suffix = suffix.or(suffix2);
    let castle = match body {
        "O-O" | "0-0" | "o-o" => Some((CastlingSide::KingSide, "O-O")),
        "O-O-O" | "0-0-0" | "o-o-o" => Some((CastlingSide::QueenSide, "O-O-O")),
        _ => None,
    };
    if let Some((side, standard)) = castle {
        if body != standard {
            repairs.push(Repair::CastlingZeros);
        }
        return Ok(Loose {
            san: San::Castle(side),
            suffix,
            repairs,
            from: None,
        });
    }
    let mut b = body.as_bytes();
    if !b.is_ascii() || b.is_empty() {
        return Err(syntax());
    }
    // Promotion piece at the end: `=Q`, `Q`, `(Q)`, `/Q`, or UCI's `q` after a full square.
    let mut promotion = None;
    let n = b.len();
    let promo_letter =
        |c: u8| Role::from_char(c as char).filter(|r| !matches!(r, Role::Pawn | Role::King));
    if n >= 4 && b[n - 3] == b'(' && b[n - 1] == b')' {
        promotion = Some(promo_letter(b[n - 2]).ok_or_else(syntax)?);
        b = &b[..n - 3];
        repairs.push(Repair::PromotionForm);
    } else if n >= 3 && (b[n - 2] == b'=' || b[n - 2] == b'/') && promo_letter(b[n - 1]).is_some() {
        promotion = promo_letter(b[n - 1]);
        if b[n - 2] != b'=' || b[n - 1].is_ascii_lowercase() {
            repairs.push(Repair::PromotionForm);
        }
        b = &b[..n - 2];
    } else if n >= 3 && b[n - 2].is_ascii_digit() && promo_letter(b[n - 1]).is_some() {
        promotion = promo_letter(b[n - 1]);
        if b[n - 1].is_ascii_uppercase() {
            repairs.push(Repair::PromotionForm);
        }
        b = &b[..n - 1];
    }
    // Leading piece letter (upper case only: a lower-case `b` is always the b-file).
    let mut role = Role::Pawn;
    if let Some(&c) = b.first()
        && matches!(c, b'N' | b'B' | b'R' | b'Q' | b'K' | b'P')
    {
        role = Role::from_char(c as char).ok_or_else(syntax)?;
        if c == b'P' {
            repairs.push(Repair::PawnLetter);
        }
        b = &b[1..];
    }
    if b.len() < 2 {
        return Err(syntax());
    }
    let to = Square::parse(std::str::from_utf8(&b[b.len() - 2..]).map_err(|_| syntax())?)
        .ok_or_else(syntax)?;
    let mut rest = &b[..b.len() - 2];
    let mut capture = false;
    let mut hyphen = false;
    match rest.last() {
        Some(b'x' | b':') => {
            capture = true;
            rest = &rest[..rest.len() - 1];
        }
        Some(b'-') => {
            hyphen = true;
            rest = &rest[..rest.len() - 1];
        }
        _ => {}
    }
    let (file, rank) = match rest {
        [] => (None, None),
        [f @ b'a'..=b'h'] => (Some(File(f - b'a')), None),
        [r @ b'1'..=b'8'] => (None, Some(Rank(r - b'1'))),
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => (Some(File(f - b'a')), Some(Rank(r - b'1'))),
        _ => return Err(syntax()),
    };
    if hyphen && (file.is_none() || rank.is_none()) {
        return Err(syntax());
    }
    let from = match (file, rank) {
        (Some(f), Some(r)) => Some(Square::from_coords(f, r)),
        _ => None,
    };
    if from.is_some() {
        if role == Role::Pawn && !hyphen && !capture && !token.contains(['x', ':', '-']) {
            // Pure coordinates (`e2e4`, `e7e8q`).
            repairs.retain(|r| *r != Repair::PromotionForm);
            repairs.push(Repair::Uci);
        } else if role == Role::Pawn || hyphen {
            repairs.push(Repair::LongAlgebraic);
        }
        // A piece move with its full origin square (`Ng1f3`) is long algebraic unless both
        // coordinates are needed; that is decided against the position.
    }
    if rank.is_some() && file.is_none() && role == Role::Pawn {
        return Err(syntax());
    }
    Ok(Loose {
        san: San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        },
        suffix,
        repairs,
        from,
    })
}

impl San {
    /// Fills `all` with every legal move of the same role to the same square (what
    /// disambiguation is measured against; for castling, the castling move) and returns the
    /// moves among them this SAN denotes: none, the one, or the first two when ambiguous.
    fn candidates(
        &self,
        pos: &Position,
        exact_from: Option<Square>,
        all: &mut TargetMoves,
    ) -> (Option<Move>, Option<Move>) {
        match *self {
            San::Castle(side) => {
                let us = pos.turn();
                let king = pos.king_of(us);
                let mv = pos
                    .castling()
                    .rook(us, side)
                    .map(|rook| Move::castle(king, rook))
                    .filter(|&m| pos.is_legal(m));
                if let Some(m) = mv {
                    all.push(m);
                }
                (mv, None)
            }
            San::Normal {
                role,
                file,
                rank,
                to,
                promotion,
                ..
            } => {
                pos.legal_moves_to(role, to, all);
                all.retain(|m| m.promotion_role() == promotion);
                let mut found = all.iter().copied().filter(|m| {
                    let from = m.from();
                    file.is_none_or(|f| from.file() == f)
                        && rank.is_none_or(|r| from.rank() == r)
                        && exact_from.is_none_or(|sq| sq == from)
                        // A pawn without an origin file can only push: never guess a capture.
                        && (role != Role::Pawn || file.is_some() || from.file() == to.file())
                });
                (found.next(), found.next())
            }
        }
    }
}

// ---- the replay's fast path -----------------------------------------------------------

/// The square named by a file letter and a rank digit.
#[inline]
fn square_of(file: u8, rank: u8) -> Option<Square> {
    match (file, rank) {
        (b'a'..=b'h', b'1'..=b'8') => {
            Some(Square::from_coords(File(file - b'a'), Rank(rank - b'1')))
        }
        _ => None,
    }
}

/// Plays `token` when it is exactly the canonical SAN of a legal move, `+`/`#` included,
/// and returns the move. Anything else (an error, a repair, ambiguity, an odd spelling)
/// returns `None` with `pos` untouched, and the general reader decides. Every token
/// accepted here is one the general reader accepts in both modes, with no repair, as the
/// same move: it finds the mover by attack lookups from the destination, tests only the
/// candidates' legality, and checks that the written disambiguation and suffix are the ones
/// `assemble` and `push_suffix` would write, instead of building the text and comparing.
#[inline]
pub fn play_canonical(pos: &mut Position, token: &[u8]) -> Option<Move> {
    play_canonical_with::<true>(pos, token)
}

/// [`play_canonical`] without keeping the position's Zobrist hash: the replay's main line,
/// which calls [`Position::refresh_hash`] when it is done. Nothing on the way reads the hash.
#[inline(always)]
pub(crate) fn play_canonical_unhashed(pos: &mut Position, token: &[u8]) -> Option<Move> {
    play_canonical_with::<false>(pos, token)
}

/// [`play_canonical`] inlined into its caller: the replay's main line when it keeps the
/// key data of every position (`game::replay_keyed`).
#[inline(always)]
pub(crate) fn play_canonical_hashed(pos: &mut Position, token: &[u8]) -> Option<Move> {
    play_canonical_with::<true>(pos, token)
}

/// What the pawn reader found: a pawn move or promotion (origin, destination, the role it
/// stands as after), or en passant.
enum Found {
    Plain(Square, Square, Role),
    Special(Move),
}

#[inline(always)]
fn play_canonical_with<const HASH: bool>(pos: &mut Position, token: &[u8]) -> Option<Move> {
    let (body, suffix) = match token.split_last() {
        Some((b'+', rest)) => (rest, Some(Suffix::Check)),
        Some((b'#', rest)) => (rest, Some(Suffix::Mate)),
        _ => (token, None),
    };
    // Each arm finishes with its own role known, so the check test after it is the one
    // for that role.
    match body {
        [b'a'..=b'h', ..] => match canonical_pawn(pos, body)? {
            Found::Plain(from, to, Role::Pawn) => {
                finish::<HASH>(pos, from, to, Role::Pawn, Role::Pawn, suffix)
            }
            Found::Plain(from, to, placed) => {
                finish::<HASH>(pos, from, to, Role::Pawn, placed, suffix)
            }
            Found::Special(mv) => play_special_checked(pos, mv, suffix),
        },
        [b'N', rest @ ..] => {
            let (from, to) = canonical_piece(pos, Role::Knight, rest)?;
            finish::<HASH>(pos, from, to, Role::Knight, Role::Knight, suffix)
        }
        [b'B', rest @ ..] => {
            let (from, to) = canonical_piece(pos, Role::Bishop, rest)?;
            finish::<HASH>(pos, from, to, Role::Bishop, Role::Bishop, suffix)
        }
        [b'R', rest @ ..] => {
            let (from, to) = canonical_piece(pos, Role::Rook, rest)?;
            finish::<HASH>(pos, from, to, Role::Rook, Role::Rook, suffix)
        }
        [b'Q', rest @ ..] => {
            let (from, to) = canonical_piece(pos, Role::Queen, rest)?;
            finish::<HASH>(pos, from, to, Role::Queen, Role::Queen, suffix)
        }
        [b'K', rest @ ..] => {
            let (from, to) = canonical_king(pos, rest)?;
            finish::<HASH>(pos, from, to, Role::King, Role::King, suffix)
        }
        b"O-O" => play_special_checked(pos, canonical_castle(pos, CastlingSide::KingSide)?, suffix),
        b"O-O-O" => {
            play_special_checked(pos, canonical_castle(pos, CastlingSide::QueenSide)?, suffix)
        }
        _ => None,
    }
}

/// Plays a normal move or promotion found legal when the written mark is the right one.
#[inline(always)]
fn finish<const HASH: bool>(
    pos: &mut Position,
    from: Square,
    to: Square,
    moving: Role,
    placed: Role,
    suffix: Option<Suffix>,
) -> Option<Move> {
    let checkers = pos.checkers_after(from, to, placed);
    match (checkers.nonempty(), suffix) {
        // The common case: no check, no mark. Played in place, without a copy.
        (false, None) => {
            pos.play_normal::<HASH>(from, to, moving, placed, checkers);
            Some(plain_move(from, to, moving, placed))
        }
        (false, Some(_)) | (true, None) => None,
        (true, Some(suffix)) => {
            finish_check::<HASH>(pos, from, to, moving, placed, checkers, suffix)
        }
    }
}

#[inline(always)]
fn plain_move(from: Square, to: Square, moving: Role, placed: Role) -> Move {
    if moving == placed {
        Move::normal(from, to)
    } else {
        Move::promotion(from, to, placed)
    }
}

/// A checking move: the mark must say check or mate, as the position after the move has it
/// (played in place, and undone from a copy when the mark is wrong).
#[inline(never)]
fn finish_check<const HASH: bool>(
    pos: &mut Position,
    from: Square,
    to: Square,
    moving: Role,
    placed: Role,
    checkers: Bitboard,
    suffix: Suffix,
) -> Option<Move> {
    let before = *pos;
    pos.play_normal::<HASH>(from, to, moving, placed, checkers);
    let actual = if pos.has_legal_moves() {
        Suffix::Check
    } else {
        Suffix::Mate
    };
    if actual != suffix {
        *pos = before;
        return None;
    }
    Some(plain_move(from, to, moving, placed))
}

/// Castling or en passant, played in place and undone from a copy when the check state
/// after it does not match the mark.
#[cold]
#[inline(never)]
fn play_special_checked(pos: &mut Position, mv: Move, suffix: Option<Suffix>) -> Option<Move> {
    let before = *pos;
    pos.play_unchecked(mv);
    let actual = match (pos.is_check(), suffix) {
        (false, _) => None,
        (true, None) => Some(Suffix::Check),
        (true, Some(_)) if pos.has_legal_moves() => Some(Suffix::Check),
        (true, Some(_)) => Some(Suffix::Mate),
    };
    if actual != suffix {
        *pos = before;
        return None;
    }
    Some(mv)
}

/// The squares a move onto `to` may come from given the side to move's checkers: with one
/// checker, `to` must capture or block it (the king aside); with two, no such move is legal.
#[inline(always)]
fn evades(pos: &Position, to: Square, king: Square) -> bool {
    let checkers = pos.checkers();
    match checkers.first() {
        None => true,
        Some(c) => {
            !checkers.more_than_one()
                && (attacks::between(king, c) | Bitboard::from_square(c)).contains(to)
        }
    }
}

/// A canonical pawn move body: `e4`, `exd5`, `e8=Q`, `exd8=Q` (en passant included).
#[inline(always)]
fn canonical_pawn(pos: &Position, body: &[u8]) -> Option<Found> {
    let (body, promotion) = match body {
        [rest @ .., b'=', p] => {
            let role = match p {
                b'N' => Role::Knight,
                b'B' => Role::Bishop,
                b'R' => Role::Rook,
                b'Q' => Role::Queen,
                _ => return None,
            };
            (rest, Some(role))
        }
        _ => (body, None),
    };
    let us = pos.turn();
    let them = us.other();
    let pawns = pos.pieces(us, Role::Pawn);
    let occupied = pos.occupied();
    let (from, to) = match *body {
        [f, r] => {
            let to = square_of(f, r)?;
            if occupied.contains(to) {
                return None;
            }
            let back: i8 = if us == Color::White { -8 } else { 8 };
            let one = to.offset(back)?;
            if pawns.contains(one) {
                (one, to)
            } else {
                let two = one.offset(back)?;
                let start = Rank(if us == Color::White { 1 } else { 6 });
                if occupied.contains(one) || !pawns.contains(two) || two.rank() != start {
                    return None;
                }
                (two, to)
            }
        }
        [ff @ b'a'..=b'h', b'x', f, r] => {
            let to = square_of(f, r)?;
            let from =
                (attacks::pawn_attacks(them, to) & pawns & Bitboard::from_file(File(ff - b'a')))
                    .first()?;
            if pos.ep_square() == Some(to) {
                if promotion.is_some()
                    || pos.checkers().more_than_one()
                    || !pos.ep_is_legal(from, to)
                {
                    return None;
                }
                return Some(Found::Special(Move::en_passant(from, to)));
            }
            if !pos.by_color(them).contains(to) {
                return None;
            }
            (from, to)
        }
        _ => return None,
    };
    let king = pos.king_of(us);
    if !evades(pos, to, king) || pos.exposes_king(from, to, king) {
        return None;
    }
    let last = Rank(if us == Color::White { 7 } else { 0 });
    match (to.rank() == last, promotion) {
        (true, Some(role)) => Some(Found::Plain(from, to, role)),
        (false, None) => Some(Found::Plain(from, to, Role::Pawn)),
        _ => None,
    }
}

/// The destination and capture mark at the end of a piece move, and the origin hints
/// before them: `f3`, `xf3`, `bf3`, `1xf3`, `b1f3`.
#[inline(always)]
fn piece_target(rest: &[u8]) -> Option<(Option<File>, Option<Rank>, bool, Square)> {
    let [hint @ .., f, r] = rest else {
        return None;
    };
    let to = square_of(*f, *r)?;
    let (hint, capture) = match hint {
        [h @ .., b'x'] => (h, true),
        h => (h, false),
    };
    let (file, rank) = match *hint {
        [] => (None, None),
        [f @ b'a'..=b'h'] => (Some(File(f - b'a')), None),
        [r @ b'1'..=b'8'] => (None, Some(Rank(r - b'1'))),
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => (Some(File(f - b'a')), Some(Rank(r - b'1'))),
        _ => return None,
    };
    Some((file, rank, capture, to))
}

/// Our sliders in `mine` on `rays` from `to` with nothing between them and `to`.
#[inline(always)]
fn reaching(
    mine: Bitboard,
    occupied: Bitboard,
    to: Square,
    rays: Bitboard,
    between: fn(Square, Square) -> Bitboard,
) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for from in rays & mine {
        if (between(from, to) & occupied).is_empty() {
            out.add(from);
        }
    }
    out
}

/// A canonical knight, bishop, rook or queen move body after its letter. Inlined into
/// the dispatch with a constant role, so each role has its own candidate lookup.
#[inline(always)]
fn canonical_piece(pos: &Position, role: Role, rest: &[u8]) -> Option<(Square, Square)> {
    let (file, rank, capture, to) = piece_target(rest)?;
    let us = pos.turn();
    let ours = pos.by_color(us);
    let theirs = pos.by_color(us.other());
    if ours.contains(to) || theirs.contains(to) != capture {
        return None;
    }
    let king = pos.king_of(us);
    if !evades(pos, to, king) {
        return None;
    }
    let occupied = ours | theirs;
    let mine = ours & pos.by_role(role);
    // Sliders: the pieces on the destination's empty-board rays, then the squares between
    // (small tables, where the magic table's lookups missed the cache).
    let reach = match role {
        Role::Knight => attacks::knight_attacks(to) & mine,
        Role::Bishop => reaching(
            mine,
            occupied,
            to,
            attacks::bishop_rays(to),
            attacks::between_diagonal,
        ),
        Role::Rook => reaching(
            mine,
            occupied,
            to,
            attacks::rook_rays(to),
            attacks::between_orthogonal,
        ),
        _ => {
            reaching(
                mine,
                occupied,
                to,
                attacks::bishop_rays(to),
                attacks::between_diagonal,
            ) | reaching(
                mine,
                occupied,
                to,
                attacks::rook_rays(to),
                attacks::between_orthogonal,
            )
        }
    };
    // The common case: one piece reaches `to`, and canonical SAN names no origin.
    if !reach.more_than_one() {
        let from = reach.first()?;
        if file.is_some() || rank.is_some() || pos.exposes_king(from, to, king) {
            return None;
        }
        return Some((from, to));
    }
    let mut legal = Bitboard::EMPTY;
    for from in reach {
        if !pos.exposes_king(from, to, king) {
            legal.add(from);
        }
    }
    let mut chosen = legal;
    if let Some(f) = file {
        chosen &= Bitboard::from_file(f);
    }
    if let Some(r) = rank {
        chosen &= Bitboard::from_rank(r);
    }
    let from = chosen.single()?;
    // The disambiguation `assemble` writes: file if it tells the pieces apart, else rank,
    // else both.
    let rivals = legal - Bitboard::from_square(from);
    let canonical = if rivals.is_empty() {
        (None, None)
    } else if (rivals & Bitboard::from_file(from.file())).is_empty() {
        (Some(from.file()), None)
    } else if (rivals & Bitboard::from_rank(from.rank())).is_empty() {
        (None, Some(from.rank()))
    } else {
        (Some(from.file()), Some(from.rank()))
    };
    (canonical == (file, rank)).then_some((from, to))
}

/// A canonical king move body after its letter (never disambiguated).
#[inline(always)]
fn canonical_king(pos: &Position, rest: &[u8]) -> Option<(Square, Square)> {
    let (None, None, capture, to) = piece_target(rest)? else {
        return None;
    };
    let us = pos.turn();
    let them = us.other();
    if pos.by_color(us).contains(to) || pos.by_color(them).contains(to) != capture {
        return None;
    }
    let king = pos.king_of(us);
    let legal = attacks::king_attacks(to).contains(king)
        && !pos.is_attacked_sparse(to, them, pos.occupied() - Bitboard::from_square(king));
    legal.then_some((king, to))
}

/// Castling, if the right exists and the move is legal.
#[inline]
fn canonical_castle(pos: &Position, side: CastlingSide) -> Option<Move> {
    if pos.is_check() {
        return None;
    }
    let us = pos.turn();
    pos.castle_if_legal(pos.king_of(us), side, Bitboard::FULL)
}

/// Plays a move found by the UCI reader (lenient mode only).
fn play_uci(pos: &mut Position, m: Move) -> Resolved {
    let mut canonical = san_without_suffix(pos, m);
    pos.play_unchecked(m);
    push_suffix(&mut canonical, pos);
    Resolved {
        mv: m,
        canonical,
        repairs: vec![Repair::Uci],
    }
}

/// The moves of a line of strict SAN (`"e4 e5 Nf3"`) played from `start`, for tests that
/// build games by hand; a token that is not legal there panics with the token.
#[cfg(test)]
pub fn line(start: Position, sans: &str) -> Vec<Move> {
    let mut pos = start;
    sans.split_whitespace()
        .map(|t| {
            play_san(&mut pos, t, SanMode::Strict)
                .unwrap_or_else(|e| panic!("{t}: {e:?}"))
                .mv
        })
        .collect()
}

/// Reads one SAN token in a position, without changing it.
pub fn resolve(pos: &Position, token: &str, mode: SanMode) -> Result<Resolved, SanError> {
    let mut after = *pos;
    play_san(&mut after, token, mode)
}

/// Reads one SAN token and plays it. On error the position is untouched. This is the
/// replay's hot path: the position is changed in place, never copied.
pub fn play_san(pos: &mut Position, token: &str, mode: SanMode) -> Result<Resolved, SanError> {
    play_san_bytes(pos, token.as_bytes(), mode)
}

/// [`play_san`] on the token's bytes, for the replay, whose tokens are ASCII by
/// construction: the common path never checks UTF-8; the lenient reader, which works on
/// text, does.
pub fn play_san_bytes(
    pos: &mut Position,
    token: &[u8],
    mode: SanMode,
) -> Result<Resolved, SanError> {
    if let Some(mv) = play_canonical(pos, token) {
        return Ok(Resolved {
            mv,
            canonical: SanText::from_ascii(token),
            repairs: Vec::new(),
        });
    }
    let owned = || shown(token);
    fn uci_text(text: &str) -> &str {
        text.trim_end_matches(['+', '#', '!', '?'])
    }
    // Most tokens in real files are standard SAN: try the strict grammar first.
    let (san, suffix, mut repairs, exact_from) = match (parse_strict_bytes(token), mode) {
        (Ok((san, suffix)), _) => (san, suffix, Vec::new(), None),
        (Err(e), SanMode::Strict) => return Err(e),
        (Err(_), SanMode::Lenient) => {
            let Ok(text) = std::str::from_utf8(token) else {
                return Err(SanError::Syntax(owned()));
            };
            match parse_lenient(text) {
                Ok(l) => (l.san, l.suffix, l.repairs, l.from),
                Err(e) => {
                    // A king move written as UCI castling (`e1g1`) is handled by the UCI reader.
                    return match super::uci::parse_uci(pos, uci_text(text)) {
                        Ok(m) => Ok(play_uci(pos, m)),
                        Err(_) => Err(e),
                    };
                }
            }
        }
    };
    let mut all = TargetMoves::new();
    let mv = match san.candidates(pos, exact_from, &mut all) {
        (None, _) => {
            // UCI king-to-g1 castling spelled as coordinates.
            if mode == SanMode::Lenient
                && let Ok(text) = std::str::from_utf8(token)
                && let Ok(m) = super::uci::parse_uci(pos, uci_text(text))
            {
                return Ok(play_uci(pos, m));
            }
            return Err(SanError::Illegal(owned()));
        }
        (Some(m), None) => m,
        (Some(_), Some(_)) => return Err(SanError::Ambiguous(owned())),
    };
    let mut canonical = match san {
        San::Castle(_) => castling_text(mv),
        San::Normal { role, .. } => assemble(pos, mv, role, &all),
    };
    let is_capture = pos.is_capture(mv);
    if mode == SanMode::Strict {
        // Check the text before the position changes, so an error leaves it untouched.
        let mut after = *pos;
        after.play_unchecked(mv);
        push_suffix(&mut canonical, &after);
        if canonical.as_bytes() != token {
            return Err(SanError::NotCanonical {
                token: owned(),
                canonical: canonical.to_string(),
            });
        }
        *pos = after;
        return Ok(Resolved {
            mv,
            canonical,
            repairs,
        });
    }
    pos.play_unchecked(mv);
    push_suffix(&mut canonical, pos);
    if canonical.as_bytes() == token {
        return Ok(Resolved {
            mv,
            canonical,
            repairs,
        });
    }
    if let San::Normal {
        capture,
        file,
        rank,
        ..
    } = san
    {
        let written_long =
            repairs.contains(&Repair::Uci) || repairs.contains(&Repair::LongAlgebraic);
        if capture && !is_capture {
            repairs.push(Repair::SuperfluousCapture);
        }
        if !capture && is_capture && !written_long {
            repairs.push(Repair::MissingCapture);
        }
        let given = (file.is_some() as u8) + (rank.is_some() as u8);
        if given > disambiguation_len(canonical.as_bytes()) && !repairs.contains(&Repair::Uci) {
            repairs.push(if given == 2 {
                Repair::LongAlgebraic
            } else {
                Repair::OverDisambiguation
            });
        }
    }
    let actual = match canonical.as_bytes().last() {
        Some(b'+') => Some(Suffix::Check),
        Some(b'#') => Some(Suffix::Mate),
        _ => None,
    };
    if actual != suffix {
        repairs.push(Repair::CheckSuffix);
    }
    repairs.sort_unstable();
    repairs.dedup();
    if repairs.is_empty() {
        // Anything else that differs (`++` for mate, stray spacing) counts as a suffix repair.
        repairs.push(Repair::CheckSuffix);
    }
    Ok(Resolved {
        mv,
        canonical,
        repairs,
    })
}

/// How many disambiguation characters canonical SAN (with or without suffix) carries.
fn disambiguation_len(san: &[u8]) -> u8 {
    if san.first().is_none_or(|c| !c.is_ascii_uppercase()) || san.first() == Some(&b'O') {
        // Pawn captures carry their file as part of the form, not as disambiguation.
        return if san.get(1) == Some(&b'x') { 1 } else { 0 };
    }
    let mut core = san.split(|&c| c == b'=').next().unwrap_or(san);
    while let [rest @ .., b'+' | b'#'] = core {
        core = rest;
    }
    // Piece letter + [disambiguation] + [x] + square.
    let len = core.len() - 1 - 2 - core.contains(&b'x') as usize;
    len as u8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse_fen;

    fn lenient(fen: &str, token: &str) -> Result<Resolved, SanError> {
        resolve(&parse_fen(fen).unwrap(), token, SanMode::Lenient)
    }

    const START: &str = crate::chess::fen::START_FEN;

    #[test]
    fn writes_canonical_san() {
        let pos = parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
            .unwrap();
        let mut all: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| to_san(&pos, *m).to_string())
            .collect();
        all.sort();
        for expected in [
            "O-O", "O-O-O", "Qxf6", "Nxf7", "dxe6", "Bxa6", "Qxh3", "gxh3", "Rb1", "Kf1",
        ] {
            assert!(
                all.contains(&expected.to_string()),
                "{expected} missing from {all:?}"
            );
        }
        // Rooks on a1 and e1 both reach b1..d1: disambiguate by file.
        let pos = parse_fen("7k/8/8/8/8/8/8/R3RK2 w - - 0 1").unwrap();
        let sans: Vec<String> = pos
            .legal_moves()
            .iter()
            .map(|m| to_san(&pos, *m).to_string())
            .collect();
        assert!(sans.contains(&"Rad1".to_string()) && sans.contains(&"Red1".to_string()));
        assert!(sans.contains(&"Re8+".to_string()));
        // Mate suffix.
        let pos = parse_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").unwrap();
        let m = resolve(&pos, "Ra8#", SanMode::Strict).unwrap();
        assert_eq!(m.canonical.as_str(), "Ra8#");
        // Knights on the same file: disambiguate by rank.
        let pos = parse_fen("4k3/8/8/1N6/8/1N6/8/4K3 w - - 0 1").unwrap();
        assert!(resolve(&pos, "N5d4", SanMode::Strict).is_ok());
        assert!(resolve(&pos, "Nbd4", SanMode::Strict).is_err());
    }

    #[test]
    fn lenient_repairs_are_reported() {
        let cases: &[(&str, &str, &str, &[Repair])] = &[
            (START, "e4", "e4", &[]),
            (START, "e2-e4", "e4", &[Repair::LongAlgebraic]),
            (START, "e2e4", "e4", &[Repair::Uci]),
            (START, "Ng1f3", "Nf3", &[Repair::LongAlgebraic]),
            (START, "Ng1-f3", "Nf3", &[Repair::LongAlgebraic]),
            (START, "Ngf3", "Nf3", &[Repair::OverDisambiguation]),
            (START, "e4!?", "e4", &[Repair::AnnotationGlyph]),
            (START, "e4+", "e4", &[Repair::CheckSuffix]),
            (START, "Pe4", "e4", &[Repair::PawnLetter]),
            (
                "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1",
                "ed5",
                "exd5",
                &[Repair::MissingCapture],
            ),
            (
                "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1",
                "e4xd5",
                "exd5",
                &[Repair::LongAlgebraic],
            ),
            (
                "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1",
                "exd5!",
                "exd5",
                &[Repair::AnnotationGlyph],
            ),
            (
                "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
                "0-0",
                "O-O",
                &[Repair::CastlingZeros],
            ),
            (
                "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
                "e1g1",
                "O-O",
                &[Repair::Uci],
            ),
            (
                "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
                "Kxf1",
                "Kf1",
                &[Repair::SuperfluousCapture],
            ),
            (
                "8/4P3/8/8/8/8/8/k3K3 w - - 0 1",
                "e8Q",
                "e8=Q",
                &[Repair::PromotionForm],
            ),
            (
                "8/4P3/8/8/8/8/8/k3K3 w - - 0 1",
                "e8(Q)",
                "e8=Q",
                &[Repair::PromotionForm],
            ),
            (
                "8/4P3/8/8/8/8/8/k3K3 w - - 0 1",
                "e8/N",
                "e8=N",
                &[Repair::PromotionForm],
            ),
            (
                "8/4P3/8/8/8/8/8/k3K3 w - - 0 1",
                "e7e8q",
                "e8=Q",
                &[Repair::Uci],
            ),
            (
                "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
                "exd6e.p.",
                "exd6",
                &[Repair::EnPassantSuffix],
            ),
            (
                "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
                "exd6 e.p.",
                "exd6",
                &[Repair::EnPassantSuffix],
            ),
        ];
        for (fen, token, canonical, repairs) in cases {
            let r = lenient(fen, token).unwrap_or_else(|e| panic!("{token}: {e}"));
            assert_eq!(r.canonical.as_str(), *canonical, "{token}");
            assert_eq!(r.repairs.as_slice(), *repairs, "{token}");
        }
    }

    #[test]
    fn never_guesses() {
        // Pawn capture vs bishop: `bxc3` is the b-pawn, `Bxc3` the bishop.
        let fen = "4k3/8/8/B7/8/2p5/1P6/4K3 w - - 0 1";
        assert_eq!(lenient(fen, "bxc3").unwrap().canonical.as_str(), "bxc3");
        assert_eq!(lenient(fen, "Bxc3").unwrap().canonical.as_str(), "Bxc3");
        // A bare destination never means a pawn capture.
        assert_eq!(
            lenient("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "d5"),
            Err(SanError::Illegal("d5".into()))
        );
        // Two knights reach d2: ambiguous in both modes.
        let fen = "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1";
        assert_eq!(lenient(fen, "Nd2"), Err(SanError::Ambiguous("Nd2".into())));
        // A promotion without the piece is not a queen.
        assert!(lenient("8/4P3/8/8/8/8/8/k3K3 w - - 0 1", "e8").is_err());
        assert!(matches!(lenient(START, "Zq9"), Err(SanError::Syntax(_))));
        assert!(matches!(lenient(START, "e5"), Err(SanError::Illegal(_))));
    }

    /// The fast path takes exactly the canonical SAN of every legal move, plays it as
    /// `play_unchecked` would, and leaves every other spelling to the general reader.
    #[test]
    fn fast_path_takes_exactly_canonical_san() {
        for fen in [
            START,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 2",
            "7k/8/8/8/8/8/8/R3RK2 w - - 0 1",
            "4k3/8/8/1N6/8/1N6/8/4K3 w - - 0 1",
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
            "1Q2Q3/8/8/8/1Q2Q3/8/8/k3K3 w - - 0 1",
        ] {
            let pos = parse_fen(fen).unwrap();
            for &m in pos.legal_moves().iter() {
                let san = to_san(&pos, m);
                let mut fast = pos;
                assert_eq!(
                    play_canonical(&mut fast, san.as_bytes()),
                    Some(m),
                    "{fen} {san}"
                );
                let mut slow = pos;
                slow.play_unchecked(m);
                assert_eq!(fast, slow, "{fen} {san}");
                assert_eq!(fast.checkers(), slow.checkers(), "{fen} {san}");
                let text = san.as_str();
                let body = text.trim_end_matches(['+', '#']);
                let mut wrong = vec![
                    format!("{body}+"),
                    format!("{body}#"),
                    body.to_string(),
                    format!("{text}!"),
                    text.replace('x', ""),
                    format!("{}{text}", &text[..1]),
                ];
                if let Some(role) = pos.piece_at(m.from()).map(|p| p.role)
                    && role != Role::Pawn
                    && !m.is_castle()
                {
                    let from = m.from().to_string();
                    wrong.push(format!("{}{from}{}", &text[..1], &text[1..]));
                }
                for w in wrong.iter().filter(|w| w.as_str() != text) {
                    let mut p = pos;
                    assert_eq!(play_canonical(&mut p, w.as_bytes()), None, "{fen} {w}");
                    assert_eq!(p, pos, "{fen} {w}");
                }
            }
        }
    }

    #[test]
    fn strict_takes_only_canonical_san() {
        let pos = parse_fen(START).unwrap();
        for bad in ["e2e4", "0-0", "Ngf3", "e4!", "Pe4", "nf3", "e4+"] {
            assert!(resolve(&pos, bad, SanMode::Strict).is_err(), "{bad}");
        }
        assert!(resolve(&pos, "Nf3", SanMode::Strict).is_ok());
    }
}
