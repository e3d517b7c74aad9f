//! Parsing one game's bytes: the tag section with nom, then the movetext with a token loop
//! whose variations live on an explicit stack (any nesting depth, linear time, no recursion).
//! Never fails and never panics: whatever is wrong becomes a located finding on the game.

use std::borrow::Cow;

use memchr::{memchr, memchr2};
use nom::bytes::complete::take_while1;
use nom::character::complete::{char, space0};
use nom::{IResult, Parser};

use super::commands::parse_commands;
use super::decode::{decode, decode_collapsed, is_space};
use super::finding::{Finding, Severity, code};
use super::model::{Comment, Game, Marker, MoveNode, Pos, SanToken, Tags};
use super::split::RawGame;
use super::token::{
    annotation_symbol_nag, closes_tag, comment_end, common_san, glued_marker, is_delimiter,
    is_move_like, marker_at, tag_name_len, tag_value_open, token_len, value_end,
};
use crate::findings::severity;

/// The Seven Tag Roster, in its export order.
pub const SEVEN_TAG_ROSTER: [&str; 7] =
    ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

/// Parse one raw game from the splitter.
pub fn parse_game(raw: &RawGame) -> Game {
    let mut game = parse_game_bytes(&raw.bytes, raw.game_number, raw.byte_offset, raw.line);
    if !raw.findings.is_empty() {
        let mut findings = raw.findings.clone();
        findings.append(&mut game.findings);
        game.findings = findings;
    }
    game
}

/// Parse one game's bytes, located at `byte_offset` and `line` in its file.
pub fn parse_game_bytes(bytes: &[u8], game_number: u64, byte_offset: u64, line: u64) -> Game {
    let mut p = GameParser {
        b: bytes,
        i: 0,
        line,
        line_start: 0,
        base: byte_offset,
        game: Game {
            game_number,
            byte_offset,
            line,
            // Real tag sections hold about a dozen tags of 20 bytes: reserving once saves
            // the string and the list regrowing several times per game.
            tags: Tags::with_capacity(16, bytes.len().min(384)),
            ..Game::default()
        },
        not_utf8: false,
        text: std::str::from_utf8(bytes).ok(),
        tag_bits: 0,
        counts: Vec::new(),
        spent: 0,
    };
    p.tags();
    p.movetext();
    p.check_tags();
    p.summarize_suppressed();
    p.game
}

/// A tag value between quotes, with `\"` and `\\` unescaped; any other backslash is kept.
fn quoted(input: &[u8]) -> IResult<&[u8], Cow<'_, [u8]>> {
    let (input, _) = char('"').parse(input)?;
    let mut owned: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < input.len() {
        match input[i] {
            b'"' => {
                let value = match owned {
                    Some(v) => Cow::Owned(v),
                    None => Cow::Borrowed(&input[..i]),
                };
                return Ok((&input[i + 1..], value));
            }
            b'\\' if matches!(input.get(i + 1), Some(b'"' | b'\\')) => {
                let v = owned.get_or_insert_with(|| input[..i].to_vec());
                v.push(input[i + 1]);
                i += 2;
                continue;
            }
            b'\n' | b'\r' => break,
            c => {
                if let Some(v) = &mut owned {
                    v.push(c);
                }
            }
        }
        i += 1;
    }
    Err(nom::Err::Error(nom::error::Error::new(
        input,
        nom::error::ErrorKind::Char,
    )))
}

fn tag_name(input: &[u8]) -> IResult<&[u8], &[u8]> {
    take_while1(|c: u8| !is_space(c) && !matches!(c, b'"' | b'[' | b']')).parse(input)
}

/// A tag's name and (unescaped) value.
type TagPair<'a> = (&'a [u8], Cow<'a, [u8]>);

/// `[Name "value"]`, strictly.
fn tag_pair(input: &[u8]) -> IResult<&[u8], TagPair<'_>> {
    let (input, _) = char('[').parse(input)?;
    let (input, _) = space0.parse(input)?;
    let (input, name) = tag_name(input)?;
    let (input, _) = space0.parse(input)?;
    let (input, value) = quoted(input)?;
    let (input, _) = space0.parse(input)?;
    let (input, _) = char(']').parse(input)?;
    Ok((input, (name, value)))
}

/// The common tag, `[Name "value"]` with one space and no backslash in the value, read
/// without nom: its name, value and length. Anything else is left to [`tag_pair`], which
/// reads the same way whatever this accepts.
#[inline]
fn plain_tag(input: &[u8]) -> Option<(&[u8], &[u8], usize)> {
    let rest = input.strip_prefix(b"[")?;
    let name_len = tag_name_len(rest)?;
    if name_len == 0 || rest.get(name_len..name_len + 2) != Some(b" \"") {
        return None;
    }
    let value_from = name_len + 2;
    let value_len = value_end(&rest[value_from..])?;
    let close = value_from + value_len;
    if rest.get(close..close + 2) != Some(b"\"]") {
        return None;
    }
    Some((&rest[..name_len], &rest[value_from..close], close + 3))
}

/// A tag line that the strict parser refused, read leniently: the value runs from the first
/// quote to the last quote before the final `]` (real files hold `"The "best" game"`).
fn lenient_tag(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let (rest, _) = char::<&[u8], nom::error::Error<&[u8]>>('[')
        .parse(line)
        .ok()?;
    let (rest, _) = space0::<&[u8], nom::error::Error<&[u8]>>.parse(rest).ok()?;
    let (rest, name) = tag_name(rest).ok()?;
    let close = rest.iter().rposition(|&b| b == b']')?;
    let inner = &rest[..close];
    let open = memchr(b'"', inner)?;
    let last = inner.iter().rposition(|&b| b == b'"')?;
    if last <= open || !inner[last + 1..].iter().all(|&b| is_space(b)) {
        return None;
    }
    if !inner[..open].iter().all(|&b| is_space(b)) {
        return None;
    }
    Some((name, &inner[open + 1..last]))
}

fn glyph_nag(glyph: &[u8]) -> Option<u8> {
    match glyph {
        b"!" => Some(1),
        b"?" => Some(2),
        b"!!" => Some(3),
        b"??" => Some(4),
        b"!?" => Some(5),
        b"?!" => Some(6),
        _ => None,
    }
}

fn shown(token: &[u8]) -> String {
    let cut = &token[..token.len().min(40)];
    decode(cut).0
}

/// Append the move token `b[start..start + len]` (move-like, at most
/// [`SanToken::CAPACITY`] bytes) found at `pos` to the line, with the comments and NAGs
/// waiting for it.
#[inline(always)]
fn push_move(cur: &mut Frame, b: &[u8], start: usize, len: usize, pos: Pos) {
    let window = san_window(b, start, len);
    cur.moves
        .push(MoveNode::new(SanToken::from_window(window, len), pos));
    if !cur.before.is_empty()
        && let Some(node) = cur.moves.last_mut()
    {
        node.annotations_mut().comments_before = std::mem::take(&mut cur.before);
    }
    if !cur.nags_before.is_empty()
        && let Some(node) = cur.moves.last_mut()
    {
        node.annotations_mut().nags_before = std::mem::take(&mut cur.nags_before);
    }
}

