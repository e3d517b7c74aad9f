//! The parsed game: tags, a tree of move tokens (still text, never checked for legality),
//! comments with their typed commands, NAGs and the termination marker. Every move token
//! carries its location in the file so later stages can point at it.

use std::fmt;

use super::finding::{Finding, Severity};
pub use crate::tags::{TagIter, Tags};

/// Where a token starts in its file: 1-based line, 1-based byte column, 0-based byte offset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: u64,
    pub column: u32,
    pub byte: u64,
}

/// A move token exactly as written (`Nxe5+`, `e8=Q`, `O-O`, `--`), stored inline: no
/// allocation per move. Tokens longer than [`SanToken::CAPACITY`] are refused by the parser.
/// The default is the empty token.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SanToken {
    /// The text, zero-padded, then its length in the last byte.
    bytes: [u8; 16],
}

impl SanToken {
    pub const CAPACITY: usize = 15;

    /// `None` when the text is longer than the capacity or not ASCII.
    pub fn new(text: &str) -> Option<SanToken> {
        SanToken::from_ascii(text.as_bytes())
    }

    pub(crate) fn from_ascii(text: &[u8]) -> Option<SanToken> {
        if text.len() > Self::CAPACITY || !text.is_ascii() {
            return None;
        }
        let mut window = [0u8; 16];
        window[..text.len()].copy_from_slice(text);
        Some(SanToken::from_window(window, text.len()))
    }

    /// Build from 16 bytes whose first `len` (at most 15, all ASCII) are the token. Done
    /// as one 128-bit value: byte-wise building caused store-forwarding stalls in the parser.
    /// The mask comes from a table: a variable 128-bit shift took a dozen instructions.
    #[inline]
    pub(crate) fn from_window(window: [u8; 16], len: usize) -> SanToken {
        let len = len.min(Self::CAPACITY);
        let value = u128::from_le_bytes(window);
        let value = (value & SAN_MASKS[len]) | ((len as u128) << 120);
        SanToken {
            bytes: value.to_le_bytes(),
        }
    }

    /// Build from a token of at most 8 bytes (ASCII), given zero-padded as a little-endian
    /// `u64`, and its length: no mask needed.
    #[inline]
    pub(crate) fn from_short(bytes: u64, len: usize) -> SanToken {
        let value = u128::from(bytes) | ((len.min(8) as u128) << 120);
        SanToken {
            bytes: value.to_le_bytes(),
        }
    }

    pub fn len(&self) -> usize {
        self.bytes[15] as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The token's bytes (ASCII). The hot paths read these: [`SanToken::as_str`] checks
    /// UTF-8 on every call, which was a sixth of `check`'s instructions when used per move.
    /// The length byte is at most [`SanToken::CAPACITY`] (15) by construction; masking it
    /// says so to the compiler in one instruction (the replay reads every token).
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.bytes[15] & 0x0F)]
    }

    pub fn as_str(&self) -> &str {
        // Only ASCII is ever stored, so this cannot fail; fall back to "" rather than panic.
        std::str::from_utf8(self.as_bytes()).unwrap_or("")
    }

    /// `--` and `Z0`: the two spellings of a null move.
    #[inline]
    pub fn is_null(&self) -> bool {
        matches!(self.as_bytes(), b"--" | b"Z0")
    }
}

/// `SAN_MASKS[n]` keeps the low `n` bytes of a 128-bit value.
static SAN_MASKS: [u128; 16] = {
    let mut masks = [0u128; 16];
    let mut n = 1;
    while n < 16 {
        masks[n] = u128::MAX >> (128 - 8 * n);
        n += 1;
    }
    masks
};

impl fmt::Debug for SanToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for SanToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A duration from `[%clk]` or `[%emt]`, in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TimeSpan {
    pub millis: u64,
}

/// An engine evaluation from `[%eval]`, from White's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalScore {
    /// Hundredths of a pawn (`0.25` is 25).
    Centipawns(i32),
    /// Mate in this many moves; negative when Black mates (`#-3`).
    Mate(i32),
}

/// A command embedded in a comment: `[%name args]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Clock(TimeSpan),
    Emt(TimeSpan),
    Eval {
        score: EvalScore,
        depth: Option<u32>,
    },
    /// Any other command, or a known one whose arguments did not parse; kept as text.
    Other {
        name: String,
        args: String,
    },
}

/// A comment (`{...}` or `;...`). Whitespace runs inside are collapsed to one space and the
/// ends trimmed: whitespace in a PGN comment carries no meaning, and this makes
/// write → read exact. `commands` is a typed view of the `[%...]` parts of `text`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comment {
    pub text: String,
    pub commands: Vec<Command>,
}

/// The four game termination markers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    WhiteWins,
    BlackWins,
    Draw,
    Unknown,
}

impl Marker {
    pub fn as_str(self) -> &'static str {
        match self {
            Marker::WhiteWins => "1-0",
            Marker::BlackWins => "0-1",
            Marker::Draw => "1/2-1/2",
            Marker::Unknown => "*",
        }
    }

    pub fn from_text(text: &str) -> Option<Marker> {
        match text {
            "1-0" => Some(Marker::WhiteWins),
            "0-1" => Some(Marker::BlackWins),
            "1/2-1/2" => Some(Marker::Draw),
            "*" => Some(Marker::Unknown),
            _ => None,
        }
    }
}

