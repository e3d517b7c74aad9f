//! Splitting a byte stream into raw games with a line-oriented byte scan (memchr), reading
//! large chunks from any `Read` and keeping only the game in progress in memory. No parsing
//! happens here beyond what finding the game boundaries needs.

use std::fmt;
use std::io::{self, Read};

use memchr::{memchr, memchr2};

use super::finding::{Finding, Severity, code};
use super::token::{
    closes_tag, comment_end, ends_with_marker, starts_movetext, tag_name_len, tag_value_open,
};
use crate::findings::severity;

/// A search for either of two bytes, built once: `memchr2` sets its search up again on
/// every call, which costs as much as searching a short line.
#[derive(Clone, Copy)]
struct Pair {
    bytes: (u8, u8),
    #[cfg(target_arch = "x86_64")]
    avx2: Option<memchr::arch::x86_64::avx2::memchr::Two>,
}

impl Pair {
    fn new(a: u8, b: u8) -> Pair {
        Pair {
            bytes: (a, b),
            #[cfg(target_arch = "x86_64")]
            avx2: memchr::arch::x86_64::avx2::memchr::Two::new(a, b),
        }
    }

    fn find(&self, haystack: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(searcher) = &self.avx2 {
            return searcher.find(haystack);
        }
        memchr2(self.bytes.0, self.bytes.1, haystack)
    }
}

/// Bytes requested from the reader at a time.
const CHUNK: usize = 1 << 20;
/// A game larger than this is cut off and rejected, so memory stays bounded.
pub const DEFAULT_MAX_GAME_BYTES: usize = 16 << 20;

/// One game's bytes as found in the file, with where it starts. `findings` holds what the
/// splitter noticed on its way to and through this game (BOM, line ends, skipped garbage).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawGame {
    pub bytes: Vec<u8>,
    /// 1-based number of the game in its file.
    pub game_number: u64,
    pub byte_offset: u64,
    /// 1-based line of the game's first byte.
    pub line: u64,
    pub findings: Vec<Finding>,
}

/// Reading the underlying stream failed.
#[derive(Debug)]
pub struct SplitError {
    /// Offset in the (decompressed) stream where reading failed.
    pub byte: u64,
    pub source: io::Error,
}

impl fmt::Display for SplitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "read error at byte {}: {}", self.byte, self.source)
    }
}

impl std::error::Error for SplitError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Nothing seen yet in this file.
    Start,
    /// Inside a tag section.
    Tags,
    /// Inside movetext (after tags, or a game without tags).
    Movetext,
    /// Skipping text that belongs to no game.
    Garbage,
    /// Skipping the rest of a game that was too large.
    Skip,
}

enum Action {
    /// The line belongs to whatever is in progress.
    Same,
    /// The line starts a new game.
    Game,
    /// The line repeats a tag name of its section, which holds an [Event] tag after other
    /// tags and after the repeated name: two games' tags ran together, the first one
    /// without [Event]. The new game starts back at that [Event] line (PGN puts Event
    /// first), so neither game takes the other's tags.
    GameFromEvent,
    /// The line is text outside any game.
    Garbage,
    /// The line is [`GAME_SEPARATOR`]: the game in progress ends before it, whatever it
    /// was in the middle of (a comment, a variation, a game cut off as too large).
    End,
}

/// The line arbiter's quarantine writes after every game: a PGN escape line (`%` in the
/// first column, which other readers skip, PGN standard 6), which ends the game in progress
/// here. Without it a rejected game with no termination marker, or one cut inside a comment,
/// took the next rejected game in when the quarantine was read again.
pub const GAME_SEPARATOR: &str = "% arbiter: end of game";

/// Where the lines of the stream stand: the state that decides game boundaries.
struct LineScanner {
    state: State,
    /// Keys of the tag names seen in the current tag section.
    tag_names: Vec<u64>,
    /// One bit per key in `tag_names` ([`key_bit`]): most names are new to their section,
    /// and a clear bit says so without searching the list.
    tag_bits: u64,
    /// Where in `tag_names` an [Event] tag came after other tags of the section.
    late_event: Option<usize>,
    in_comment: bool,
    /// The last token outside comments in the movetext was a termination marker.
    terminated: bool,
    /// The last line was a tag line whose quoted value is still open at its end
    /// ([`tag_value_open`]): a value broken over a line end. A next line that closes it
    /// ([`closes_tag`]) belongs to the tag section; without this, the section ended there
    /// and the tags after it became a game of their own, with no Event and no moves.
    open_value: bool,
    /// Finds `{` or `;`.
    comment: Pair,
}