/// The 16 bytes from `start`, or the `len` bytes of a token there zero-padded. The token is
/// built from them in registers (one 16-byte load, a mask): building it byte by byte on the
/// stack and copying it into the node read it back as one vector just after writing it in
/// pieces, which stalls store forwarding (it was half of the parser's own time). Wrapping
/// it in an `Option` forced it through memory the same way.
#[inline(always)]
fn san_window(b: &[u8], start: usize, len: usize) -> [u8; 16] {
    match b.get(start..).and_then(|rest| rest.first_chunk::<16>()) {
        Some(w) => *w,
        None => {
            let mut window = [0u8; 16];
            window[..len].copy_from_slice(&b[start..start + len]);
            window
        }
    }
}

/// Does a tag before the last one of `tags` have the last one's `name`? `bits` holds a
/// cheap signature of the names seen so far, which filters out almost every name before
/// the linear scan. The signature hashes the name's length and its first, middle and last
/// bytes: the ten usual tags (Seven Tag Roster, Elos, ECO) all get bits of their own (by
/// length and first byte, Site and WhiteElo shared one, and every such game was scanned).
#[inline]
fn seen_before(bits: &mut u64, tags: &Tags, name: &str) -> bool {
    let b = name.as_bytes();
    let key = match b {
        [] => 0,
        [first, .., last] | [first @ last] => {
            b.len() as u64
                | u64::from(*first) << 8
                | u64::from(*last) << 16
                | u64::from(b[b.len() / 2]) << 24
        }
    };
    let bit = 1u64 << (key.wrapping_mul(0xFF51_AFD7_ED55_8CCD) >> 58);
    let maybe_seen = *bits & bit != 0;
    *bits |= bit;
    maybe_seen && tags.has_name_before(tags.len() - 1, name)
}

/// A line of moves being built: the main line or a variation.
struct Frame {
    moves: Vec<MoveNode>,
    before: Vec<Comment>,
    nags_before: Vec<u8>,
    /// Ply of this line's first move (1 is White's first move of the game).
    start_ply: u32,
    open: Pos,
    /// Opened where no move could own it; its content is dropped on close.
    orphan: bool,
}

struct GameParser<'a> {
    b: &'a [u8],
    i: usize,
    line: u64,
    line_start: usize,
    base: u64,
    game: Game,
    not_utf8: bool,
    /// The game's bytes as text when they are all UTF-8 (most games): checked once here
    /// rather than once per tag name, tag value and comment.
    text: Option<&'a str>,
    tag_bits: u64,
    counts: Vec<(&'static str, u32)>,
    /// Nodes of the tree held outside the current line: moves of the lines on the stack and
    /// of closed variations, and comments (see [`MAX_NODES`]).
    spent: usize,
}

/// Findings of one code kept per game; further ones are summed up in one last finding.
const MAX_SAME_FINDINGS: u32 = 8;

/// What one game may cost the reader: moves in all its lines plus comments (a node is
/// about 50 bytes, 200 with annotations), and variations open at once. The longest real
/// games have a few thousand moves and the richest annotated ones some tens of thousands
/// of nodes nested a dozen deep; without a cap, 1 MB of `(` or a million nested `(1. d4`
/// took 170 and 555 MB. A game over either is rejected with `pgn.game-too-complex` at the
/// token where the cap was reached, the rest of its movetext is not read (time stays
/// linear), and its bytes go to the quarantine whole.
pub const MAX_NODES: usize = 200_000;
pub const MAX_VARIATION_DEPTH: usize = 128;

impl<'a> GameParser<'a> {
    #[inline]
    fn pos_at(&self, i: usize) -> Pos {
        Pos {
            line: self.line,
            column: (i - self.line_start + 1) as u32,
            byte: self.base + i as u64,
        }
    }

