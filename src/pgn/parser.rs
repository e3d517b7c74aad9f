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
use super::model::{Comment, Game, Marker, MoveNode, Pos, SanToken};
use super::split::RawGame;
use super::token::{is_delimiter, is_move_like, marker_at};

/// The Seven Tag Roster, in its export order.
pub const SEVEN_TAG_ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

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
            ..Game::default()
        },
        not_utf8: false,
        tag_bits: 0,
    };
    p.tags();
    p.movetext();
    p.check_tags();
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

/// `[Name "value"]`, strictly.
fn tag_pair(input: &[u8]) -> IResult<&[u8], (&[u8], Cow<'_, [u8]>)> {
    let (input, _) = char('[').parse(input)?;
    let (input, _) = space0.parse(input)?;
    let (input, name) = tag_name(input)?;
    let (input, _) = space0.parse(input)?;
    let (input, value) = quoted(input)?;
    let (input, _) = space0.parse(input)?;
    let (input, _) = char(']').parse(input)?;
    Ok((input, (name, value)))
}

/// A tag line that the strict parser refused, read leniently: the value runs from the first
/// quote to the last quote before the final `]` (real files hold `"The "best" game"`).
fn lenient_tag(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let (rest, _) = char::<&[u8], nom::error::Error<&[u8]>>('[').parse(line).ok()?;
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

/// A line of moves being built: the main line or a variation.
struct Frame {
    moves: Vec<MoveNode>,
    before: Vec<Comment>,
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
    tag_bits: u64,
}

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

    fn note_decoding(&mut self, lossy: bool, at: Pos) {
        if lossy && !self.not_utf8 {
            self.not_utf8 = true;
            self.finding(
                code::NOT_UTF8,
                Severity::Warning,
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

    /// Skip whitespace, line ends and `%` escape lines.
    #[inline]
    fn skip_space(&mut self) {
        while self.i < self.b.len() {
            match self.b[self.i] {
                b' ' | b'\t' | 0x0B | 0x0C => self.i += 1,
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.line_start = self.i;
                }
                b'\r' => {
                    self.i += if self.b.get(self.i + 1) == Some(&b'\n') { 2 } else { 1 };
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
            let eol = self.end_of_line(self.i);
            let line = &self.b[self.i..eol];
            match tag_pair(line) {
                Ok((rest, (name, value))) => {
                    self.push_tag(name, &value, at);
                    // Another tag may follow on the same line.
                    self.i = eol - rest.len();
                }
                Err(_) => {
                    if let Some((name, value)) = lenient_tag(line) {
                        self.push_tag(name, value, at);
                        self.finding(
                            code::MALFORMED_TAG,
                            Severity::Warning,
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

    fn push_tag(&mut self, name: &[u8], value: &[u8], at: Pos) {
        let (name, lossy_name) = decode(name);
        let (value, lossy_value) = decode(value);
        self.note_decoding(lossy_name || lossy_value, at);
        // A cheap signature filters out almost every name before the linear duplicate scan.
        let bit = 1u64 << ((name.len() as u64 * 31 + u64::from(name.as_bytes().first().copied().unwrap_or(0))) % 64);
        let maybe_seen = self.tag_bits & bit != 0;
        self.tag_bits |= bit;
        if maybe_seen && self.game.tags.iter().any(|(n, _)| *n == name) {
            self.finding(
                code::DUPLICATE_TAG,
                Severity::Warning,
                at,
                None,
                Some(name.clone()),
                format!("tag {name} appears more than once; the first is used"),
            );
        }
        self.game.tags.push((name, value));
    }

    fn comment(&mut self, text: &[u8], at: Pos) -> Comment {
        let (text, lossy) = decode_collapsed(text);
        self.note_decoding(lossy, at);
        let commands = if text.contains("[%") {
            let (commands, bad) = parse_commands(&text);
            if let Some(bad) = bad {
                self.finding(
                    code::BAD_COMMAND,
                    Severity::Warning,
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
            // Real games hold about one move per 6 to 10 bytes of movetext; reserving that
            // once avoids regrowing and copying the vector several times per game.
            moves: Vec::with_capacity((self.b.len() - self.i) / 8),
            before: Vec::new(),
            start_ply: 1,
            open: self.pos_at(self.i),
            orphan: false,
        };
        let mut result: Option<(Marker, Pos)> = None;
        loop {
            self.skip_space();
            let Some(&c) = self.b.get(self.i) else { break };
            let start = self.i;
            let at = self.pos_at(start);
            if result.is_some() && c != b'{' && c != b';' {
                let eol = self.end_of_line(start);
                self.finding(
                    code::TEXT_AFTER_RESULT,
                    Severity::Warning,
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
                    let (end, next) = match memchr(b'}', &self.b[start + 1..]) {
                        Some(j) => (start + 1 + j, start + 2 + j),
                        None => {
                            self.finding(
                                code::UNTERMINATED_COMMENT,
                                Severity::Error,
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
                    self.i += 1;
                    let orphan = cur.moves.is_empty();
                    if orphan {
                        self.finding(
                            code::MISPLACED_VARIATION,
                            Severity::Error,
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
                            let child = std::mem::replace(&mut cur, parent);
                            self.close_variation(&mut cur, child, at);
                        }
                        None => self.finding(
                            code::UNOPENED_VARIATION,
                            Severity::Error,
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
                        Some(n) if n <= 255 => self.attach_nag(&mut cur, n as u8, at, &self.b[start..end]),
                        _ => {
                            let token = shown(&self.b[start..end]);
                            self.finding(
                                code::BAD_NAG,
                                Severity::Warning,
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
                            Severity::Warning,
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
                    if matches!(c, b'0' | b'1' | b'*')
                        && let Some((marker, len)) = marker_at(&self.b[start..])
                    {
                        self.i += len;
                        if stack.is_empty() {
                            result = Some((marker, at));
                        } else {
                            self.finding(
                                code::RESULT_IN_VARIATION,
                                Severity::Warning,
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
                    self.move_token(&mut cur, start, at);
                }
            }
        }
        while let Some(parent) = stack.pop() {
            let child = std::mem::replace(&mut cur, parent);
            let open = child.open;
            self.finding(
                code::UNCLOSED_VARIATION,
                Severity::Error,
                open,
                None,
                Some("(".into()),
                "a variation is never closed".into(),
            );
            let end = self.pos_at(self.b.len());
            self.close_variation(&mut cur, child, end);
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
                    Severity::Warning,
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
                Severity::Warning,
                at,
                None,
                None,
                "the game has no moves".into(),
            );
        }
    }

    fn move_token(&mut self, cur: &mut Frame, start: usize, at: Pos) {
        let len = self.b[start..]
            .iter()
            .position(|&b| is_delimiter(b))
            .unwrap_or(self.b.len() - start)
            .max(1);
        let end = start + len;
        let token = &self.b[start..end];
        self.i = end;
        let ply = cur.start_ply + cur.moves.len() as u32;
        if !is_move_like(token) {
            self.finding(
                code::UNREADABLE_TOKEN,
                Severity::Error,
                at,
                Some(ply),
                Some(shown(token)),
                "this is not a move, move number, NAG, comment or result".into(),
            );
            return;
        }
        let san = if len > SanToken::CAPACITY {
            None
        } else if start + 16 <= self.b.len() {
            let mut window = [0u8; 16];
            window.copy_from_slice(&self.b[start..start + 16]);
            Some(SanToken::from_window(window, len))
        } else {
            SanToken::from_ascii(token)
        };
        let Some(san) = san else {
            self.finding(
                code::TOKEN_TOO_LONG,
                Severity::Error,
                at,
                Some(ply),
                Some(shown(token)),
                format!("a move token may be at most {} bytes", SanToken::CAPACITY),
            );
            return;
        };
        if san.is_null() {
            self.finding(
                code::NULL_MOVE,
                Severity::Warning,
                at,
                Some(ply),
                Some(san.as_str().into()),
                "null move: the side to move passes".into(),
            );
        }
        // `resize_with` reserves before the node is built, so it is written straight into the
        // vector; with `push` it was built on the stack first and copied back with loads that
        // straddled smaller stores (store-forwarding stalls: a fifth of the parse time).
        let len = cur.moves.len();
        cur.moves.resize_with(len + 1, || MoveNode::new(san, at));
        if !cur.before.is_empty()
            && let Some(node) = cur.moves.last_mut()
        {
            node.annotations_mut().comments_before = std::mem::take(&mut cur.before);
        }
    }

    fn attach_comment(&mut self, cur: &mut Frame, top: bool, after_result: bool, comment: Comment) {
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

    fn attach_nag(&mut self, cur: &mut Frame, nag: u8, at: Pos, token: &[u8]) {
        match cur.moves.last_mut() {
            Some(last) => last.annotations_mut().nags.push(nag),
            None => self.finding(
                code::MISPLACED_NAG,
                Severity::Warning,
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
                Severity::Warning,
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
                last.annotations_mut().comments_after.append(&mut child.before);
            }
        }
        let _ = at;
        if let Some(owner) = parent.moves.last_mut() {
            owner.annotations_mut().variations.push(std::mem::take(&mut child.moves));
        }
    }

    fn check_tags(&mut self) {
        let at = Pos {
            line: self.game.line,
            column: 1,
            byte: self.base,
        };
        let mut present = [false; 7];
        let mut result_tag = None;
        let mut variant = None;
        for (name, value) in &self.game.tags {
            if let Some(k) = SEVEN_TAG_ROSTER.iter().position(|s| s == name) {
                if k == 6 && !present[6] {
                    result_tag = Some(value.clone());
                }
                present[k] = true;
            } else if name == "Variant" && variant.is_none() {
                variant = Some(value.clone());
            }
        }
        for (k, name) in SEVEN_TAG_ROSTER.iter().enumerate() {
            if !present[k] {
                self.finding(
                    code::MISSING_TAG,
                    Severity::Info,
                    at,
                    None,
                    Some((*name).into()),
                    format!("the Seven Tag Roster tag {name} is missing"),
                );
            }
        }
        if let Some(value) = result_tag {
            match Marker::from_text(&value) {
                None => self.finding(
                    code::BAD_RESULT_TAG,
                    Severity::Warning,
                    at,
                    None,
                    Some(value.clone()),
                    "the Result tag is not 1-0, 0-1, 1/2-1/2 or *".into(),
                ),
                Some(tagged) => {
                    if let Some(marker) = self.game.result
                        && marker != tagged
                    {
                        self.finding(
                            code::RESULT_MISMATCH,
                            Severity::Warning,
                            at,
                            None,
                            Some(marker.as_str().into()),
                            format!(
                                "the Result tag says {tagged} but the movetext ends with {marker}"
                            ),
                        );
                    }
                }
            }
        }
        if let Some(variant) = variant
            && !is_supported_variant(&variant)
        {
            self.finding(
                code::UNSUPPORTED_VARIANT,
                Severity::Error,
                at,
                None,
                Some(variant.clone()),
                format!("variant {variant:?} is not standard chess or Chess960; the game is not judged"),
            );
        }
    }
}

/// Standard chess and Chess960 under the names real files use for them.
pub fn is_supported_variant(name: &str) -> bool {
    let key: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    matches!(
        key.as_str(),
        "" | "standard"
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