impl LineScanner {
    fn classify(&mut self, line: &[u8]) -> Action {
        if line.first() == Some(&b'%') && is_separator(line) {
            self.state = State::Start;
            self.in_comment = false;
            self.terminated = false;
            return Action::End;
        }
        if self.state == State::Movetext && self.in_comment {
            if let Some(i) = comment_end(line) {
                self.in_comment = false;
                self.scan_movetext(&line[i + 1..]);
            }
            return Action::Same;
        }
        if line.first() == Some(&b'%') {
            return Action::Same;
        }
        let Some(first) = line.iter().position(|&b| b != b' ' && b != b'\t') else {
            self.open_value = false;
            return Action::Same;
        };
        let text = &line[first..];
        if text[0] == b'[' {
            self.open_value = tag_value_open(text);
            // Within a tag section, only a tag name seen before starts another game: a blank
            // line inside the section (ChessBase writes one) does not, and a missing blank
            // line before the next `[Event` does not merge two games.
            let name = tag_name_key(text);
            if self.state == State::Tags {
                let seen = if self.tag_bits & key_bit(name) != 0 {
                    self.tag_names.iter().position(|&n| n == name)
                } else {
                    None
                };
                match seen {
                    None => {
                        if name == EVENT_KEY && self.late_event.is_none() {
                            self.late_event = Some(self.tag_names.len());
                        }
                        self.push_tag_name(name);
                        return Action::Same;
                    }
                    Some(seen) => {
                        if let Some(event) = self.late_event
                            && seen < event
                        {
                            // The section restarts either at the [Event] line or at this
                            // one: the splitter decides, then calls `restart_tags`.
                            self.push_tag_name(name);
                            return Action::GameFromEvent;
                        }
                    }
                }
            }
            self.state = State::Tags;
            self.tag_names.clear();
            self.tag_bits = 0;
            self.push_tag_name(name);
            self.late_event = None;
            self.in_comment = false;
            self.terminated = false;
            return Action::Game;
        }
        match self.state {
            State::Tags if std::mem::take(&mut self.open_value) && closes_tag(text) => {
                // The rest of a tag value broken over the line end (the parser joins it).
                Action::Same
            }
            State::Tags => {
                self.state = State::Movetext;
                self.scan_movetext(text);
                Action::Same
            }
            State::Movetext if !self.terminated => {
                self.scan_movetext(text);
                Action::Same
            }
            State::Movetext => {
                if starts_movetext(text, false) {
                    self.start_tagless(text);
                    Action::Game
                } else if text[0] == b'{' || text[0] == b';' {
                    // A comment after the result stays with its game.
                    self.scan_movetext(text);
                    Action::Same
                } else {
                    self.state = State::Garbage;
                    Action::Garbage
                }
            }
            State::Start | State::Garbage => {
                if starts_movetext(text, true) {
                    self.start_tagless(text);
                    Action::Game
                } else {
                    self.state = State::Garbage;
                    Action::Garbage
                }
            }
            State::Skip => Action::Same,
        }
    }

    /// After [`Action::GameFromEvent`]: the new section holds the tags from its late
    /// [Event] on when `from_event`, else only the line's repeated name (pushed last).
    fn restart_tags(&mut self, from_event: bool) {
        let name = self.tag_names.pop().unwrap_or(0);
        match self.late_event.take() {
            Some(event) if from_event => {
                self.tag_names.drain(..event.min(self.tag_names.len()));
            }
            _ => self.tag_names.clear(),
        }
        self.tag_bits = self.tag_names.iter().fold(0, |bits, &n| bits | key_bit(n));
        self.push_tag_name(name);
    }

    fn push_tag_name(&mut self, name: u64) {
        self.tag_names.push(name);
        self.tag_bits |= key_bit(name);
    }

    fn start_tagless(&mut self, text: &[u8]) {
        self.state = State::Movetext;
        self.in_comment = false;
        self.terminated = false;
        self.scan_movetext(text);
    }

    /// Follow `{}` and `;` comments through a movetext line, and note whether its last
    /// token outside comments is a termination marker.
    fn scan_movetext(&mut self, mut rest: &[u8]) {
        loop {
            match self.comment.find(rest) {
                None => {
                    self.note_text(rest);
                    return;
                }
                Some(i) => {
                    self.note_text(&rest[..i]);
                    if rest[i] == b';' {
                        return;
                    }
                    match comment_end(&rest[i + 1..]) {
                        Some(j) => rest = &rest[i + 1 + j + 1..],
                        None => {
                            self.in_comment = true;
                            return;
                        }
                    }
                }
            }
        }
    }

    fn note_text(&mut self, text: &[u8]) {
        // Only the end of the text matters unless it can end a marker, which every
        // termination marker does with one of these bytes.
        let mut end = text.len();
        while end > 0 && super::decode::is_space(text[end - 1]) {
            end -= 1;
        }
        if end > 0 {
            self.terminated = matches!(text[end - 1], b'0' | b'1' | b'2' | b'*')
                && ends_with_marker(super::decode::trim(&text[..end]));
        }
    }
}

/// Is `line` (without its line end) the [`GAME_SEPARATOR`], trailing blanks allowed?
fn is_separator(line: &[u8]) -> bool {
    line.strip_prefix(GAME_SEPARATOR.as_bytes())
        .is_some_and(|rest| rest.iter().all(|&b| b == b' ' || b == b'\t'))
}