    fn finding(
        &mut self,
        code: &'static str,
        severity: Severity,
        at: Pos,
        ply: Option<u32>,
        token: Option<String>,
        message: String,
    ) {
        // A game in another notation (German `Sf3`) or pasted HTML would otherwise yield one
        // finding per token; keep the first few of each code and count the rest.
        let seen = match self.counts.iter_mut().find(|(c, _)| *c == code) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.counts.push((code, 1));
                1
            }
        };
        if seen > MAX_SAME_FINDINGS {
            return;
        }
        self.game.findings.push(Finding {
            code,
            severity,
            game_number: self.game.game_number,
            line: at.line,
            column: at.column,
            byte: at.byte,
            ply,
            token,
            message,
        });
    }

    fn summarize_suppressed(&mut self) {
        for (code, n) in std::mem::take(&mut self.counts) {
            if n > MAX_SAME_FINDINGS
                && let Some(last) = self.game.findings.iter().rev().find(|f| f.code == code)
            {
                let mut summary = last.clone();
                summary.token = None;
                summary.ply = None;
                summary.message = format!(
                    "{} more findings like the one before were not listed",
                    n - MAX_SAME_FINDINGS
                );
                self.game.findings.push(summary);
            }
        }
    }

    fn note_decoding(&mut self, lossy: bool, at: Pos) {
        if lossy && !self.not_utf8 {
            self.not_utf8 = true;
            self.finding(
                code::NOT_UTF8,
                severity(code::NOT_UTF8),
                at,
                None,
                None,
                "text is not UTF-8; it was read as Windows-1252".into(),
            );
        }
    }

    /// Account for line ends in `self.b[from..to]`, which is being skipped in one piece.
    fn count_lines(&mut self, from: usize, to: usize) {
        let mut k = from;
        while let Some(j) = memchr2(b'\n', b'\r', &self.b[k..to]) {
            let e = k + j;
            k = if self.b[e] == b'\r' && self.b.get(e + 1) == Some(&b'\n') {
                e + 2
            } else {
                e + 1
            };
            self.line += 1;
            self.line_start = k;
            if k >= to {
                break;
            }
        }
    }

    fn end_of_line(&self, from: usize) -> usize {
        memchr2(b'\n', b'\r', &self.b[from..]).map_or(self.b.len(), |j| from + j)
    }

    /// Skip whitespace, line ends and `%` escape lines. Inlined for its two common cases
    /// (called once per token, the call itself cost a tenth of the parse).
    #[inline(always)]
    fn skip_space(&mut self) {
        // The common cases first: the next token right here, or after one space.
        let solid = |b: u8| b > b' ' && b != b'%';
        match self.b.get(self.i) {
            Some(&b) if solid(b) => return,
            Some(b' ') if self.b.get(self.i + 1).is_some_and(|&b| solid(b)) => {
                self.i += 1;
                return;
            }
            _ => {}
        }
        self.skip_space_slow();
    }

    #[inline(never)]
    fn skip_space_slow(&mut self) {
        while self.i < self.b.len() {
            match self.b[self.i] {
                b' ' | b'\t' | 0x0B | 0x0C => self.i += 1,
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.line_start = self.i;
                }
                b'\r' => {
                    self.i += if self.b.get(self.i + 1) == Some(&b'\n') {
                        2
                    } else {
                        1
                    };
                    self.line += 1;
                    self.line_start = self.i;
                }
                b'%' if self.i == self.line_start => self.i = self.end_of_line(self.i),
                _ => return,
            }
        }
    }

    fn tags(&mut self) {
        loop {
            self.skip_space();
            if self.b.get(self.i) != Some(&b'[') {
                return;
            }
            let at = self.pos_at(self.i);
            if let Some((name, value, mut end)) = plain_tag(&self.b[self.i..]) {
                // In a game that is all UTF-8 (checked once), the name and value are taken
                // as text without decoding them again.
                let from = self.i + 1;
                let to = from + name.len() + 2 + value.len();
                match self.text.and_then(|t| t.get(from..to)) {
                    Some(line) => self.push_plain_tag(line, name.len(), at),
                    None => self.push_tag(name, value, at),
                }
                // The common line end before the next tag, counted here.
                let next = &self.b[self.i + end..];
                if next.starts_with(b"\r\n[") {
                    end += 2;
                } else if next.starts_with(b"\n[") {
                    end += 1;
                } else {
                    self.i += end;
                    continue;
                }
                self.i += end;
                self.line += 1;
                self.line_start = self.i;
                continue;
            }
            let eol = self.end_of_line(self.i);
            let line = &self.b[self.i..eol];
            match tag_pair(line) {
                Ok((rest, (name, value))) => {
                    self.push_tag(name, &value, at);
                    // Another tag may follow on the same line.
                    self.i = eol - rest.len();
                }
                Err(_) => {
                    if self.broken_tag(line, eol, at) {
                        continue;
                    }
                    if let Some((name, value)) = lenient_tag(line) {
                        self.push_tag(name, value, at);
                        self.finding(
                            code::MALFORMED_TAG,
                            severity(code::MALFORMED_TAG),
                            at,
                            None,
                            Some(shown(line)),
                            "tag value with unescaped quotes or backslashes; read up to the last quote"
                                .into(),
                        );
                    } else {
                        self.finding(
                            code::MALFORMED_TAG,
                            Severity::Error,
                            at,
                            None,
                            Some(shown(line)),
                            "unreadable tag pair; it was dropped".into(),
                        );
                    }
                    self.i = eol;
                }
            }
        }
    }

    /// A tag line whose quoted value runs on to the next line, which ends the tag
    /// (`[White "Foo` then `Bar"]`, as the splitter keeps them in one game: `token::
    /// closes_tag`): the two lines are read as one, joined by a space, with a finding.
    /// Returns false, having read nothing, when `line` is not such a tag.
    #[cold]
    fn broken_tag(&mut self, line: &[u8], eol: usize, at: Pos) -> bool {
        if !tag_value_open(line) {
            return false;
        }
        let next_start = match self.b.get(eol..) {
            Some([b'\r', b'\n', ..]) => eol + 2,
            Some([b'\n' | b'\r', ..]) => eol + 1,
            _ => return false,
        };
        let next_end = self.end_of_line(next_start);
        let next = &self.b[next_start..next_end];
        let first = next.iter().position(|&b| b != b' ' && b != b'\t');
        let Some(first) = first else { return false };
        if !closes_tag(&next[first..]) {
            return false;
        }
        let head = line.trim_ascii_end();
        let mut joined = Vec::with_capacity(head.len() + 1 + next.len());
        joined.extend_from_slice(head);
        joined.push(b' ');
        joined.extend_from_slice(next[first..].trim_ascii_end());
        let read = match tag_pair(&joined) {
            Ok((rest, (name, value))) if rest.iter().all(|&b| is_space(b)) => {
                Some((name.to_vec(), value.into_owned()))
            }
            _ => lenient_tag(&joined).map(|(name, value)| (name.to_vec(), value.to_vec())),
        };
        let Some((name, value)) = read else {
            return false;
        };
        self.push_tag(&name, &value, at);
        self.finding(
            code::TAG_LINE_BREAK,
            severity(code::TAG_LINE_BREAK),
            at,
            None,
            Some(shown(head)),
            "the tag value runs over a line end; the two lines were read as one, joined by a space"
                .into(),
        );
        self.i = next_end;
        self.line += 1;
        self.line_start = next_start;
        true
    }

    /// Decode a tag's name and value from file bytes (UTF-8, else Windows-1252) and append
    /// it.
    fn push_tag(&mut self, name: &[u8], value: &[u8], at: Pos) {
        let lossy = self.game.tags.push_with(
            |text| super::decode::decode_into(name, text),
            |text| super::decode::decode_into(value, text),
        );
        self.note_decoding(lossy, at);
        let k = self.game.tags.len() - 1;
        let Some((name, _)) = self.game.tags.get(k) else {
            return;
        };
        if seen_before(&mut self.tag_bits, &self.game.tags, name) {
            let name = name.to_owned();
            self.duplicate_tag(name, at);
        }
    }

    /// Append a plain tag already known to be text, given as `Name "value`.
    #[inline]
    fn push_plain_tag(&mut self, line: &'a str, name_len: usize, at: Pos) {
        self.game.tags.push_plain(line, name_len);
        let name = line.get(..name_len).unwrap_or("");
        if seen_before(&mut self.tag_bits, &self.game.tags, name) {
            self.duplicate_tag(name.to_owned(), at);
        }
    }

    #[cold]
    fn duplicate_tag(&mut self, name: String, at: Pos) {
        let message = format!("tag {name} appears more than once; the first is used");
        self.finding(
            code::DUPLICATE_TAG,
            severity(code::DUPLICATE_TAG),
            at,
            None,
            Some(name),
            message,
        );
    }

    fn comment(&mut self, text: &[u8], at: Pos) -> Comment {
        let (mut text, lossy) = decode_collapsed(text);
        if text.contains("\\}") {
            // An escaped brace (see `comment_end`) is a brace of the text.
            text = text.replace("\\}", "}");
        }
        self.note_decoding(lossy, at);
        let commands = if text.contains("[%") {
            let (commands, bad) = parse_commands(&text);
            if let Some(bad) = bad {
                self.finding(
                    code::BAD_COMMAND,
                    severity(code::BAD_COMMAND),
                    at,
                    None,
                    Some(bad),
                    "comment command with arguments that do not parse; kept as text".into(),
                );
            }
            commands
        } else {
            Vec::new()
        };
        Comment { text, commands }
    }

    fn movetext(&mut self) {
        let mut stack: Vec<Frame> = Vec::new();
        let mut cur = Frame {
            // Real games hold about one move per 5 to 6 bytes of movetext (`12.Nf3 Nc6 `);
            // reserving that once avoids regrowing and copying the vector in most games.
            moves: Vec::with_capacity(((self.b.len() - self.i) / 5 + 2).min(MAX_NODES + 1)),
            before: Vec::new(),
            nags_before: Vec::new(),
            start_ply: 1,
            open: self.pos_at(self.i),
            orphan: false,
        };
        let mut result: Option<(Marker, Pos)> = None;
        loop {
            if result.is_none() {
                self.common_movetext(&mut cur);
            }
            if self.spent + cur.moves.len() > MAX_NODES {
                self.over_limit(format!(
                    "more than {MAX_NODES} moves and comments in one game"
                ));
                break;
            }
            self.skip_space();
            let Some(&c) = self.b.get(self.i) else { break };
            let start = self.i;
            let at = self.pos_at(start);
            if result.is_some() && c != b'{' && c != b';' {
                let eol = self.end_of_line(start);
                self.finding(
                    code::TEXT_AFTER_RESULT,
                    severity(code::TEXT_AFTER_RESULT),
                    at,
                    None,
                    Some(shown(&self.b[start..eol])),
                    format!(
                        "{} bytes after the termination marker were skipped",
                        self.b.len() - start
                    ),
                );
                break;
            }
            match c {
                b'{' => {
                    let (end, next) = match comment_end(&self.b[start + 1..]) {
                        Some(j) => (start + 1 + j, start + 2 + j),
                        None => {
                            self.finding(
                                code::UNTERMINATED_COMMENT,
                                severity(code::UNTERMINATED_COMMENT),
                                at,
                                None,
                                None,
                                "comment opened with { is never closed".into(),
                            );
                            (self.b.len(), self.b.len())
                        }
                    };
                    let comment = self.comment(&self.b[start + 1..end], at);
                    self.count_lines(start, end);
                    self.i = next;
                    self.attach_comment(&mut cur, stack.is_empty(), result.is_some(), comment);
                }
                b';' => {
                    let eol = self.end_of_line(start);
                    let comment = self.comment(&self.b[start + 1..eol], at);
                    self.i = eol;
                    self.attach_comment(&mut cur, stack.is_empty(), result.is_some(), comment);
                }
                b'(' => {
                    if stack.len() >= MAX_VARIATION_DEPTH {
                        self.over_limit(format!(
                            "variations nested more than {MAX_VARIATION_DEPTH} deep"
                        ));
                        break;
                    }
                    self.i += 1;
                    self.spent += cur.moves.len();
                    let orphan = cur.moves.is_empty();
                    if orphan {
                        self.finding(
                            code::MISPLACED_VARIATION,
                            severity(code::MISPLACED_VARIATION),
                            at,
                            None,
                            Some("(".into()),
                            "a variation opens before any move it could replace".into(),
                        );
                    }
                    let start_ply = cur.start_ply + cur.moves.len().saturating_sub(1) as u32;
                    let parent = std::mem::replace(
                        &mut cur,
                        Frame {
                            moves: Vec::new(),
                            before: Vec::new(),
                            nags_before: Vec::new(),
                            start_ply,
                            open: at,
                            orphan,
                        },
                    );
                    stack.push(parent);
                }
                b')' => {
                    self.i += 1;
                    match stack.pop() {
                        Some(parent) => {
                            self.spent -= parent.moves.len();
                            let child = std::mem::replace(&mut cur, parent);
                            self.spent += child.moves.len() + child.before.len();
                            self.close_variation(&mut cur, child, at);
                        }
                        None => self.finding(
                            code::UNOPENED_VARIATION,
                            severity(code::UNOPENED_VARIATION),
                            at,
                            None,
                            Some(")".into()),
                            "a variation closes that was never opened".into(),
                        ),
                    }
                }
                b'$' => {
                    let digits = self.b[start + 1..]
                        .iter()
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                    let end = start + 1 + digits;
                    self.i = end;
                    let value = std::str::from_utf8(&self.b[start + 1..end])
                        .ok()
                        .and_then(|s| s.parse::<u32>().ok());
                    match value {
                        Some(n) if n <= 255 => {
                            self.attach_nag(&mut cur, n as u8, at, &self.b[start..end])
                        }
                        _ => {
                            let token = shown(&self.b[start..end]);
                            self.finding(
                                code::BAD_NAG,
                                severity(code::BAD_NAG),
                                at,
                                Some(cur.start_ply + cur.moves.len() as u32),
                                Some(token),
                                "a NAG must be $0 to $255; it was dropped".into(),
                            );
                        }
                    }
                }
                b'!' | b'?' => {
                    let len = self.b[start..]
                        .iter()
                        .take_while(|&&b| b == b'!' || b == b'?')
                        .count();
                    self.i = start + len;
                    let glyph = &self.b[start..start + len];
                    match glyph_nag(glyph) {
                        Some(n) => self.attach_nag(&mut cur, n, at, glyph),
                        None => self.finding(
                            code::BAD_NAG,
                            severity(code::BAD_NAG),
                            at,
                            None,
                            Some(shown(glyph)),
                            "unknown annotation glyph; it was dropped".into(),
                        ),
                    }
                }
                b'.' => {
                    // Dots of a move number written apart from it: `1 ... e5`.
                    self.i += self.b[start..].iter().take_while(|&&b| b == b'.').count();
                }
                _ => {
                    if c.is_ascii_digit()
                        && let Some(end) = self.move_number_end(start)
                    {
                        self.i = end;
                        continue;
                    }
                    if matches!(c, b'0' | b'1' | b'*')
                        && let Some((marker, len)) = marker_at(&self.b[start..])
                    {
                        self.i += len;
                        if stack.is_empty() {
                            result = Some((marker, at));
                        } else {
                            self.finding(
                                code::RESULT_IN_VARIATION,
                                severity(code::RESULT_IN_VARIATION),
                                at,
                                None,
                                Some(marker.as_str().into()),
                                "termination marker inside a variation; ignored".into(),
                            );
                        }
                        continue;
                    }
                    if c.is_ascii_digit() && !self.b[start..].starts_with(b"0-0") {
                        let digits = self.b[start..]
                            .iter()
                            .take_while(|b| b.is_ascii_digit())
                            .count();
                        let after = start + digits;
                        let dots = self.b[after..].iter().take_while(|&&b| b == b'.').count();
                        if dots > 0 || self.b.get(after).is_none_or(|&b| is_delimiter(b)) {
                            // A move number; the writer derives its own.
                            self.i = after + dots;
                            continue;
                        }
                    }
                    let len = token_len(&self.b[start..]).max(1);
                    let token = &self.b[start..start + len];
                    if let Some(nag) = annotation_symbol_nag(token) {
                        self.i = start + len;
                        self.finding(
                            code::ANNOTATION_SYMBOL,
                            severity(code::ANNOTATION_SYMBOL),
                            at,
                            None,
                            Some(shown(token)),
                            format!("annotation symbol read as ${nag}"),
                        );
                        self.attach_nag(&mut cur, nag, at, token);
                        continue;
                    }
                    if let Some((move_len, marker)) = glued_marker(token) {
                        // `h6*`: the move, then the marker as if a space stood between.
                        let shown_token = shown(token);
                        self.move_token_len(&mut cur, start, move_len, at);
                        let at = self.pos_at(start + move_len);
                        self.i = start + len;
                        self.finding(
                            code::GLUED_RESULT,
                            severity(code::GLUED_RESULT),
                            at,
                            None,
                            Some(shown_token),
                            "termination marker written against the last move; read as the move and the marker".into(),
                        );
                        if stack.is_empty() {
                            result = Some((marker, at));
                        } else {
                            self.finding(
                                code::RESULT_IN_VARIATION,
                                severity(code::RESULT_IN_VARIATION),
                                at,
                                None,
                                Some(marker.as_str().into()),
                                "termination marker inside a variation; ignored".into(),
                            );
                        }
                        continue;
                    }
                    self.move_token(&mut cur, start, at);
                }
            }
        }
        while let Some(parent) = stack.pop() {
            let child = std::mem::replace(&mut cur, parent);
            let open = child.open;
            self.finding(
                code::UNCLOSED_VARIATION,
                severity(code::UNCLOSED_VARIATION),
                open,
                None,
                Some("(".into()),
                "a variation is never closed".into(),
            );
            let end = self.pos_at(self.b.len());
            self.close_variation(&mut cur, child, end);
        }
        if !cur.nags_before.is_empty() {
            let at = self.pos_at(self.b.len());
            self.finding(
                code::MISPLACED_NAG,
                severity(code::MISPLACED_NAG),
                at,
                None,
                None,
                "annotations with no move after them; they were dropped".into(),
            );
        }
        if !cur.before.is_empty() {
            // Comments with no move after them, and no move before: the game's only text.
            self.game.leading_comments.append(&mut cur.before);
        }
        self.game.moves = cur.moves;
        match result {
            Some((marker, _)) => self.game.result = Some(marker),
            None => {
                let at = self.pos_at(self.b.len());
                self.finding(
                    code::MISSING_RESULT_MARKER,
                    severity(code::MISSING_RESULT_MARKER),
                    at,
                    None,
                    None,
                    "the game has no termination marker (1-0, 0-1, 1/2-1/2 or *)".into(),
                );
            }
        }
        if self.game.moves.is_empty() {
            let at = Pos {
                line: self.game.line,
                column: 1,
                byte: self.base,
            };
            self.finding(
                code::EMPTY_GAME,
                severity(code::EMPTY_GAME),
                at,
                None,
                None,
                "the game has no moves".into(),
            );
        }
    }

    /// The end of the common move number at `start` (`12.`, `12...`): digits, then dots.
    /// No marker or castling (`1-0`, `0-0`) has a dot after its leading digits.
    #[inline]
    fn move_number_end(&self, start: usize) -> Option<usize> {
        let rest = &self.b[start..];
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let dots = rest[digits..].iter().take_while(|&&b| b == b'.').count();
        (dots > 0).then_some(start + digits + dots)
    }

    fn move_token(&mut self, cur: &mut Frame, start: usize, at: Pos) {
        let len = token_len(&self.b[start..]).max(1);
        self.move_token_len(cur, start, len, at);
    }

    /// The move token `b[start..start + len]`.
    fn move_token_len(&mut self, cur: &mut Frame, start: usize, len: usize, at: Pos) {
        let end = start + len;
        let token = &self.b[start..end];
        self.i = end;
        let ply = cur.start_ply + cur.moves.len() as u32;
        if !is_move_like(token) {
            self.finding(
                code::UNREADABLE_TOKEN,
                severity(code::UNREADABLE_TOKEN),
                at,
                Some(ply),
                Some(shown(token)),
                "this is not a move, move number, NAG, comment or result".into(),
            );
            return;
        }
        if len > SanToken::CAPACITY {
            self.finding(
                code::TOKEN_TOO_LONG,
                severity(code::TOKEN_TOO_LONG),
                at,
                Some(ply),
                Some(shown(token)),
                format!("a move token may be at most {} bytes", SanToken::CAPACITY),
            );
            return;
        }
        if token == b"--" || token == b"Z0" {
            self.finding(
                code::NULL_MOVE,
                severity(code::NULL_MOVE),
                at,
                Some(ply),
                Some(shown(token)),
                "null move: the side to move passes".into(),
            );
        }
        // The position is computed again here rather than copied from `at`, which lives on
        // the stack in pieces: copying it stalls store forwarding (see `push_move`).
        let pos = self.pos_at(start);
        push_move(cur, self.b, start, len, pos);
    }

    /// The common movetext, read in one tight loop: spaces and line ends, move numbers
    /// (`12.`, `12...`) and moves of the usual SAN shapes ([`common_san`]), none of
    /// which can raise a finding. Stops at the first byte it does not handle (a comment, a
    /// NAG, a variation, a result, an escape line, an unusual token...), which the general
    /// loop then reads exactly as it would have without this loop. A function of its own:
    /// inlined into the whole game's reader, its loop was register-allocated with
    /// everything else there, and a change to the tag section cost it 19M instructions on
    /// the master games (5 a move).
    #[inline(never)]
    fn common_movetext(&mut self, cur: &mut Frame) {
        if !cur.before.is_empty() || !cur.nags_before.is_empty() {
            // The next move takes these: the general loop reads it.
            return;
        }
        let b = self.b;
        // The general loop stops the game at the node cap; leave it the last move.
        let room = MAX_NODES.saturating_sub(self.spent);
        let mut i = self.i;
        let mut line = self.line;
        let mut line_start = self.line_start;
        while let Some(&c) = b.get(i) {
            match c {
                b' ' => i += 1,
                b'\n' => {
                    i += 1;
                    line += 1;
                    line_start = i;
                }
                b'\r' => {
                    i += if b.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
                    line += 1;
                    line_start = i;
                }
                b'0'..=b'9' => {
                    let rest = &b[i..];
                    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                    let dots = rest[digits..].iter().take_while(|&&b| b == b'.').count();
                    if dots == 0 {
                        break;
                    }
                    i += digits + dots;
                }
                _ => {
                    if cur.moves.len() >= room {
                        break;
                    }
                    let Some((len, bytes)) = common_san(&b[i..]) else {
                        break;
                    };
                    let pos = Pos {
                        line,
                        column: (i - line_start + 1) as u32,
                        byte: self.base + i as u64,
                    };
                    // Nothing waits for this move (checked on entry): no comments or NAGs
                    // to attach.
                    let san = SanToken::from_short(bytes, len);
                    cur.moves.push(MoveNode::new(san, pos));
                    i += len;
                    // A move is nearly always followed by one space: step over it here
                    // rather than through the dispatch above.
                    if b.get(i) == Some(&b' ') {
                        i += 1;
                    }
                }
            }
        }
        self.i = i;
        self.line = line;
        self.line_start = line_start;
    }

    fn attach_comment(&mut self, cur: &mut Frame, top: bool, after_result: bool, comment: Comment) {
        self.spent += 1;
        if after_result {
            self.game.trailing_comments.push(comment);
        } else if let Some(last) = cur.moves.last_mut() {
            last.annotations_mut().comments_after.push(comment);
        } else if top {
            self.game.leading_comments.push(comment);
        } else {
            cur.before.push(comment);
        }
    }

    /// The game is over a cap of [`MAX_NODES`] or [`MAX_VARIATION_DEPTH`] at the current
    /// byte: reject it there and read no more of its movetext.
    fn over_limit(&mut self, what: String) {
        let at = self.pos_at(self.i);
        let left = self.b.len() - self.i;
        self.finding(
            code::GAME_TOO_COMPLEX,
            severity(code::GAME_TOO_COMPLEX),
            at,
            None,
            None,
            format!("{what}: the last {left} bytes of the game were not read"),
        );
        self.count_lines(self.i, self.b.len());
        self.i = self.b.len();
    }

    fn attach_nag(&mut self, cur: &mut Frame, nag: u8, at: Pos, token: &[u8]) {
        match cur.moves.last_mut() {
            Some(last) => last.annotations_mut().nags.push(nag),
            // Kept for the move that follows (Informant style: `$142 12. Nf3`).
            None if nag > 6 => cur.nags_before.push(nag),
            None => self.finding(
                code::MISPLACED_NAG,
                severity(code::MISPLACED_NAG),
                at,
                None,
                Some(shown(token)),
                "an annotation before any move; it was dropped".into(),
            ),
        }
    }

    fn close_variation(&mut self, parent: &mut Frame, mut child: Frame, at: Pos) {
        if child.orphan {
            return;
        }
        if child.moves.is_empty() {
            self.finding(
                code::EMPTY_VARIATION,
                severity(code::EMPTY_VARIATION),
                child.open,
                None,
                None,
                "a variation without moves; it was dropped with its comments".into(),
            );
            return;
        }
        if !child.before.is_empty() {
            // Only possible when comments close the line after its last move.
            if let Some(last) = child.moves.last_mut() {
                last.annotations_mut()
                    .comments_after
                    .append(&mut child.before);
            }
        }
        let _ = at;
        if let Some(owner) = parent.moves.last_mut() {
            owner
                .annotations_mut()
                .variations
                .push(std::mem::take(&mut child.moves));
        }
    }

    fn check_tags(&mut self) {
        let at = Pos {
            line: self.game.line,
            column: 1,
            byte: self.base,
        };
        let mut present = [false; 7];
        // The Result tag's marker, or its text when it is not one; copied only then.
        let mut result_tag: Option<Result<Marker, String>> = None;
        let mut variant = None;
        for t in 0..self.game.tags.len() {
            // Only names of four to seven bytes matter below: most others (WhiteElo,
            // EventDate, ECO) are passed over by their length, without making them text.
            if !(4..=7).contains(&self.game.tags.name_len(t)) {
                continue;
            }
            let k = match self.game.tags.name_bytes(t) {
                b"Event" => 0,
                b"Site" => 1,
                b"Date" => 2,
                b"Round" => 3,
                b"White" => 4,
                b"Black" => 5,
                b"Result" => 6,
                b"Variant" => {
                    if variant.is_none() {
                        variant = Some(self.game.tags.value_at(t).to_owned());
                    }
                    continue;
                }
                _ => continue,
            };
            if k == 6 && !present[6] {
                let value = self.game.tags.value_at(t);
                result_tag = Some(Marker::from_text(value).ok_or_else(|| value.to_owned()));
            }
            present[k] = true;
        }
        if present.iter().any(|&p| !p) {
            let missing: Vec<&str> = SEVEN_TAG_ROSTER
                .iter()
                .zip(present)
                .filter(|(_, p)| !p)
                .map(|(n, _)| *n)
                .collect();
            let list = missing.join(",");
            self.finding(
                code::MISSING_TAG,
                severity(code::MISSING_TAG),
                at,
                None,
                Some(list.clone()),
                format!("Seven Tag Roster tags missing: {list}"),
            );
        }
        match result_tag {
            None => {}
            Some(Err(value)) => self.finding(
                code::BAD_RESULT_TAG,
                severity(code::BAD_RESULT_TAG),
                at,
                None,
                Some(value),
                "the Result tag is not 1-0, 0-1, 1/2-1/2 or *".into(),
            ),
            Some(Ok(tagged)) => {
                if let Some(marker) = self.game.result
                    && marker != tagged
                {
                    self.finding(
                        code::RESULT_MISMATCH,
                        severity(code::RESULT_MISMATCH),
                        at,
                        None,
                        Some(marker.as_str().into()),
                        format!("the Result tag says {tagged} but the movetext ends with {marker}"),
                    );
                }
            }
        }
        if let Some(variant) = variant
            && !is_supported_variant(&variant)
        {
            self.finding(
                code::UNSUPPORTED_VARIANT,
                severity(code::UNSUPPORTED_VARIANT),
                at,
                None,
                Some(variant.clone()),
                format!(
                    "variant {variant:?} is not standard chess or Chess960; the game is not judged"
                ),
            );
        }
    }
}

