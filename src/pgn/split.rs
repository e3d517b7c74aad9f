//! Splitting a byte stream into raw games with a line-oriented byte scan (memchr), reading
//! large chunks from any `Read` and keeping only the game in progress in memory. No parsing
//! happens here beyond what finding the game boundaries needs.

use std::fmt;
use std::io::{self, Read};

use memchr::{memchr, memchr2};

use super::finding::{Finding, Severity, code};
use super::token::{ends_with_marker, starts_movetext};

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
    /// The line is text outside any game.
    Garbage,
}

/// Where the lines of the stream stand: the state that decides game boundaries.
struct LineScanner {
    state: State,
    blank_after_tags: bool,
    seen_event: bool,
    in_comment: bool,
    /// The last token outside comments in the movetext was a termination marker.
    terminated: bool,
}

impl LineScanner {
    fn classify(&mut self, line: &[u8]) -> Action {
        if self.state == State::Movetext && self.in_comment {
            if let Some(i) = memchr(b'}', line) {
                self.in_comment = false;
                self.scan_movetext(&line[i + 1..]);
            }
            return Action::Same;
        }
        if line.first() == Some(&b'%') {
            return Action::Same;
        }
        let Some(first) = line.iter().position(|&b| b != b' ' && b != b'\t') else {
            if self.state == State::Tags {
                self.blank_after_tags = true;
            }
            return Action::Same;
        };
        let text = &line[first..];
        if text[0] == b'[' {
            let is_event = text.starts_with(b"[Event ") || text.starts_with(b"[Event\"");
            if self.state == State::Tags && !self.blank_after_tags && !(is_event && self.seen_event)
            {
                self.seen_event |= is_event;
                return Action::Same;
            }
            self.state = State::Tags;
            self.blank_after_tags = false;
            self.seen_event = is_event;
            self.in_comment = false;
            self.terminated = false;
            return Action::Game;
        }
        match self.state {
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

    fn start_tagless(&mut self, text: &[u8]) {
        self.state = State::Movetext;
        self.in_comment = false;
        self.terminated = false;
        self.seen_event = false;
        self.scan_movetext(text);
    }

    /// Follow `{}` and `;` comments through a movetext line, and note whether its last
    /// token outside comments is a termination marker.
    fn scan_movetext(&mut self, mut rest: &[u8]) {
        loop {
            match memchr2(b'{', b';', rest) {
                None => {
                    self.note_text(rest);
                    return;
                }
                Some(i) => {
                    self.note_text(&rest[..i]);
                    if rest[i] == b';' {
                        return;
                    }
                    match memchr(b'}', &rest[i + 1..]) {
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
        let text = super::decode::trim(text);
        if !text.is_empty() {
            self.terminated = ends_with_marker(text);
        }
    }
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
    buf: Vec<u8>,
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
}

impl<R: Read> Splitter<R> {
    pub fn new(reader: R) -> Splitter<R> {
        Splitter {
            reader,
            buf: Vec::with_capacity(CHUNK),
            buf_offset: 0,
            pos: 0,
            line: 1,
            eof: false,
            started: false,
            failed: false,
            finished: false,
            scan: LineScanner {
                state: State::Start,
                blank_after_tags: false,
                seen_event: false,
                in_comment: false,
                terminated: false,
            },
            current: None,
            next_number: 1,
            orphans: Vec::new(),
            garbage: None,
            saw_crlf: false,
            saw_cr: false,
            max_game: DEFAULT_MAX_GAME_BYTES,
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

    fn refill(&mut self) -> Result<(), SplitError> {
        let keep = self.current.as_ref().map_or(self.pos, |c| c.start.min(self.pos));
        if keep > 0 {
            self.buf.drain(..keep);
            self.buf_offset += keep as u64;
            self.pos -= keep;
            if let Some(c) = &mut self.current {
                c.start -= keep;
            }
        }
        let len = self.buf.len();
        self.buf.resize(len + CHUNK, 0);
        loop {
            match self.reader.read(&mut self.buf[len..]) {
                Ok(n) => {
                    self.buf.truncate(len + n);
                    self.eof = n == 0;
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    self.buf.truncate(len);
                    self.failed = true;
                    return Err(SplitError {
                        byte: self.buf_offset + len as u64,
                        source,
                    });
                }
            }
        }
        if !self.started {
            // A reader that hands out fewer than 3 bytes first hides a BOM; rare enough.
            self.started = true;
            if self.buf.starts_with(b"\xEF\xBB\xBF") {
                self.pos = 3;
                self.orphans.push(self.finding_here(
                    code::BOM,
                    Severity::Info,
                    0,
                    "the file starts with a UTF-8 byte-order mark; it is ignored".into(),
                ));
            }
        }
        Ok(())
    }

    fn finding_here(&self, code: &'static str, severity: Severity, at: usize, message: String) -> Finding {
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
                severity: Severity::Warning,
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
            if self.pos == self.buf.len() && self.eof {
                return Ok(self.finish());
            }
            let found = memchr2(b'\n', b'\r', &self.buf[self.pos..]);
            let (line_end, term) = match found {
                Some(i) => {
                    let e = self.pos + i;
                    if self.buf[e] == b'\n' {
                        (e, 1)
                    } else if e + 1 < self.buf.len() {
                        (e, if self.buf[e + 1] == b'\n' { 2 } else { 1 })
                    } else if !self.eof {
                        self.refill()?;
                        continue;
                    } else {
                        (e, 1)
                    }
                }
                None if self.buf.len() - self.pos > self.max_game => (self.buf.len(), 0),
                None if !self.eof => {
                    self.refill()?;
                    continue;
                }
                None => (self.buf.len(), 0),
            };
            if term > 0 && self.buf[line_end] == b'\r' {
                if term == 2 && !self.saw_crlf {
                    self.saw_crlf = true;
                    let f = self.finding_here(
                        code::CRLF,
                        Severity::Info,
                        line_end,
                        "lines end with CR LF".into(),
                    );
                    self.push_finding(f);
                } else if term == 1 && !self.saw_cr {
                    self.saw_cr = true;
                    let f = self.finding_here(
                        code::CR,
                        Severity::Info,
                        line_end,
                        "lines end with a lone CR".into(),
                    );
                    self.push_finding(f);
                }
            }
            let line_start = self.pos;
            let line_no = self.line;
            let action = self.scan.classify(&self.buf[line_start..line_end]);
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
                    out = self.close_game(line_start);
                    self.open_game(line_start, line_no);
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
                let max = self.max_game;
                let mut game = self.close_game(self.pos);
                if let Some(g) = &mut game {
                    g.findings.push(Finding {
                        code: code::GAME_TOO_LARGE,
                        severity: Severity::Error,
                        game_number: g.game_number,
                        line: g.line,
                        column: 1,
                        byte: g.byte_offset,
                        ply: None,
                        token: None,
                        message: format!(
                            "the game is larger than {max} bytes; it is cut off there and the rest skipped"
                        ),
                    });
                }
                self.scan.state = State::Skip;
                out = game;
            }
            if out.is_some() {
                return Ok(out);
            }
        }
    }

    fn finish(&mut self) -> Option<RawGame> {
        if self.finished {
            return None;
        }
        self.finished = true;
        let end = self.buf.len();
        let game = self.close_game(end);
        self.close_garbage();
        game
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