impl fmt::Display for Marker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What may be attached to a move besides its text; boxed because most moves have none,
/// which keeps [`MoveNode`] small (the parser's speed depends on it).
#[derive(Debug, Default)]
pub struct Annotations {
    pub nags: Vec<u8>,
    /// NAGs written before the move, as Informant-style sources do (`( $142 12. Nf3 )`).
    pub nags_before: Vec<u8>,
    /// Only used at the start of a variation: `( {why} 12... Nf6 )`.
    pub comments_before: Vec<Comment>,
    pub comments_after: Vec<Comment>,
    /// Alternatives to this move, each a line of moves starting at the same ply.
    pub variations: Vec<Vec<MoveNode>>,
}

/// One move token (text as written, never checked here) with where it was found and what is
/// attached to it. The default is an empty token at no position.
#[derive(Debug, Default)]
pub struct MoveNode {
    pub san: SanToken,
    pub pos: Pos,
    annotations: Option<Box<Annotations>>,
}

impl MoveNode {
    pub fn new(san: SanToken, pos: Pos) -> MoveNode {
        MoveNode {
            san,
            pos,
            annotations: None,
        }
    }

    pub fn annotations(&self) -> Option<&Annotations> {
        self.annotations.as_deref()
    }

    /// The annotations, created empty on first use.
    pub fn annotations_mut(&mut self) -> &mut Annotations {
        self.annotations.get_or_insert_with(Box::default)
    }

    pub fn nags(&self) -> &[u8] {
        self.annotations.as_ref().map_or(&[], |a| &a.nags)
    }

    pub fn nags_before(&self) -> &[u8] {
        self.annotations.as_ref().map_or(&[], |a| &a.nags_before)
    }

    pub fn comments_before(&self) -> &[Comment] {
        self.annotations
            .as_ref()
            .map_or(&[], |a| &a.comments_before)
    }

    pub fn comments_after(&self) -> &[Comment] {
        self.annotations.as_ref().map_or(&[], |a| &a.comments_after)
    }

    pub fn variations(&self) -> &[Vec<MoveNode>] {
        self.annotations.as_ref().map_or(&[], |a| &a.variations)
    }

    /// The typed commands of the comments after this move (`[%clk]`, `[%eval]`, ...).
    pub fn commands(&self) -> impl Iterator<Item = &Command> {
        self.comments_after().iter().flat_map(|c| c.commands.iter())
    }
}

// Variations may nest 100k deep; the derived drop would recurse once per level and overflow
// the stack. Flatten the tree onto the heap instead. This lives on `Annotations`, not on
// `MoveNode`: a drop on every node was called once per move (a tenth of the parser's time),
// while most moves have no annotations and now drop as a null check.
impl Drop for Annotations {
    fn drop(&mut self) {
        if self.variations.is_empty() {
            return;
        }
        let mut stack: Vec<Vec<MoveNode>> = std::mem::take(&mut self.variations);
        while let Some(mut line) = stack.pop() {
            for node in line.iter_mut() {
                if let Some(a) = &mut node.annotations {
                    stack.append(&mut a.variations);
                }
            }
        }
    }
}

/// Compare two move trees without recursion, ignoring locations.
fn same_lines(a: &[MoveNode], b: &[MoveNode]) -> bool {
    let mut stack: Vec<(&[MoveNode], &[MoveNode])> = vec![(a, b)];
    while let Some((x, y)) = stack.pop() {
        if x.len() != y.len() {
            return false;
        }
        for (m, n) in x.iter().zip(y) {
            if m.san != n.san
                || m.nags() != n.nags()
                || m.nags_before() != n.nags_before()
                || m.comments_before() != n.comments_before()
                || m.comments_after() != n.comments_after()
                || m.variations().len() != n.variations().len()
            {
                return false;
            }
            for (v, w) in m.variations().iter().zip(n.variations()) {
                stack.push((v, w));
            }
        }
    }
    true
}

/// One parsed game. Equality compares the content (tags, comments, moves, marker) and
/// ignores where the game was found and its findings.
#[derive(Debug, Default)]
pub struct Game {
    pub game_number: u64,
    pub byte_offset: u64,
    pub line: u64,
    pub tags: Tags,
    /// Comments before the first move of the main line.
    pub leading_comments: Vec<Comment>,
    pub moves: Vec<MoveNode>,
    pub result: Option<Marker>,
    /// Comments after the termination marker.
    pub trailing_comments: Vec<Comment>,
    pub findings: Vec<Finding>,
}

impl Game {
    /// The value of the first tag with this name.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.value(name)
    }

    /// True when a finding of severity `Error` rejects this game.
    pub fn is_rejected(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    pub fn has_finding(&self, code: &str) -> bool {
        self.findings.iter().any(|f| f.code == code)
    }

    /// Number of plies in the main line.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }
}

impl PartialEq for Game {
    fn eq(&self, other: &Game) -> bool {
        self.tags == other.tags
            && self.leading_comments == other.leading_comments
            && self.result == other.result
            && self.trailing_comments == other.trailing_comments
            && same_lines(&self.moves, &other.moves)
    }
}