/// Standard chess and Chess960 under the names real files use for them (`Regular` is
/// kokopu's name for standard chess, and it reads `Standard` and `Regular` alike).
pub fn is_supported_variant(name: &str) -> bool {
    let key: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    matches!(
        key.as_str(),
        "" | "standard"
            | "regular"
            | "normal"
            | "chess"
            | "fromposition"
            | "chess960"
            | "960"
            | "fischerandom"
            | "fischerrandom"
            | "frc"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::model::{Command, EvalScore, TimeSpan};

    fn parse(text: &str) -> Game {
        parse_game_bytes(text.as_bytes(), 1, 0, 1)
    }

    fn sans(moves: &[MoveNode]) -> Vec<&str> {
        moves.iter().map(|m| m.san.as_str()).collect()
    }

    fn codes(game: &Game) -> Vec<&'static str> {
        game.findings
            .iter()
            .map(|f| f.code)
            .filter(|&c| c != code::MISSING_TAG)
            .collect()
    }

    #[test]
    fn tags_with_escapes_and_any_names() {
        let g = parse("[Event \"A \\\"B\\\" \\\\ C\"]\n[My_Tag-2 \"x\"]\n[Site \"\"]\n*");
        assert_eq!(g.tag("Event"), Some("A \"B\" \\ C"));
        assert_eq!(g.tag("My_Tag-2"), Some("x"));
        assert_eq!(g.tag("Site"), Some(""));
        assert!(!g.is_rejected());
    }

    #[test]
    fn plain_tags_read_as_the_full_grammar_does() {
        for line in [
            &b"[Event \"x\"]"[..],
            b"[Event \"\"]",
            b"[Event \"a b\"] [Site \"c\"]",
            b"[Event \"a\\\"b\"]",
            b"[Event  \"x\"]",
            b"[Event \"x\" ]",
            b"[Event \"x\"",
            b"[ Event \"x\"]",
            b"[Event\"x\"]",
            b"[Event \"x\nSite\"]",
            b"[\xc3\xa9v \"\xe9\"]",
        ] {
            if let Some((name, value, end)) = plain_tag(line) {
                let (rest, (n, v)) = tag_pair(line).unwrap();
                assert_eq!((name, value), (n, &v[..]), "{line:?}");
                assert_eq!(end, line.len() - rest.len(), "{line:?}");
            }
        }
        assert!(plain_tag(b"[Event \"x\"]").is_some());
        assert!(plain_tag(b"[Event \"a\\\"b\"]").is_none());
    }

    #[test]
    fn unescaped_quotes_are_read_leniently() {
        let g = parse("[Event \"Tournament \\\"]\n[White \"The \"best\" one\"]\n*");
        assert_eq!(g.tag("Event"), Some("Tournament \\"));
        assert_eq!(g.tag("White"), Some("The \"best\" one"));
        assert_eq!(
            codes(&g),
            vec![code::MALFORMED_TAG, code::MALFORMED_TAG, code::EMPTY_GAME]
        );
        assert!(!g.is_rejected());
    }

    #[test]
    fn move_numbers_in_every_spacing() {
        let g = parse("1.e4 e5 2. Nf3 2...Nc6 3 . Bb5 3... a6 4.Ba4 *");
        assert_eq!(
            sans(&g.moves),
            vec!["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"]
        );
        assert_eq!(g.result, Some(Marker::Unknown));
        assert_eq!(codes(&g), Vec::<&str>::new());
    }

    #[test]
    fn every_token_is_located() {
        let g = parse_game_bytes(b"[Event \"x\"]\n\n1. e4 {c}\n  e5 *", 3, 1000, 40);
        assert_eq!(
            g.moves[0].pos,
            Pos {
                line: 42,
                column: 4,
                byte: 1016
            }
        );
        assert_eq!(
            g.moves[1].pos,
            Pos {
                line: 43,
                column: 3,
                byte: 1025
            }
        );
    }

    #[test]
    fn crlf_and_cr_count_as_one_line() {
        let g = parse("1. e4\r\n\r\ne5\r\rNf3 *");
        assert_eq!(g.moves[1].pos.line, 3);
        assert_eq!(g.moves[2].pos.line, 5);
        assert_eq!(g.moves[2].pos.column, 1);
    }

    #[test]
    fn unreadable_token_is_an_error_with_its_location() {
        let g = parse("1. e4 e5\n2. Zq9 Nc6 *");
        let f = g
            .findings
            .iter()
            .find(|f| f.code == code::UNREADABLE_TOKEN)
            .unwrap();
        assert_eq!(f.severity, Severity::Error);
        assert_eq!((f.line, f.column, f.byte, f.ply), (2, 4, 12, Some(3)));
        assert_eq!(f.token.as_deref(), Some("Zq9"));
        assert!(g.is_rejected());
        // The game goes on after the bad token: nothing else is lost.
        assert_eq!(sans(&g.moves), vec!["e4", "e5", "Nc6"]);
    }

    #[test]
    fn nags_and_glyphs() {
        let g = parse("1. e4! e5? 2. Nf3!! Nc6?? 3. Bb5!? a6?! 4. Ba4 $14 $255 *");
        let nags: Vec<&[u8]> = g.moves.iter().map(|m| m.nags()).collect();
        assert_eq!(
            nags,
            vec![&[1][..], &[2], &[3], &[4], &[5], &[6], &[14, 255]]
        );
        let g = parse("1. e4 $256 *");
        assert_eq!(codes(&g), vec![code::BAD_NAG]);
    }

    /// Issue 19, defect 11: Informant-style symbols were unreadable tokens that rejected
    /// the whole game.
    #[test]
    fn informant_annotation_symbols_are_nags_not_unreadable_tokens() {
        let g = parse(
            "1. e4 +- 2. e5 -+ 3. d4 +/= 4. d5 =/+ 5. c4 +/- 6. c5 -/+ 7. Nf3 = 8. Nc6 inf \
             9. Bb5 =/\u{221e} 10. a6 RR 11. Ba4 N 12. b5 \u{2206} 13. Bb3 \u{25a1} 14. a5 \u{2a00} \
             15. a4 \u{221e} *",
        );
        assert!(!g.is_rejected(), "{:?}", g.findings);
        let nags: Vec<&[u8]> = g.moves.iter().map(|m| m.nags()).collect();
        let expected: [&[u8]; 15] = [
            &[18],
            &[19],
            &[14],
            &[15],
            &[16],
            &[17],
            &[10],
            &[13],
            &[44],
            &[145],
            &[146],
            &[140],
            &[7],
            &[22],
            &[13],
        ];
        assert_eq!(nags, expected);
        assert!(codes(&g).iter().all(|c| *c == code::ANNOTATION_SYMBOL));
        let first = &g.findings[0];
        assert_eq!((first.column, first.token.as_deref()), (7, Some("+-")));
        // Kept as NAGs: clean PGN writes them as `$n`.
        let text = crate::pgn::game_to_string(&g, &Default::default());
        assert!(
            text.contains("\n\n1. e4 $18 e5 $19 2. d4 $14 d5 $15"),
            "{text}"
        );
        // `N` and `RR` are symbols only as whole tokens.
        let g = parse("1. Nf3 N 2. Nc3 *");
        assert_eq!(sans(&g.moves), vec!["Nf3", "Nc3"]);
        assert_eq!(g.moves[0].nags(), &[146]);
    }

    /// `\}` in a comment is an escaped brace of the text, not its end (some writers escape
    /// braces there); the comment keeps `}` and the game reads on.
    /// Issue 19, defect 2: 1 MB of `(` took 170 MB and a million nested `(1. d4` 555 MB;
    /// a game now stops at the caps with one located finding.
    #[test]
    fn deep_or_huge_games_stop_at_the_reader_caps() {
        let text = format!("1. e4 {}", "(1. d4 ".repeat(MAX_VARIATION_DEPTH + 50));
        let g = parse(&text);
        assert!(g.is_rejected());
        let f = g
            .findings
            .iter()
            .find(|f| f.code == code::GAME_TOO_COMPLEX)
            .unwrap();
        // The cap is reached at the 129th `(`: byte 6 + 128 * 7.
        assert_eq!(f.byte, 6 + 7 * MAX_VARIATION_DEPTH as u64);
        assert_eq!(f.column as u64, f.byte + 1);
        let text = format!("1. e4 {}", "(".repeat(1 << 16));
        assert!(parse(&text).has_finding(code::GAME_TOO_COMPLEX));
        // Moves and comments count alike.
        let text = "Nf3 {c} Nf6 ".repeat(MAX_NODES / 3 + 1);
        let g = parse(&text);
        let f = g
            .findings
            .iter()
            .find(|f| f.code == code::GAME_TOO_COMPLEX)
            .unwrap();
        assert!(g.moves.len() <= MAX_NODES, "{}", g.moves.len());
        assert!(f.message.contains("bytes of the game were not read"), "{f}");
        let text = "e4 ".repeat(MAX_NODES + 10);
        let g = parse(&text);
        assert_eq!(g.moves.len(), MAX_NODES + 1);
        assert!(g.has_finding(code::GAME_TOO_COMPLEX));
        // At the cap, nothing is said.
        let text = "e4 ".repeat(MAX_NODES);
        assert!(!parse(&text).has_finding(code::GAME_TOO_COMPLEX));
    }

    #[test]
    fn escaped_brace_does_not_end_a_comment() {
        let g = parse("1. e4 {a \\} b} e5 *");
        assert_eq!(g.moves[0].comments_after()[0].text, "a } b");
        assert_eq!(sans(&g.moves), vec!["e4", "e5"]);
        assert!(!g.is_rejected());
        let (raws, _) = crate::pgn::split_bytes(b"1. e4 {x \\}\n1-0} e5 *\n\n1. d4 *\n");
        assert_eq!(raws.len(), 2);
    }

    #[test]
    fn null_moves_are_recognised() {
        let g = parse("1. e4 -- 2. Nf3 Z0 *");
        assert!(g.moves[1].san.is_null());
        assert!(g.moves[3].san.is_null());
        assert_eq!(codes(&g), vec![code::NULL_MOVE, code::NULL_MOVE]);
        assert_eq!(
            g.findings
                .iter()
                .find(|f| f.code == code::NULL_MOVE)
                .unwrap()
                .ply,
            Some(2)
        );
    }

    #[test]
    fn comments_of_every_kind() {
        let g = parse("{start} 1. e4 {multi\n  line [ ( ; %} e5 ; to the end {\n2. Nf3 *");
        assert_eq!(g.leading_comments[0].text, "start");
        assert_eq!(g.moves[0].comments_after()[0].text, "multi line [ ( ; %");
        assert_eq!(g.moves[1].comments_after()[0].text, "to the end {");
        assert_eq!(sans(&g.moves), vec!["e4", "e5", "Nf3"]);
    }

    #[test]
    fn percent_escape_line_in_column_one_is_skipped() {
        let g = parse("1. e4\n% anything {\ne5 *");
        assert_eq!(sans(&g.moves), vec!["e4", "e5"]);
    }

    #[test]
    fn variations_nest() {
        let g = parse("1. e4 e5 (1... c5 2. Nf3 (2. c3 d5) 2... d6) (1... e6) 2. Nf3 *");
        assert_eq!(sans(&g.moves), vec!["e4", "e5", "Nf3"]);
        let vars = g.moves[1].variations();
        assert_eq!(vars.len(), 2);
        assert_eq!(sans(&vars[0]), vec!["c5", "Nf3", "d6"]);
        assert_eq!(sans(&vars[0][1].variations()[0]), vec!["c3", "d5"]);
        assert_eq!(sans(&vars[1]), vec!["e6"]);
        assert!(!g.is_rejected());
    }

    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let depth = 100_000;
        let mut text = String::from("1. e4 ");
        for _ in 0..depth {
            text.push_str("( e4 ");
        }
        for _ in 0..depth {
            text.push(')');
        }
        text.push_str(" *");
        let g = parse(&text);
        // Deeper than the cap: the game is rejected there, its tree kept to the cap.
        assert!(
            g.has_finding(code::GAME_TOO_COMPLEX),
            "{:?}",
            g.findings.first()
        );
        let mut depth_seen = 0;
        let mut line = &g.moves;
        while let Some(v) = line[0].variations().first() {
            depth_seen += 1;
            line = v;
        }
        assert_eq!(depth_seen, MAX_VARIATION_DEPTH);
        let copy = parse(&text);
        assert!(g == copy);
        drop(g);
    }

    #[test]
    fn unbalanced_variations_are_errors() {
        let g = parse("1. e4 (1. d4 *");
        assert_eq!(
            codes(&g),
            vec![
                code::RESULT_IN_VARIATION,
                code::UNCLOSED_VARIATION,
                code::MISSING_RESULT_MARKER
            ]
        );
        assert_eq!(g.moves[0].variations().len(), 1);
        let g = parse("1. e4 ) e5 *");
        assert_eq!(codes(&g), vec![code::UNOPENED_VARIATION]);
        let g = parse("( 1. d4 ) 1. e4 *");
        assert_eq!(codes(&g), vec![code::MISPLACED_VARIATION]);
    }

    #[test]
    fn termination_markers() {
        for (text, marker) in [
            ("1-0", Marker::WhiteWins),
            ("0-1", Marker::BlackWins),
            ("1/2-1/2", Marker::Draw),
            ("*", Marker::Unknown),
        ] {
            let g = parse(&format!("[Result \"{text}\"]\n1. e4 {text}"));
            assert_eq!(g.result, Some(marker));
            assert_eq!(codes(&g), Vec::<&str>::new());
        }
        let g = parse("1. O-O 0-0 *");
        assert_eq!(sans(&g.moves), vec!["O-O", "0-0"]);
    }

    #[test]
    fn result_problems() {
        let g = parse("[Result \"1-0\"]\n1. e4 0-1");
        assert_eq!(codes(&g), vec![code::RESULT_MISMATCH]);
        let g = parse("[Result \"1-0\"]\n1. e4");
        assert_eq!(codes(&g), vec![code::MISSING_RESULT_MARKER]);
        let g = parse("[Result \"white\"]\n1. e4 *");
        assert_eq!(codes(&g), vec![code::BAD_RESULT_TAG]);
        let g = parse("1. e4 * 2. d4");
        assert_eq!(codes(&g), vec![code::TEXT_AFTER_RESULT]);
        let g = parse("1. e4 (1. d4 1-0) *");
        assert_eq!(codes(&g), vec![code::RESULT_IN_VARIATION]);
        let g = parse("1. e4 1-0 {White won}");
        assert_eq!(g.trailing_comments[0].text, "White won");
    }

    #[test]
    fn missing_seven_tag_roster_is_info() {
        let g = parse("[Event \"x\"]\n1. e4 *");
        let missing: Vec<_> = g
            .findings
            .iter()
            .filter(|f| f.code == code::MISSING_TAG)
            .map(|f| f.token.clone().unwrap())
            .collect();
        assert_eq!(missing, vec!["Site,Date,Round,White,Black,Result"]);
        assert!(g.findings.iter().all(|f| f.severity == Severity::Info));
    }

    #[test]
    fn a_tag_value_broken_over_a_line_end_is_one_tag_with_a_finding() {
        let text = "[Event \"E\"]\n[White \"Foo \r\n  Bar\"]\n[Black \"B\"]\n\n1. e4 e5 *\n";
        let g = parse(text);
        assert_eq!(g.tag("White"), Some("Foo Bar"));
        assert_eq!(g.tag("Black"), Some("B"));
        assert_eq!(g.moves.len(), 2);
        let f: Vec<_> = g
            .findings
            .iter()
            .filter(|f| f.severity != Severity::Info)
            .collect();
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].code, code::TAG_LINE_BREAK);
        assert_eq!((f[0].line, f[0].column), (2, 1));
        assert!(!g.is_rejected());
        // The line joined to the tag is counted: the first move is on line 6.
        assert_eq!(g.moves[0].pos.line, 6);
    }

    #[test]
    fn a_result_glued_to_the_last_move_is_the_move_and_the_marker() {
        for (text, marker, moves) in [
            ("1. e4 h6*", Marker::Unknown, 2),
            (
                "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#1-0",
                Marker::WhiteWins,
                7,
            ),
            ("1. d4 d51/2-1/2", Marker::Draw, 2),
        ] {
            let g = parse(text);
            assert_eq!(g.result, Some(marker), "{text}");
            assert_eq!(g.moves.len(), moves, "{text}");
            assert!(g.has_finding(code::GLUED_RESULT), "{text}");
            assert!(!g.has_finding(code::UNREADABLE_TOKEN), "{text}");
            assert!(!g.has_finding(code::MISSING_RESULT_MARKER), "{text}");
        }
    }

    #[test]
    fn variants() {
        for ok in [
            "Standard",
            "Chess960",
            "chess 960",
            "Fischerandom",
            "From Position",
            "Regular",
        ] {
            assert!(
                !parse(&format!("[Variant \"{ok}\"]\n1. e4 *")).is_rejected(),
                "{ok}"
            );
        }
        let g = parse("[Variant \"Crazyhouse\"]\n1. e4 *");
        assert!(g.is_rejected());
        assert!(g.has_finding(code::UNSUPPORTED_VARIANT));
    }

    #[test]
    fn not_utf8_is_read_as_windows_1252() {
        let g = parse_game_bytes(b"[White \"J\xf6rg\"]\n1. e4 {\x93quoted\x94} *", 1, 0, 1);
        assert_eq!(g.tag("White"), Some("Jörg"));
        assert_eq!(
            g.moves[0].comments_after()[0].text,
            "\u{201C}quoted\u{201D}"
        );
        assert_eq!(
            g.findings
                .iter()
                .filter(|f| f.code == code::NOT_UTF8)
                .count(),
            1
        );
        assert!(!g.is_rejected());
    }

    #[test]
    fn commands_are_typed() {
        let g = parse("1. e4 { [%eval 0.25] [%clk 0:03:00] } e5 {[%eval #-3,12] [%emt 0:00:05]} *");
        let first: Vec<_> = g.moves[0].commands().cloned().collect();
        assert_eq!(
            first,
            vec![
                Command::Eval {
                    score: EvalScore::Centipawns(25),
                    depth: None
                },
                Command::Clock(TimeSpan { millis: 180_000 })
            ]
        );
        let second: Vec<_> = g.moves[1].commands().cloned().collect();
        assert_eq!(
            second,
            vec![
                Command::Eval {
                    score: EvalScore::Mate(-3),
                    depth: Some(12)
                },
                Command::Emt(TimeSpan { millis: 5_000 })
            ]
        );
    }

    #[test]
    fn empty_game() {
        let g = parse("[Event \"x\"]\n\n*");
        assert_eq!(codes(&g), vec![code::EMPTY_GAME]);
        assert!(!g.is_rejected());
    }

    #[test]
    fn prefix_nags_are_kept() {
        let g = parse("1. e4 e5 ( $142 1... c5 ) *");
        assert_eq!(g.moves[1].variations()[0][0].nags_before(), &[142]);
        assert_eq!(codes(&g), Vec::<&str>::new());
    }

    #[test]
    fn repeated_findings_are_capped() {
        let text = format!("1. e4 {} *", "Sf3 ".repeat(50));
        let g = parse(&text);
        let n = g
            .findings
            .iter()
            .filter(|f| f.code == code::UNREADABLE_TOKEN)
            .count();
        assert_eq!(n, MAX_SAME_FINDINGS as usize + 1);
        assert!(
            g.findings
                .last()
                .unwrap()
                .message
                .starts_with("42 more findings")
        );
    }
}
