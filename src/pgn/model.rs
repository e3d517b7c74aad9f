//! The parsed game: tags, a tree of move tokens (still text, never checked for legality),
//! comments with their typed commands, NAGs and the termination marker. Every move token
//! carries its location in the file so later stages can point at it.

use std::fmt;

use super::finding::{Finding, Severity};

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

/// A game's tag pairs in file order, all held in one string: two allocations per game
/// instead of two per tag (the reader's allocations were a tenth of its time). Names may
/// repeat; lookups take the first. Equality compares the pairs, not how they are stored.
#[derive(Clone, Default)]
pub struct Tags {
    text: String,
    /// Per tag: where its name starts and ends and where its value starts and ends in
    /// `text`. Text may lie between them (`Name "value` is copied in one piece).
    spans: Vec<[usize; 4]>,
}

impl Tags {
    pub fn new() -> Tags {
        Tags::default()
    }

    /// Room for `tags` tags of `bytes` bytes of text in all.
    pub fn with_capacity(tags: usize, bytes: usize) -> Tags {
        Tags {
            text: String::with_capacity(bytes),
            spans: Vec::with_capacity(tags),
        }
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn push(&mut self, name: &str, value: &str) {
        let name_start = self.text.len();
        self.text.push_str(name);
        let name_end = self.text.len();
        self.text.push_str(value);
        self.spans
            .push([name_start, name_end, name_end, self.text.len()]);
    }

    /// Append a tag from the text of a plain tag line without its brackets and closing
    /// quote, `Name "value`: the name is its first `name_len` bytes, the value what
    /// follows the space and the quote. One copy per tag.
    #[inline]
    pub(crate) fn push_plain(&mut self, line: &str, name_len: usize) {
        let start = self.text.len();
        self.text.push_str(line);
        self.spans.push([
            start,
            start + name_len,
            (start + name_len + 2).min(self.text.len()),
            self.text.len(),
        ]);
    }

    /// Decode a name and a value from file bytes (UTF-8, else Windows-1252) and append
    /// them; true when either was not UTF-8.
    pub(crate) fn push_bytes(&mut self, name: &[u8], value: &[u8]) -> bool {
        let name_start = self.text.len();
        let lossy_name = super::decode::decode_into(name, &mut self.text);
        let name_end = self.text.len();
        let lossy_value = super::decode::decode_into(value, &mut self.text);
        self.spans
            .push([name_start, name_end, name_end, self.text.len()]);
        lossy_name || lossy_value
    }

    /// The `k`-th tag's name and value.
    pub fn get(&self, k: usize) -> Option<(&str, &str)> {
        Some(pair(&self.text, self.spans.get(k)?))
    }

    /// The value of the first tag with this name. The names' lengths are compared first,
    /// from the spans: most tags are passed over without touching their text.
    pub fn value(&self, name: &str) -> Option<&str> {
        let k = self.position(&self.spans, name)?;
        Some(pair(&self.text, &self.spans[k]).1)
    }

    /// Where the first of `spans` named `name` is.
    #[inline]
    fn position(&self, spans: &[[usize; 4]], name: &str) -> Option<usize> {
        let text = self.text.as_bytes();
        spans.iter().position(|s| {
            s[1] - s[0] == name.len() && text.get(s[0]..s[1]) == Some(name.as_bytes())
        })
    }

    /// Is one of the first `end` tags named `name`?
    pub(crate) fn has_name_before(&self, end: usize, name: &str) -> bool {
        let spans = &self.spans[..end.min(self.spans.len())];
        self.position(spans, name).is_some()
    }

    /// The length in bytes of the `k`-th tag's name (0 past the end), read from its span.
    #[inline]
    pub(crate) fn name_len(&self, k: usize) -> usize {
        self.spans.get(k).map_or(0, |s| s[1] - s[0])
    }

    /// The `k`-th tag's name as bytes (empty past the end): no text made of it.
    #[inline]
    pub(crate) fn name_bytes(&self, k: usize) -> &[u8] {
        self.spans
            .get(k)
            .and_then(|s| self.text.as_bytes().get(s[0]..s[1]))
            .unwrap_or(&[])
    }

    /// The `k`-th tag's value (empty past the end).
    pub(crate) fn value_at(&self, k: usize) -> &str {
        self.get(k).map_or("", |(_, v)| v)
    }

    pub fn iter(&self) -> TagIter<'_> {
        TagIter {
            text: &self.text,
            spans: self.spans.iter(),
        }
    }

    /// Owned pairs, for records that keep them apart from the game.
    pub fn to_vec(&self) -> Vec<(String, String)> {
        self.iter()
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .collect()
    }
}

/// The name and value a span points at. Every boundary was recorded between pushed
/// strings or at ASCII bytes of one, so these never fail.
#[inline]
fn pair<'a>(text: &'a str, span: &[usize; 4]) -> (&'a str, &'a str) {
    (
        text.get(span[0]..span[1]).unwrap_or(""),
        text.get(span[2]..span[3]).unwrap_or(""),
    )
}

impl PartialEq for Tags {
    fn eq(&self, other: &Tags) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Tags {}

impl fmt::Debug for Tags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<N: AsRef<str>, V: AsRef<str>> FromIterator<(N, V)> for Tags {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(iter: I) -> Tags {
        let mut tags = Tags::new();
        for (n, v) in iter {
            tags.push(n.as_ref(), v.as_ref());
        }
        tags
    }
}

impl From<Vec<(String, String)>> for Tags {
    fn from(pairs: Vec<(String, String)>) -> Tags {
        pairs.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a Tags {
    type Item = (&'a str, &'a str);
    type IntoIter = TagIter<'a>;

    fn into_iter(self) -> TagIter<'a> {
        self.iter()
    }
}

/// The tags of a [`Tags`], in order, as (name, value).
#[derive(Clone, Debug)]
pub struct TagIter<'a> {
    text: &'a str,
    spans: std::slice::Iter<'a, [usize; 4]>,
}

impl<'a> Iterator for TagIter<'a> {
    type Item = (&'a str, &'a str);

    #[inline]
    fn next(&mut self) -> Option<(&'a str, &'a str)> {
        Some(pair(self.text, self.spans.next()?))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.spans.size_hint()
    }
}

impl ExactSizeIterator for TagIter<'_> {}

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