/// A tag name key's bit in [`LineScanner::tag_bits`].
#[inline]
fn key_bit(key: u64) -> u64 {
    1 << (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// The key of `[Event ...]`.
const EVENT_KEY: u64 = u64::from_le_bytes(*b"Event\0\0\0") ^ (5 << 56);

/// Bit 7 of each byte of `v` that equals `b` (exact for the lowest such byte; bytes above
/// it may be marked falsely).
fn bytes_equal(v: u64, b: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = v ^ (ONES * b as u64);
    x.wrapping_sub(ONES) & !x & (ONES << 7)
}

/// Bit 7 of each byte of `v` that ends a tag name as the parser reads one (whitespace —
/// space, tab, line ends, vertical tab, form feed —, quote, `[`, `]`: `token::tag_name_len`); exact for
/// the lowest such byte. Ending names where the parser does matters: a name the splitter
/// read as `Name\x0b` but the parser as `Name` let one game hold two `Name` tags, whose
/// clean PGN then split into two games (found by the `pgn` fuzz target).
fn name_ends(v: u64) -> u64 {
    bytes_equal(v, b' ')
        | bytes_equal(v, b'\t')
        | bytes_equal(v, b'\n')
        | bytes_equal(v, 0x0B)
        | bytes_equal(v, 0x0C)
        | bytes_equal(v, b'\r')
        | bytes_equal(v, b'"')
        | bytes_equal(v, b'[')
        | bytes_equal(v, b']')
}

/// A key for the tag name of a tag line (`[Name "value"]`): its first 8 bytes and length.
#[inline]
fn tag_name_key(line: &[u8]) -> u64 {
    let rest = &line[1..];
    // The usual name starts right after `[` and ends within eight bytes: read it as one word.
    if let Some(word) = rest.first_chunk::<8>()
        && word[0] != b' '
        && word[0] != b'\t'
    {
        let v = u64::from_le_bytes(*word);
        let ends = name_ends(v);
        if ends != 0 {
            let len = (ends.trailing_zeros() / 8) as u64;
            let name = v & ((1u64 << (len * 8)) - 1);
            return name ^ (len << 56);
        }
        // Names of 8 to 15 bytes (WhiteElo, EventDate): the key is the first word.
        if let Some(next) = rest[8..].first_chunk::<8>() {
            let ends = name_ends(u64::from_le_bytes(*next));
            if ends != 0 {
                let len = 8 + (ends.trailing_zeros() / 8) as u64;
                return v ^ (len << 56);
            }
        }
    }
    tag_name_key_bytewise(line)
}

/// `tag_name_key` one byte at a time: any spacing after `[`, names of any length.
fn tag_name_key_bytewise(line: &[u8]) -> u64 {
    let rest = &line[1..];
    let start = rest
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(rest.len());
    let rest = &rest[start..];
    let len = tag_name_len(rest).unwrap_or(rest.len());
    let mut key = [0u8; 8];
    for (k, &b) in key.iter_mut().zip(&rest[..len]) {
        *k = b;
    }
    u64::from_le_bytes(key) ^ ((len as u64) << 56)
}

struct Current {
    start: usize,
    offset: u64,
    line: u64,
    number: u64,
    findings: Vec<Finding>,
}

struct GarbageRun {
    line: u64,
    byte: u64,
    end: u64,
    first: String,
}

/// Splits any byte stream into [`RawGame`]s. Iterate it; after the end, findings that
/// belong to no game (garbage after the last game) are in [`Splitter::take_trailing_findings`].
pub struct Splitter<R> {
    reader: R,
    /// Read buffer; only `buf[..filled]` holds data (the rest is kept allocated and is
    /// never zeroed again).
    buf: Vec<u8>,
    filled: usize,
    /// `buf[..filled]` holds no CR: lines end at LF alone.
    no_cr: bool,
    /// Finds LF or CR.
    line_ends: Pair,
    buf_offset: u64,
    pos: usize,
    line: u64,
    eof: bool,
    started: bool,
    failed: bool,
    finished: bool,
    scan: LineScanner,
    current: Option<Current>,
    next_number: u64,
    orphans: Vec<Finding>,
    garbage: Option<GarbageRun>,
    saw_crlf: bool,
    saw_cr: bool,
    max_game: usize,
    /// Offset in the stream and line of the current section's late [Event] line.
    late_event_at: Option<(u64, u64)>,
    /// The stream's first bytes (up to [`HEAD_BYTES`]), to say what a file with no game is.
    head: Vec<u8>,
    /// A game cut off as too large, and the stream offset of the cut, while the rest of it
    /// is skipped.
    cut: Option<(RawGame, u64)>,
}

/// How many of the stream's first bytes [`Splitter::head`] keeps.
pub const HEAD_BYTES: usize = 16;

impl<R: Read> Splitter<R> {
    pub fn new(reader: R) -> Splitter<R> {
        Splitter {
            reader,
            buf: Vec::new(),
            filled: 0,
            no_cr: false,
            buf_offset: 0,
            pos: 0,
            line: 1,
            eof: false,
            started: false,
            failed: false,
            finished: false,
            scan: LineScanner {
                state: State::Start,
                tag_names: Vec::new(),
                tag_bits: 0,
                late_event: None,
                in_comment: false,
                terminated: false,
                open_value: false,
                comment: Pair::new(b'{', b';'),
            },
            line_ends: Pair::new(b'\n', b'\r'),
            current: None,
            next_number: 1,
            orphans: Vec::new(),
            garbage: None,
            saw_crlf: false,
            saw_cr: false,
            max_game: DEFAULT_MAX_GAME_BYTES,
            late_event_at: None,
            head: Vec::new(),
            cut: None,
        }
    }

    /// Games larger than this many bytes are cut off and rejected (`pgn.game-too-large`).
    pub fn with_max_game_bytes(mut self, max: usize) -> Splitter<R> {
        self.max_game = max.max(1);
        self
    }

    /// Findings about text after the last game; complete once iteration has ended.
    pub fn take_trailing_findings(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.orphans)
    }

    /// The stream's first bytes (at most [`HEAD_BYTES`]), once reading has begun.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    fn refill(&mut self) -> Result<(), SplitError> {
        let keep = self
            .current
            .as_ref()
            .map_or(self.pos, |c| c.start.min(self.pos));
        if keep > 0 {
            self.buf.copy_within(keep..self.filled, 0);
            self.filled -= keep;
            self.buf_offset += keep as u64;
            self.pos -= keep;
            if let Some(c) = &mut self.current {
                c.start -= keep;
            }
        }
        let end = self.filled + CHUNK;
        if self.buf.len() < end {
            self.buf.resize(end, 0);
        }
        let mut filled = self.filled;
        loop {
            match self.reader.read(&mut self.buf[filled..end]) {
                Ok(n) => {
                    filled += n;
                    self.eof = n == 0;
                    // The first read goes on until a byte-order mark can be seen whole.
                    if self.started || self.eof || filled >= 3 {
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    self.filled = filled;
                    self.failed = true;
                    return Err(SplitError {
                        byte: self.buf_offset + filled as u64,
                        source,
                    });
                }
            }
        }
        self.filled = filled;
        self.no_cr = memchr(b'\r', &self.buf[..filled]).is_none();
        // The head may come in pieces (a pipe, the source's magic bytes put back).
        let have = self.head.len() as u64;
        if have < HEAD_BYTES as u64 && self.buf_offset <= have {
            let from = (have - self.buf_offset) as usize;
            let to = ((HEAD_BYTES as u64 - self.buf_offset) as usize).min(filled);
            if from < to {
                self.head.extend_from_slice(&self.buf[from..to]);
            }
        }
        if !self.started {
            self.started = true;
            if self.buf[..filled].starts_with(b"\xEF\xBB\xBF") {
                self.pos = 3;
                self.orphans.push(self.finding_here(
                    code::BOM,
                    severity(code::BOM),
                    0,
                    "the file starts with a UTF-8 byte-order mark; it is ignored".into(),
                ));
            }
        }
        Ok(())
    }

    fn finding_here(
        &self,
        code: &'static str,
        severity: Severity,
        at: usize,
        message: String,
    ) -> Finding {
        Finding {
            code,
            severity,
            game_number: 0,
            line: self.line,
            column: 1,
            byte: self.buf_offset + at as u64,
            ply: None,
            token: None,
            message,
        }
    }

    /// A finding at byte `at` of the line being read (it starts at `self.pos`): line, column
    /// and byte all name the same byte (the CR of the first line that ends with one).
    fn finding_on_line(&self, code: &'static str, at: usize, message: String) -> Finding {
        Finding {
            column: (at - self.pos + 1) as u32,
            ..self.finding_here(code, severity(code), at, message)
        }
    }

    fn push_finding(&mut self, finding: Finding) {
        match &mut self.current {
            Some(c) => {
                let mut finding = finding;
                finding.game_number = c.number;
                c.findings.push(finding);
            }
            None => self.orphans.push(finding),
        }
    }

    /// Close the game in progress (its bytes end at `end`), if any.
    fn close_game(&mut self, end: usize) -> Option<RawGame> {
        let c = self.current.take()?;
        Some(RawGame {
            bytes: self.buf[c.start..end].to_vec(),
            game_number: c.number,
            byte_offset: c.offset,
            line: c.line,
            findings: c.findings,
        })
    }

    fn close_garbage(&mut self) {
        if let Some(run) = self.garbage.take() {
            self.orphans.push(Finding {
                code: code::GARBAGE_SKIPPED,
                severity: severity(code::GARBAGE_SKIPPED),
                game_number: 0,
                line: run.line,
                column: 1,
                byte: run.byte,
                ply: None,
                token: Some(run.first),
                message: format!(
                    "skipped {} bytes of text that is not part of a game",
                    run.end - run.byte
                ),
            });
        }
    }

    fn open_game(&mut self, start: usize, line: u64) {
        self.close_garbage();
        let number = self.next_number;
        self.next_number += 1;
        let mut findings = std::mem::take(&mut self.orphans);
        for f in &mut findings {
            f.game_number = number;
        }
        self.current = Some(Current {
            start,
            offset: self.buf_offset + start as u64,
            line,
            number,
            findings,
        });
    }

    fn step(&mut self) -> Result<Option<RawGame>, SplitError> {
        loop {
            if self.pos == self.filled && self.eof {
                return Ok(self.finish());
            }
            let rest = &self.buf[self.pos..self.filled];
            let found = if self.no_cr {
                memchr(b'\n', rest)
            } else {
                self.line_ends.find(rest)
            };
            let (line_end, term) = match found {
                Some(i) => {
                    let e = self.pos + i;
                    if self.buf[e] == b'\n' {
                        (e, 1)
                    } else if e + 1 < self.filled {
                        (e, if self.buf[e + 1] == b'\n' { 2 } else { 1 })
                    } else if !self.eof {
                        self.refill()?;
                        continue;
                    } else {
                        (e, 1)
                    }
                }
                None if self.filled - self.pos > self.max_game => (self.filled, 0),
                None if !self.eof => {
                    self.refill()?;
                    continue;
                }
                None => (self.filled, 0),
            };
            if term > 0 && self.buf[line_end] == b'\r' {
                if term == 2 && !self.saw_crlf {
                    self.saw_crlf = true;
                    let f =
                        self.finding_on_line(code::CRLF, line_end, "lines end with CR LF".into());
                    self.push_finding(f);
                } else if term == 1 && !self.saw_cr {
                    self.saw_cr = true;
                    let f =
                        self.finding_on_line(code::CR, line_end, "lines end with a lone CR".into());
                    self.push_finding(f);
                }
            }
            let line_start = self.pos;
            let line_no = self.line;
            let had_late_event = self.scan.late_event.is_some();
            let action = self.scan.classify(&self.buf[line_start..line_end]);
            if !had_late_event && self.scan.late_event.is_some() {
                self.late_event_at = Some((self.buf_offset + line_start as u64, line_no));
            }
            self.pos = line_end + term;
            if term > 0 {
                self.line += 1;
            }
            let mut out = None;
            match action {
                Action::Same => {
                    if let Some(run) = &mut self.garbage {
                        run.end = self.buf_offset + self.pos as u64;
                    }
                }
                Action::Game => {
                    self.late_event_at = None;
                    out = self.close_game(line_start);
                    if out.is_none() {
                        out = self.close_cut(line_start);
                    }
                    self.open_game(line_start, line_no);
                }
                Action::GameFromEvent => {
                    // When the tags that follow hold an [Event] of their own, the late one
                    // was the first game's after all. Otherwise the new game starts at it;
                    // that line is still in the buffer, which keeps the game in progress.
                    let mark = self.late_event_at.take();
                    // Offsets in the stream: reading ahead may move the buffer.
                    let here = (self.buf_offset + line_start as u64, line_no);
                    let own_event = self.following_tags_have_event()?;
                    let (byte, line) = match mark {
                        Some(m) if !own_event => m,
                        _ => here,
                    };
                    self.scan.restart_tags(mark.is_some() && !own_event);
                    let at = byte.saturating_sub(self.buf_offset) as usize;
                    out = self.close_game(at);
                    self.open_game(at, line);
                }
                Action::End => {
                    self.late_event_at = None;
                    out = self.close_game(line_start);
                    if out.is_none() {
                        out = self.close_cut(line_start);
                    }
                    self.close_garbage();
                }
                Action::Garbage => {
                    out = self.close_game(line_start);
                    let end = self.buf_offset + self.pos as u64;
                    match &mut self.garbage {
                        Some(run) => run.end = end,
                        None => {
                            let text = &self.buf[line_start..line_end];
                            let shown = &text[..text.len().min(40)];
                            self.garbage = Some(GarbageRun {
                                line: line_no,
                                byte: self.buf_offset + line_start as u64,
                                end,
                                first: String::from_utf8_lossy(shown).into_owned(),
                            });
                        }
                    }
                }
            }
            if out.is_none()
                && let Some(c) = &self.current
                && self.pos - c.start > self.max_game
            {
                // Keep the first `max_game` bytes and count what is skipped after them; the
                // game is handed on once the count is known (at the next game or the end).
                let cut_at = self.buf_offset + self.pos as u64;
                self.cut = self.close_game(self.pos).map(|g| (g, cut_at));
                self.scan.state = State::Skip;
            }
            if out.is_some() {
                return Ok(out);
            }
        }
    }

    /// Do the tag lines right after the current line include an [Event] tag? Reads ahead
    /// (refilling the buffer as needed) up to the first line that is not a tag.
    fn following_tags_have_event(&mut self) -> Result<bool, SplitError> {
        let mut rel = 0;
        let mut after_cr = false;
        loop {
            let from = self.pos + rel;
            let rest = &self.buf[from..self.filled];
            if after_cr && rest.first() == Some(&b'\n') {
                rel += 1;
                after_cr = false;
                continue;
            }
            let end = match memchr2(b'\n', b'\r', rest) {
                Some(e) => e,
                None if !self.eof => {
                    if rest.len() > self.max_game {
                        return Ok(false);
                    }
                    self.refill()?;
                    continue;
                }
                None => rest.len(),
            };
            let line = &rest[..end];
            let Some(first) = line.iter().position(|&b| b != b' ' && b != b'\t') else {
                return Ok(false);
            };
            if line[first] != b'[' {
                return Ok(false);
            }
            if tag_name_key(&line[first..]) == EVENT_KEY {
                return Ok(true);
            }
            if end == rest.len() {
                return Ok(false);
            }
            after_cr = rest[end] == b'\r';
            rel += end + 1;
        }
    }

    fn finish(&mut self) -> Option<RawGame> {
        if self.finished {
            return None;
        }
        self.finished = true;
        let end = self.filled;
        let game = self.close_game(end).or_else(|| self.close_cut(end));
        self.close_garbage();
        game
    }

    /// Hands on the game cut off as too large, now that the bytes skipped after the cut
    /// (up to `end` in the buffer) are known: the finding says how many the reader, and the
    /// quarantine, do not have.
    fn close_cut(&mut self, end: usize) -> Option<RawGame> {
        let (mut game, cut_at) = self.cut.take()?;
        let lost = (self.buf_offset + end as u64).saturating_sub(cut_at);
        let kept = game.bytes.len();
        game.findings.push(Finding {
            code: code::GAME_TOO_LARGE,
            severity: severity(code::GAME_TOO_LARGE),
            game_number: game.game_number,
            line: game.line,
            column: 1,
            byte: game.byte_offset,
            ply: None,
            token: Some(format!("{lost} bytes not kept")),
            message: format!(
                "the game is larger than the limit of {} bytes: its first {kept} bytes are read \
                 and quarantined, the {lost} bytes after them were skipped and are NOT in the \
                 quarantine",
                self.max_game
            ),
        });
        Some(game)
    }
}

impl<R: Read> Iterator for Splitter<R> {
    type Item = Result<RawGame, SplitError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.finished {
            return None;
        }
        self.step().transpose()
    }
}

