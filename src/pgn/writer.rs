//! Writing clean PGN in the export format: the Seven Tag Roster first and in order, then the
//! other tags; move numbers; lines of at most 79 characters; comments, NAGs and variations
//! kept or stripped by option. Reading back what it writes gives the same game.

use super::model::{Comment, Game, Marker, MoveNode};
use super::parser::SEVEN_TAG_ROSTER;

const MAX_LINE: usize = 79;

/// What to keep when writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    pub comments: bool,
    pub nags: bool,
    pub variations: bool,
}

impl Default for WriteOptions {
    fn default() -> WriteOptions {
        WriteOptions {
            comments: true,
            nags: true,
            variations: true,
        }
    }
}

/// The termination marker the writer emits: the game's own, else a valid Result tag, else `*`.
pub fn export_marker(game: &Game) -> Marker {
    game.result
        .or_else(|| game.tag("Result").and_then(Marker::from_text))
        .unwrap_or(Marker::Unknown)
}

fn default_value(name: &str) -> &'static str {
    match name {
        "Date" => "????.??.??",
        _ => "?",
    }
}

/// The tags in export order: the Seven Tag Roster (missing ones given the standard's
/// placeholder values, `Result` the exported marker), then the others as they came.
pub fn export_tags(game: &Game) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(game.tags.len() + 7);
    let mut used = vec![false; game.tags.len()];
    for name in SEVEN_TAG_ROSTER {
        match game.tags.iter().position(|(n, _)| n == name) {
            Some(k) => {
                used[k] = true;
                out.push(game.tags[k].clone());
            }
            None if name == "Result" => {
                out.push((name.to_owned(), export_marker(game).as_str().to_owned()))
            }
            None => out.push((name.to_owned(), default_value(name).to_owned())),
        }
    }
    for (k, tag) in game.tags.iter().enumerate() {
        if !used[k] {
            out.push(tag.clone());
        }
    }
    out
}

fn escape(value: &str, out: &mut String) {
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
}

/// Where the move numbers start, from the FEN tag: (full move number, Black moves first).
fn start_of(game: &Game) -> (u64, bool) {
    let Some(fen) = game.tag("FEN") else {
        return (1, false);
    };
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let black = fields.get(1) == Some(&"b");
    let number = fields
        .get(5)
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|&n| n > 0 && n < 1 << 32)
        .unwrap_or(1);
    (number, black)
}

/// Fills lines of at most 79 characters with words.
struct Lines<'o> {
    out: &'o mut String,
    len: usize,
    /// Text to put right before the next word, with no space: `(`.
    prefix: bool,
}

impl Lines<'_> {
    fn word(&mut self, w: &str) {
        let prefix = std::mem::take(&mut self.prefix);
        let width = w.chars().count() + usize::from(prefix);
        // A word starting with `%` must not begin a line: it would read as an escape line.
        let may_break = !w.starts_with('%') || prefix;
        if self.len > 0 && self.len + 1 + width > MAX_LINE && may_break {
            self.out.push('\n');
            self.len = 0;
        }
        if self.len > 0 {
            self.out.push(' ');
            self.len += 1;
        }
        if prefix {
            self.out.push('(');
        }
        self.out.push_str(w);
        self.len += width;
    }

    fn close_paren(&mut self) {
        if self.len > 0 && self.len < MAX_LINE {
            self.out.push(')');
            self.len += 1;
        } else {
            self.word(")");
        }
    }

    fn newline(&mut self) {
        if self.len > 0 {
            self.out.push('\n');
            self.len = 0;
        }
    }

    fn comment(&mut self, c: &Comment) {
        if c.text.contains('}') {
            // Only a rest-of-line comment can hold a closing brace.
            self.word(&format!(";{}", c.text));
            self.newline();
            return;
        }
        let mut words = c.text.split(' ').filter(|w| !w.is_empty()).peekable();
        if words.peek().is_none() {
            self.word("{}");
            return;
        }
        let mut first = true;
        while let Some(w) = words.next() {
            let last = words.peek().is_none();
            let text = match (first, last) {
                (true, true) => format!("{{{w}}}"),
                (true, false) => format!("{{{w}"),
                (false, true) => format!("{w}}}"),
                (false, false) => w.to_owned(),
            };
            self.word(&text);
            first = false;
        }
    }
}

struct Frame<'g> {
    line: &'g [MoveNode],
    i: usize,
    /// Half-moves from the game's first move to `line[0]`.
    ply0: u64,
    force_number: bool,
    /// Variations of `line[i]` already written, once `line[i]` itself is written.
    vars_done: Option<usize>,
}

/// Write one game, followed by a blank line.
pub fn write_game(game: &Game, options: &WriteOptions, out: &mut String) {
    for (name, value) in export_tags(game) {
        out.push('[');
        out.push_str(&name);
        out.push_str(" \"");
        escape(&value, out);
        out.push_str("\"]\n");
    }
    out.push('\n');
    let (first_number, black_first) = start_of(game);
    let mut lines = Lines {
        out,
        len: 0,
        prefix: false,
    };
    let mut force = false;
    if options.comments {
        for c in &game.leading_comments {
            lines.comment(c);
            force = true;
        }
    }
    let mut stack = vec![Frame {
        line: &game.moves,
        i: 0,
        ply0: 0,
        force_number: force,
        vars_done: None,
    }];
    let mut buf = String::new();
    while let Some(top) = stack.last_mut() {
        if top.i == top.line.len() {
            stack.pop();
            if let Some(parent) = stack.last_mut() {
                lines.close_paren();
                parent.force_number = true;
            }
            continue;
        }
        let node = &top.line[top.i];
        match top.vars_done {
            None => {
                if options.comments && !node.comments_before().is_empty() {
                    for c in node.comments_before() {
                        lines.comment(c);
                    }
                    top.force_number = true;
                }
                let half = top.ply0 + top.i as u64 + u64::from(black_first);
                let number = first_number + half / 2;
                buf.clear();
                if half % 2 == 0 {
                    lines.word(&format!("{number}."));
                } else if top.force_number {
                    lines.word(&format!("{number}..."));
                }
                top.force_number = false;
                lines.word(node.san.as_str());
                if options.nags {
                    for nag in node.nags() {
                        lines.word(&format!("${nag}"));
                    }
                }
                if options.comments && !node.comments_after().is_empty() {
                    for c in node.comments_after() {
                        lines.comment(c);
                    }
                    top.force_number = true;
                }
                top.vars_done = Some(0);
            }
            Some(k) if options.variations && k < node.variations().len() => {
                top.vars_done = Some(k + 1);
                let ply0 = top.ply0 + top.i as u64;
                lines.prefix = true;
                stack.push(Frame {
                    line: &node.variations()[k],
                    i: 0,
                    ply0,
                    force_number: true,
                    vars_done: None,
                });
            }
            Some(_) => {
                top.i += 1;
                top.vars_done = None;
            }
        }
    }
    lines.word(export_marker(game).as_str());
    if options.comments {
        for c in &game.trailing_comments {
            lines.comment(c);
        }
    }
    lines.newline();
    lines.out.push('\n');
}

/// Write one game into a new string.
pub fn game_to_string(game: &Game, options: &WriteOptions) -> String {
    let mut out = String::new();
    write_game(game, options, &mut out);
    out
}
