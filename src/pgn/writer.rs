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
                let value = game.tags.get(k).map_or("", |(_, v)| v);
                out.push((name.to_owned(), value.to_owned()));
            }
            None if name == "Result" => {
                out.push((name.to_owned(), export_marker(game).as_str().to_owned()))
            }
            None => out.push((name.to_owned(), default_value(name).to_owned())),
        }
    }
    for (k, (name, value)) in game.tags.iter().enumerate() {
        if !used[k] {
            out.push((name.to_owned(), value.to_owned()));
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
        let mut indent = false;
        if self.len > 0 && self.len + 1 + width > MAX_LINE {
            // A word starting with `%` must not begin a line: it would read as an escape
            // line. Carry the word before it down too; when that word starts with `%` as
            // well, begin the new line with a space instead (only comment words start with
            // `%`, and a reader collapses the line break and the space into one space).
            let percent = w.starts_with('%') && !prefix;
            if !percent || !self.carry_last_word() {
                self.out.push('\n');
                self.len = 0;
                indent = percent;
            }
        }
        if self.len > 0 || indent {
            self.out.push(' ');
            self.len += 1;
        }
        if prefix {
            self.out.push('(');
        }
        self.out.push_str(w);
        self.len += width;
    }

    /// Move the last word of the current line to a new line; false if there is none.
    fn carry_last_word(&mut self) -> bool {
        let line_start = self.out.rfind('\n').map_or(0, |k| k + 1);
        let Some(space) = self.out[line_start..].rfind(' ') else {
            return false;
        };
        let at = line_start + space;
        if self.out[at + 1..].starts_with('%') {
            return false;
        }
        self.out.replace_range(at..at + 1, "\n");
        self.len = self.out[at + 1..].chars().count();
        true
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

/// Above this many tags `write_game` finds repeated names with a set instead of a scan.
const MANY_TAGS: usize = 32;

/// Write one game, followed by a blank line.
pub fn write_game(game: &Game, options: &WriteOptions, out: &mut String) {
    let tags = export_tags(game);
    // Nearly every game has a handful of tags: those are scanned; a set only for many.
    let mut names =
        (tags.len() > MANY_TAGS).then(|| std::collections::HashSet::with_capacity(tags.len()));
    for (i, (name, value)) in tags.iter().enumerate() {
        let repeated = match names.as_mut() {
            Some(set) => !set.insert(name.as_str()),
            None => tags[..i].iter().any(|(n, _)| n == name),
        };
        // A name the game repeats (two tags on one line in the file: readers differ on which
        // value counts, so both are kept) goes on the line of the tag before it. Alone at the
        // start of a line, a name seen before starts the next game for the splitter, and the
        // clean PGN read back as two games (found by the `pgn` fuzz target).
        if repeated {
            out.pop();
            out.push(' ');
        }
        out.push('[');
        out.push_str(name);
        out.push_str(" \"");
        escape(value, out);
        out.push_str("\"]\n");
    }
    out.push('\n');
    let (first_number, black_first) = start_of(game);
    let mut lines = Lines {
        out,
        len: 0,
        prefix: false,
    };
    if options.comments {
        for c in &game.leading_comments {
            lines.comment(c);
        }
    }
    let mut stack = vec![Frame {
        line: &game.moves,
        i: 0,
        ply0: 0,
        // The first move always gets its number, even when Black makes it.
        force_number: true,
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
                if options.nags && !node.nags_before().is_empty() {
                    for nag in node.nags_before() {
                        lines.word(&format!("${nag}"));
                    }
                    top.force_number = true;
                }
                let half = top.ply0 + top.i as u64 + u64::from(black_first);
                let number = first_number + half / 2;
                buf.clear();
                if half.is_multiple_of(2) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::model::{Pos, SanToken};
    use crate::pgn::parser::parse_game_bytes;
    use proptest::prelude::*;

    fn parse(text: &str) -> Game {
        parse_game_bytes(text.as_bytes(), 1, 0, 1)
    }

    /// The game as the writer exports it: Seven Tag Roster filled in, a marker always there.
    fn exported(mut g: Game) -> Game {
        g.tags = export_tags(&g).into();
        g.result = Some(export_marker(&g));
        g
    }

    #[test]
    fn clean_pgn_of_every_accepted_game_reads_back_as_one_game() {
        // The `pgn` fuzz target's find: a tag name followed by a vertical tab was one name to
        // the splitter and another to the parser, so a game held two `Resnt` tags and its clean
        // PGN read back as two games.
        // Its second find: two tags on one line, the second an `Event` the game already had.
        let mut raws = Vec::new();
        for input in [
            &include_bytes!("../../fuzz/regressions/pgn-clean-pgn-reads-back-as-two-games.bin")[..],
            &include_bytes!("../../fuzz/regressions/pgn-two-tags-on-a-line-repeat-a-name.bin")[..],
            // A tag value broken over a line end, a result glued to the last move.
            &include_bytes!("../../fuzz/seeds/pgn/broken-tag.pgn")[..],
            &include_bytes!("../../fuzz/seeds/pgn/glued-result.pgn")[..],
        ] {
            raws.extend(crate::pgn::split_bytes(input).0);
        }
        let mut accepted = 0;
        for raw in raws {
            let game = crate::pgn::parse_game(&raw);
            if !game.is_rejected() {
                accepted += 1;
                let text = game_to_string(&game, &WriteOptions::default());
                assert_eq!(
                    crate::pgn::split_bytes(text.as_bytes()).0.len(),
                    1,
                    "{text:?}"
                );
            }
        }
        assert_eq!(accepted, 3 + 2 + 3);
    }

    #[test]
    fn a_repeated_tag_name_is_written_beside_the_tag_before_it() {
        // Two tags on one line in the file: the splitter saw one name, the game holds
        // `Event` twice. Written on a line of its own the second `Event` started a game.
        let g = parse("[Event \"e\"]\n[Whkte \"a\"][Event \"f\"]\n\n1. d4 *");
        let text = game_to_string(&g, &WriteOptions::default());
        assert!(text.contains("[Whkte \"a\"] [Event \"f\"]\n"), "{text}");
        let (again, _) = crate::pgn::split_bytes(text.as_bytes());
        assert_eq!(again.len(), 1, "{text}");
        let back = crate::pgn::parse_game(&again[0]);
        let events: Vec<_> = back.tags.iter().filter(|(n, _)| *n == "Event").collect();
        assert_eq!(events.len(), 2);
        assert_eq!((events[0].1, events[1].1), ("e", "f"));
        // Past `MANY_TAGS` the names go through a set: the same layout.
        let many: String = (0..40).map(|k| format!("[T{k} \"v\"]\n")).collect();
        let g = parse(&format!("{many}[T39 \"w\"][T7 \"x\"]\n\n1. d4 *"));
        let text = game_to_string(&g, &WriteOptions::default());
        assert!(
            text.contains("[T39 \"v\"] [T39 \"w\"] [T7 \"x\"]\n"),
            "{text}"
        );
        assert_eq!(
            crate::pgn::split_bytes(text.as_bytes()).0.len(),
            1,
            "{text}"
        );
    }

    #[test]
    fn seven_tag_roster_first_with_defaults_then_the_rest() {
        let g = parse("[ECO \"C20\"]\n[White \"A \\\"B\\\"\"]\n[Event \"E\"]\n1. e4 1-0");
        let text = game_to_string(&g, &WriteOptions::default());
        assert_eq!(
            text,
            "[Event \"E\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
             [White \"A \\\"B\\\"\"]\n[Black \"?\"]\n[Result \"1-0\"]\n[ECO \"C20\"]\n\n1. e4 1-0\n\n"
        );
    }

    #[test]
    fn movetext_layout() {
        let g = parse("1. e4 $1 {good} e5 (1... c5 {Sicilian} 2. Nf3) 2. Nf3 Nc6 {x} 3. Bb5 *");
        let text = game_to_string(&g, &WriteOptions::default());
        let movetext = text.split("\n\n").nth(1).unwrap();
        assert_eq!(
            movetext,
            "1. e4 $1 {good} 1... e5 (1... c5 {Sicilian} 2. Nf3) 2. Nf3 Nc6 {x} 3. Bb5 *"
        );
        let stripped = game_to_string(
            &g,
            &WriteOptions {
                comments: false,
                nags: false,
                variations: false,
            },
        );
        assert_eq!(
            stripped.split("\n\n").nth(1).unwrap(),
            "1. e4 e5 2. Nf3 Nc6 3. Bb5 *"
        );
    }

    #[test]
    fn black_to_move_from_fen_numbers_moves() {
        let g = parse("[FEN \"8/8/8/8/8/8/8/K1k5 b - - 0 40\"]\n40... Kc2 41. Ka2 *");
        let text = game_to_string(&g, &WriteOptions::default());
        assert!(text.ends_with("\n\n40... Kc2 41. Ka2 *\n\n"), "{text}");
    }

    #[test]
    fn lines_are_at_most_79_characters() {
        let moves: String = (1..=60)
            .map(|n| format!("{n}. Nf3 {{a comment here}} Nf6 "))
            .collect();
        let g = parse(&format!("{moves} *"));
        let text = game_to_string(&g, &WriteOptions::default());
        assert!(text.lines().all(|l| l.chars().count() <= 79));
        assert!(parse(&text) == exported(g));
    }

    #[test]
    fn comment_with_a_closing_brace_becomes_a_line_comment() {
        let g = parse("1. e4 ; a } b\n e5 *");
        let text = game_to_string(&g, &WriteOptions::default());
        assert!(text.contains(";a } b\n"));
        assert!(parse(&text) == exported(g));
    }

    /// A long comment whose words all start with `%` after the first: no line begins with
    /// `%` (an escape line), none is longer than 79 characters, and the text reads back.
    #[test]
    fn percent_words_never_begin_a_line() {
        let words: Vec<String> = (0..40).map(|k| format!("%w{k}")).collect();
        let g = parse(&format!("1. e4 {{x {}}} e5 *", words.join(" ")));
        let text = game_to_string(&g, &WriteOptions::default());
        assert!(text.lines().all(|l| !l.starts_with('%')), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 79), "{text}");
        assert!(text.contains("\n %w"), "{text}");
        assert!(parse(&text) == exported(g));
    }

    // A small model of a game for the property test.
    #[derive(Clone, Debug)]
    struct NodeSpec {
        san: &'static str,
        nags: Vec<u8>,
        before: Vec<String>,
        after: Vec<String>,
        variations: Vec<Vec<NodeSpec>>,
    }

    const SANS: &[&str] = &[
        "e4", "Nf3", "exd5", "O-O", "O-O-O", "e8=Q+", "Qxf7#", "--", "Z0", "Rad1", "e7e8q",
    ];

    fn comment_text() -> impl Strategy<Value = String> {
        prop::collection::vec("[a-zA-Z0-9{}\\[\\]%;()\"!?.$*é]{1,8}", 0..4)
            .prop_map(|w| w.join(" "))
    }

    fn line(depth: u32) -> BoxedStrategy<Vec<NodeSpec>> {
        let leaf = (
            prop::sample::select(SANS),
            prop::collection::vec(any::<u8>(), 0..2),
            prop::collection::vec(comment_text(), 0..2),
        );
        if depth == 0 {
            prop::collection::vec(
                leaf.prop_map(|(san, nags, after)| NodeSpec {
                    san,
                    nags,
                    before: vec![],
                    after,
                    variations: vec![],
                }),
                1..4,
            )
            .boxed()
        } else {
            prop::collection::vec(
                (
                    leaf,
                    prop::collection::vec(line(depth - 1), 0..2),
                    prop::collection::vec(comment_text(), 0..2),
                )
                    .prop_map(|((san, nags, after), mut variations, before)| {
                        for v in &mut variations {
                            v[0].before = before.clone();
                        }
                        NodeSpec {
                            san,
                            nags,
                            before: vec![],
                            after,
                            variations,
                        }
                    }),
                1..6,
            )
            .boxed()
        }
    }

    fn comments(texts: &[String]) -> Vec<Comment> {
        texts
            .iter()
            .map(|t| {
                let commands = crate::pgn::commands::parse_commands(t).0;
                Comment {
                    text: t.clone(),
                    commands,
                }
            })
            .collect()
    }

    fn build(spec: &[NodeSpec]) -> Vec<MoveNode> {
        spec.iter()
            .map(|s| {
                let mut node = MoveNode::new(SanToken::new(s.san).unwrap(), Pos::default());
                if !s.nags.is_empty() {
                    node.annotations_mut().nags = s.nags.clone();
                }
                if !s.before.is_empty() {
                    node.annotations_mut().comments_before = comments(&s.before);
                }
                if !s.after.is_empty() {
                    node.annotations_mut().comments_after = comments(&s.after);
                }
                if !s.variations.is_empty() {
                    node.annotations_mut().variations =
                        s.variations.iter().map(|v| build(v)).collect();
                }
                node
            })
            .collect()
    }

    fn game() -> impl Strategy<Value = Game> {
        (
            prop::collection::vec("[^\n\r]{0,12}", 6),
            prop::collection::vec(("[A-Z][a-zA-Z0-9_]{0,8}", "[^\n\r]{0,12}"), 0..4),
            prop::sample::select(
                &[
                    Marker::WhiteWins,
                    Marker::BlackWins,
                    Marker::Draw,
                    Marker::Unknown,
                ][..],
            ),
            prop::collection::vec(comment_text(), 0..2),
            line(2),
            prop::collection::vec(comment_text(), 0..2),
        )
            .prop_map(|(str_values, extra, marker, leading, moves, trailing)| {
                let mut tags: Vec<(String, String)> = SEVEN_TAG_ROSTER[..6]
                    .iter()
                    .zip(str_values)
                    .map(|(n, v)| ((*n).to_owned(), v))
                    .collect();
                tags.push(("Result".into(), marker.as_str().into()));
                for (n, v) in extra {
                    if !SEVEN_TAG_ROSTER.contains(&n.as_str()) && n != "FEN" {
                        tags.push((n, v));
                    }
                }
                Game {
                    tags: tags.into(),
                    leading_comments: comments(&leading),
                    moves: build(&moves),
                    result: Some(marker),
                    trailing_comments: comments(&trailing),
                    ..Game::default()
                }
            })
    }

    proptest! {
        #[test]
        fn parse_of_write_is_the_same_game(g in game()) {
            let text = game_to_string(&g, &WriteOptions::default());
            prop_assert!(text.lines().all(|l| l.chars().count() <= 79 || l.starts_with('[') || l.contains(';')), "{}", text);
            let back = parse(&text);
            prop_assert!(back == g, "{}\n{:#?}\n{:#?}", text, back, g);
            prop_assert!(!back.is_rejected(), "{:?}", back.findings);
        }
    }
}