/// Split a whole in-memory text (convenience for tests and small inputs).
pub fn split_bytes(bytes: &[u8]) -> (Vec<RawGame>, Vec<Finding>) {
    let mut splitter = Splitter::new(bytes);
    let games = splitter.by_ref().filter_map(Result::ok).collect();
    (games, splitter.take_trailing_findings())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn texts(input: &[u8]) -> Vec<String> {
        split_bytes(input)
            .0
            .into_iter()
            .map(|g| String::from_utf8(g.bytes).unwrap())
            .collect()
    }

    /// A reader that hands out a few bytes at a time, to cross every chunk boundary.
    pub(crate) struct Trickle<'a>(pub &'a [u8], pub usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(buf.len()).min(self.1);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn tag_name_keys_read_by_words_match_byte_by_byte() {
        let names = [
            "",
            "E",
            "Event",
            "Eventt",
            "WhiteEl",
            "WhiteElo",
            "EventDate",
            "WhiteFideId",
            "ABCDEFGHIJKLMNO",
            "ABCDEFGHIJKLMNOP",
            "ABCDEFGHIJKLMNOPQRS",
            "\u{e9}l\u{e8}ve",
        ];
        for name in names {
            for after in [
                " \"x\"]",
                "\t\"x\"]",
                "\u{b}\"x\"]",
                "\u{c}\"x\"]",
                "\"x\"]",
                "[",
                "]",
                "",
                " ",
            ] {
                for before in ["[", "[ ", "[\t "] {
                    let line = format!("{before}{name}{after}");
                    let line = line.as_bytes();
                    assert_eq!(tag_name_key(line), tag_name_key_bytewise(line), "{line:?}");
                }
            }
        }
        let mut bytes: Vec<u8> = (0..=255).collect();
        bytes.extend((0..=255).rev());
        for start in 0..bytes.len() {
            for end in start..bytes.len().min(start + 20) {
                let mut line = vec![b'['];
                line.extend_from_slice(&bytes[start..end]);
                assert_eq!(tag_name_key(&line), tag_name_key_bytewise(&line));
            }
        }
    }

    #[test]
    fn a_tag_value_broken_over_a_line_end_stays_in_its_game() {
        // The Black tag and the moves after the broken White tag were a game of their own.
        let input = b"[Event \"E\"]\n[White \"Foo\nBar\"]\n[Black \"B\"]\n\n1. e4 e5 1-0\n\n\
                      [Event \"F\"]\n[White \"W\"]\n\n1. d4 *\n";
        let games = texts(input);
        assert_eq!(games.len(), 2, "{games:?}");
        assert!(games[0].contains("[Black \"B\"]") && games[0].contains("1. e4"));
        assert!(games[1].starts_with("[Event \"F\"]"));
        // CR LF line ends, and a broken first tag.
        let input = b"[Event \"Open\r\nCup\"]\r\n[White \"W\"]\r\n\r\n1. e4 *\r\n";
        assert_eq!(split_bytes(input).0.len(), 1);
        // An unclosed value followed by a tag line, or by movetext, ends as before.
        let input = b"[Event \"E]\n[White \"W\"]\n\n1. e4 *\n";
        assert_eq!(split_bytes(input).0.len(), 1);
        let input = b"[White \"Foo\n1. e4 *\n\n[Event \"F\"]\n1. d4 *\n";
        assert_eq!(split_bytes(input).0.len(), 2);
    }

    #[test]
    fn a_marker_glued_to_the_last_move_ends_the_game() {
        // Without the marker seen, the tagless game after it was taken into the first.
        let input = b"1. e4 e5 2. Nf3 Nc6*\n1. d4 d5 1/2-1/2\n";
        assert_eq!(split_bytes(input).0.len(), 2);
    }

    #[test]
    fn two_games_with_locations() {
        let input = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n";
        let (games, trailing) = split_bytes(input);
        assert!(trailing.is_empty());
        assert_eq!(games.len(), 2);
        assert_eq!(
            (games[0].game_number, games[0].byte_offset, games[0].line),
            (1, 0, 1)
        );
        assert_eq!(
            (games[1].game_number, games[1].byte_offset, games[1].line),
            (2, 22, 5)
        );
        assert_eq!(games[1].bytes, b"[Event \"b\"]\n\n1. d4 *\n");
    }

    #[test]
    fn missing_blank_line_before_next_event_does_not_merge() {
        let input = b"[Event \"a\"]\n1. e4 *\n[Event \"b\"]\n1. d4 *\n";
        assert_eq!(
            texts(input),
            vec!["[Event \"a\"]\n1. e4 *\n", "[Event \"b\"]\n1. d4 *\n"]
        );
    }

    #[test]
    fn site_first_tag_sections_followed_directly_by_the_next_game() {
        // Tags not starting with [Event], no blank line before the next game: the games keep
        // their own tags whichever tag the next one starts with.
        let input = b"[Site \"s1\"]\n[Event \"e1\"]\n1. e4 *\n[Event \"e2\"]\n[Site \"s2\"]\n1. d4 *\n[Site \"s3\"]\n[Event \"e3\"]\n1. c4 *\n";
        assert_eq!(
            texts(input),
            vec![
                "[Site \"s1\"]\n[Event \"e1\"]\n1. e4 *\n",
                "[Event \"e2\"]\n[Site \"s2\"]\n1. d4 *\n",
                "[Site \"s3\"]\n[Event \"e3\"]\n1. c4 *\n"
            ]
        );
        // Tag sections without moves: a repeated name starts the next game.
        let input = b"[Site \"s1\"]\n[Event \"e1\"]\n[Site \"s2\"]\n[Event \"e2\"]\n";
        assert_eq!(
            texts(input),
            vec![
                "[Site \"s1\"]\n[Event \"e1\"]\n",
                "[Site \"s2\"]\n[Event \"e2\"]\n"
            ]
        );
        // A section without [Event], then one starting with [Event]: the [Event] opens the
        // next game (Event is the first tag of a section whenever a section has one first).
        let input = b"[Site \"s1\"]\n[Date \"d1\"]\n[Event \"e2\"]\n[Site \"s2\"]\n\n1. d4 *\n";
        let games = split_bytes(input).0;
        let t: Vec<String> = games
            .iter()
            .map(|g| String::from_utf8(g.bytes.clone()).unwrap())
            .collect();
        assert_eq!(
            t,
            vec![
                "[Site \"s1\"]\n[Date \"d1\"]\n",
                "[Event \"e2\"]\n[Site \"s2\"]\n\n1. d4 *\n"
            ]
        );
        assert_eq!((games[1].line, games[1].byte_offset), (3, 24));
        // But when the next tags bring their own [Event], the late one stays where it is.
        let input = b"[Site \"s1\"]\r\n[Event \"e1\"]\r\n[Site \"s2\"]\r\n[Date \"d2\"]\r\n[Event \"e2\"]\r\n\r\n1. d4 *\r\n";
        let whole = texts(input);
        assert_eq!(
            whole,
            vec![
                "[Site \"s1\"]\r\n[Event \"e1\"]\r\n",
                "[Site \"s2\"]\r\n[Date \"d2\"]\r\n[Event \"e2\"]\r\n\r\n1. d4 *\r\n"
            ]
        );
        // The same whatever the read sizes (the look ahead crosses chunk ends).
        let input2 = b"[Site \"s1\"]\n[Date \"d1\"]\n[Event \"e2\"]\n[Site \"s2\"]\n\n1. d4 *\n";
        for text in [&input[..], &input2[..]] {
            let whole = split_bytes(text).0;
            for step in [1, 2, 3, 7] {
                let games: Vec<RawGame> = Splitter::new(Trickle(text, step))
                    .map(Result::unwrap)
                    .collect();
                assert_eq!(games, whole, "step {step}");
            }
        }
    }

    #[test]
    fn a_tag_name_ends_where_the_parser_ends_it() {
        // The parser reads `Name` before a vertical tab or form feed, so a second `Name` tag
        // starts another game here too: one game never holds two tags of one name.
        for stop in ["\u{b}", "\u{c}"] {
            let input = format!("[Name{stop}\"a\"]\n[Name \"b\"]\n\n1. e4 *\n");
            assert_eq!(
                texts(input.as_bytes()),
                [
                    format!("[Name{stop}\"a\"]\n"),
                    "[Name \"b\"]\n\n1. e4 *\n".to_string()
                ]
            );
        }
    }

    #[test]
    fn tag_sections_without_moves_are_separate_games() {
        let input = b"[Event \"a\"]\n[Result \"*\"]\n[Event \"b\"]\n\n[Event \"c\"]\n";
        assert_eq!(texts(input).len(), 3);
    }

    #[test]
    fn blank_line_inside_a_tag_section_does_not_split() {
        let input = b"[Event \"a\"]\n\n[Date \"2017.12.04\"]\n[Round \"1\"]\n\n1. e4 *\n";
        assert_eq!(texts(input).len(), 1);
    }

    #[test]
    fn blank_lines_or_comment_between_tags_and_moves_do_not_split() {
        let input = b"[Event \"a\"]\n\n\n\n1. e4 *\n";
        assert_eq!(texts(input).len(), 1);
        let input = b"[Event \"a\"]\n\n{ a comment\n[with a bracket] }\n\n1. e4 *\n";
        assert_eq!(texts(input).len(), 1);
    }

    #[test]
    fn bracket_inside_a_comment_does_not_start_a_game() {
        let input = b"[Event \"a\"]\n\n1. e4 { see\n[Event \"x\"] here } e5 *\n";
        assert_eq!(texts(input).len(), 1);
        // A `{` inside a `;` comment opens nothing.
        let input = b"[Event \"a\"]\n\n1. e4 ; {\n*\n[Event \"b\"]\n*\n";
        assert_eq!(texts(input).len(), 2);
    }

    #[test]
    fn garbage_between_games_is_skipped_with_a_finding() {
        let input = b"[Event \"a\"]\n\n1. e4 1-0\n\nThis is not chess.\nNor is this.\n\n[Event \"b\"]\n\n*\n";
        let (games, trailing) = split_bytes(input);
        assert_eq!(games.len(), 2);
        assert!(trailing.is_empty());
        let f = &games[1].findings[0];
        assert_eq!(f.code, code::GARBAGE_SKIPPED);
        assert_eq!((f.game_number, f.line, f.byte), (2, 5, 24));
        assert_eq!(f.token.as_deref(), Some("This is not chess."));
        assert_eq!(
            f.message,
            "skipped 33 bytes of text that is not part of a game"
        );
        assert_eq!(games[0].bytes, b"[Event \"a\"]\n\n1. e4 1-0\n\n");
    }

    #[test]
    fn garbage_after_the_last_game_is_a_trailing_finding() {
        let (games, trailing) = split_bytes(b"[Event \"a\"]\n\n*\nThe end.\n");
        assert_eq!(games.len(), 1);
        assert_eq!(trailing.len(), 1);
        assert_eq!(trailing[0].code, code::GARBAGE_SKIPPED);
        assert_eq!(trailing[0].game_number, 0);
    }

    #[test]
    fn games_without_tags_are_split_after_their_result() {
        let input = b"1. e4 e5 1-0\n1. d4 d5 0-1\n\n1.c4 *\n";
        assert_eq!(
            texts(input),
            vec!["1. e4 e5 1-0\n", "1. d4 d5 0-1\n\n", "1.c4 *\n"]
        );
    }

    #[test]
    fn a_comment_after_the_result_stays_with_its_game() {
        let input = b"[Event \"a\"]\n\n1. e4 1-0\n{ and so on }\n[Event \"b\"]\n*\n";
        assert_eq!(
            texts(input)[0],
            "[Event \"a\"]\n\n1. e4 1-0\n{ and so on }\n"
        );
    }

    #[test]
    fn bom_crlf_and_cr_are_reported_once() {
        let input = b"\xEF\xBB\xBF[Event \"a\"]\r\n\r\n1. e4 *\r\n[Event \"b\"]\r\n*\r\n";
        let (games, _) = split_bytes(input);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].byte_offset, 3);
        let codes: Vec<_> = games[0].findings.iter().map(|f| f.code).collect();
        assert_eq!(codes, vec![code::BOM, code::CRLF]);
        assert!(games[1].findings.is_empty());
        assert_eq!(games[1].line, 4);

        let (games, _) = split_bytes(b"[Event \"a\"]\r\r1. e4 *\r[Event \"b\"]\r*\r");
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].line, 4);
        assert_eq!(games[0].findings[0].code, code::CR);
    }

    #[test]
    fn percent_escape_lines_are_ignored() {
        let input = b"% [Event \"not a game\"]\n[Event \"a\"]\n\n1. e4 *\n";
        assert_eq!(texts(input).len(), 1);
    }

    #[test]
    fn tiny_reads_give_the_same_games() {
        let input = b"\xEF\xBB\xBF[Event \"a\"]\r\n\r\n1. e4 { x\r\n[y] } *\r\n\r\nnoise\r\n[Event \"b\"]\r\n*";
        let whole = split_bytes(input).0;
        for step in [1, 2, 3, 7] {
            let mut splitter = Splitter::new(Trickle(input, step));
            let games: Vec<RawGame> = splitter.by_ref().map(Result::unwrap).collect();
            assert_eq!(games.len(), 2);
            assert_eq!(games[1].bytes, whole[1].bytes, "step {step}");
            assert_eq!(games[1].line, whole[1].line);
        }
    }

    #[test]
    fn oversized_games_are_cut_and_rejected() {
        let mut input = b"[Event \"a\"]\n\n".to_vec();
        for _ in 0..100 {
            input.extend_from_slice(b"1. e4 e5 2. Nf3 Nc6\n");
        }
        input.extend_from_slice(b"*\n[Event \"b\"]\n\n*\n");
        let games: Vec<RawGame> = Splitter::new(&input[..])
            .with_max_game_bytes(200)
            .map(Result::unwrap)
            .collect();
        assert_eq!(games.len(), 2);
        assert!(games[0].bytes.len() <= 220);
        assert_eq!(games[0].findings[0].code, code::GAME_TOO_LARGE);
        assert_eq!(games[1].bytes, b"[Event \"b\"]\n\n*\n");
    }

    /// Issue 19, defect 3: a game over the size limit was cut in the quarantine and nothing
    /// said how much of it was missing.
    #[test]
    fn a_cut_game_says_how_many_bytes_the_quarantine_lacks() {
        let head = b"[Event \"a\"]\n\n".to_vec();
        let mut input = head.clone();
        for _ in 0..100 {
            input.extend_from_slice(b"1. e4 e5 2. Nf3 Nc6\n");
        }
        input.extend_from_slice(b"*\n");
        let total = input.len();
        for tail in [
            &b""[..],
            b"[Event \"b\"]\n\n*\n",
            b"% arbiter: end of game\n",
        ] {
            let mut bytes = input.clone();
            bytes.extend_from_slice(tail);
            for step in [1, 7, 4096] {
                let games: Vec<RawGame> = Splitter::new(Trickle(&bytes, step))
                    .with_max_game_bytes(200)
                    .map(Result::unwrap)
                    .collect();
                let cut = &games[0];
                let f = &cut.findings[0];
                let lost = total - cut.bytes.len();
                assert_eq!(f.code, code::GAME_TOO_LARGE);
                assert_eq!(
                    f.token,
                    Some(format!("{lost} bytes not kept")),
                    "step {step}"
                );
                assert!(f.message.contains("NOT in the quarantine"));
                assert_eq!(&input[..cut.bytes.len()], &cut.bytes[..]);
                assert_eq!(games.len(), 1 + usize::from(tail.starts_with(b"[")));
            }
        }
    }

    #[test]
    fn empty_and_blank_inputs_have_no_games() {
        assert!(split_bytes(b"").0.is_empty());
        assert!(split_bytes(b"\n\n  \n").0.is_empty());
    }
}
