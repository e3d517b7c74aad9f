//! PGN from the database, losing nothing: the whole stored movetext (`games.annotated`:
//! variations to any depth, NAGs, every comment with its `[%clk]`/`[%emt]`/`[%eval]`
//! commands) with canonical SAN replayed from the stored moves (and, in variations, from
//! their positions), every tag, in the PGN standard's export format (Seven Tag Roster first,
//! 79-character lines, escapes). Options strip what is not wanted (pgn-extract's `-C -V -N`
//! habits), choose whose `[%eval]` is written, and add judgement NAGs for analysed moves.
//! `--fix-results` writes the lawful result; `--add-tags` adds PlyCount, a Termination tag
//! naming the Law and the edition applied.

use super::ExportRow;
use super::output::Finish;
use super::{ExportError, Writer};
use crate::chess::san::{SanMode, play_san, to_san};
use crate::chess::{Color, Position};
use crate::laws::{Code, Edition, LawsChoice};
use crate::pgn::commands::parse_commands;
use crate::pgn::{
    Comment, Game, Marker, MoveNode, Pos, SanToken, WriteOptions, parse_game_bytes, write_game,
};
use crate::search::Score;
use crate::search::analysis::code as judged;

/// Whose `[%eval]` is written when the game was analysed by arbiter and the file had its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Evals {
    /// arbiter's own (the file's are dropped) when the game was analysed; else the file's.
    #[default]
    Ours,
    /// The file's only.
    File,
    /// Both: the file's as written, arbiter's in a comment of its own after them.
    Both,
}

impl crate::choice::Choice for Evals {
    const ALL: &'static [Evals] = &[Evals::Ours, Evals::File, Evals::Both];

    fn name(self) -> &'static str {
        match self {
            Evals::Ours => "ours",
            Evals::File => "file",
            Evals::Both => "both",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Evals::Ours => {
                "arbiter's own (the file's are dropped) when the game was analysed; else the file's"
            }
            Evals::File => "The file's only",
            Evals::Both => {
                "Both: the file's as written, arbiter's in a comment of its own after them"
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct PgnOptions {
    pub fix_results: bool,
    pub add_tags: bool,
    pub comments: bool,
    pub variations: bool,
    pub nags: bool,
    /// `[%clk]` and `[%emt]` commands.
    pub clocks: bool,
    /// Only the Seven Tag Roster (and the tags that set up the start position) and the main
    /// line: no comment, NAG or variation.
    pub moves_only: bool,
    pub evals: Evals,
    /// For each labelled move: its judgement NAG (`$6` inaccuracy, `$2` mistake, `$4`
    /// blunder), lichess's comment (`Mistake. a4 was best.`) and the better line as a
    /// variation.
    pub annotate: bool,
}

impl Default for PgnOptions {
    fn default() -> PgnOptions {
        PgnOptions {
            fix_results: false,
            add_tags: false,
            comments: true,
            variations: true,
            nags: true,
            clocks: true,
            moves_only: false,
            evals: Evals::Ours,
            annotate: false,
        }
    }
}

/// The ending and the Article it rests on in the edition applied, e.g. `checkmate (Art. 5.1.1)`.
fn termination_text(kind: &str, edition: Option<&str>) -> String {
    let code = match kind {
        "checkmate" => Code::EndCheckmate,
        "stalemate" => Code::EndStalemate,
        "dead-position" => Code::EndDeadPosition,
        "fivefold" => Code::EndFivefold,
        "seventy-five" => Code::EndSeventyFive,
        _ => return kind.to_owned(),
    };
    let edition = match edition.and_then(|e| e.parse::<LawsChoice>().ok()) {
        Some(LawsChoice::Fixed(e)) => e,
        _ => Edition::Fide2014,
    };
    match code.article(edition) {
        Some(article) => format!("{kind} (Art. {article}, {edition})"),
        None => kind.to_owned(),
    }
}

fn token(san: &str) -> SanToken {
    // Canonical SAN is at most 7 characters: it always fits a token.
    SanToken::new(san).unwrap_or_else(|| SanToken::new("--").expect("fits"))
}

/// Variations nested deeper than this keep their moves as written (no recursion without
/// bound; the text is still written whole).
const MAX_CANONICAL_DEPTH: usize = 200;

/// Rewrites a variation's moves in canonical SAN, replaying them from `pos`; a move that
/// does not play there (the file's own error, reported at import) ends the rewriting of its
/// line, whose text stays as written.
fn canonical_line(line: &mut [MoveNode], mut pos: Position, depth: usize) {
    if depth > MAX_CANONICAL_DEPTH {
        return;
    }
    for node in line.iter_mut() {
        let before = pos;
        if node.annotations().is_some() {
            for v in &mut node.annotations_mut().variations {
                canonical_line(v, before, depth + 1);
            }
        }
        match play_san(&mut pos, node.san.as_str(), SanMode::Lenient) {
            Ok(r) => node.san = token(to_san(&before, r.mv).as_str()),
            Err(_) => return,
        }
    }
}

/// The comment's text without the `[%name ...]` commands whose name `drop` accepts.
fn strip_commands(text: &str, drop: impl Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("[%") {
        let name_end = rest[at + 2..]
            .find(|c: char| c.is_whitespace() || c == ']')
            .map_or(rest.len(), |k| at + 2 + k);
        let close = rest[at..].find(']').map(|k| at + k);
        match close {
            Some(close) if drop(&rest[at + 2..name_end]) => {
                out.push_str(&rest[..at]);
                rest = &rest[close + 1..];
            }
            _ => {
                out.push_str(&rest[..at + 2]);
                rest = &rest[at + 2..];
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn comment(text: String) -> Comment {
    Comment {
        commands: parse_commands(&text).0,
        text,
    }
}

/// Applies `f` to every comment list of the game, variations included.
fn each_comment_list(game: &mut Game, f: &mut impl FnMut(&mut Vec<Comment>)) {
    f(&mut game.leading_comments);
    f(&mut game.trailing_comments);
    let mut stack: Vec<&mut Vec<MoveNode>> = vec![&mut game.moves];
    while let Some(line) = stack.pop() {
        for node in line.iter_mut() {
            if node.annotations().is_some() {
                let a = node.annotations_mut();
                f(&mut a.comments_before);
                f(&mut a.comments_after);
                stack.extend(a.variations.iter_mut());
            }
        }
    }
}

/// The game's main line and annotations: the stored movetext when there is one, else the
/// moves with their main-line comments.
fn movetext(row: &ExportRow) -> Game {
    if let Some(text) = &row.annotated {
        let mut game = parse_game_bytes(text.as_bytes(), 1, 0, 1);
        if game.moves.len() == row.moves.len() {
            return game;
        }
        // A stored text that does not match the stored moves: keep the moves (they are
        // checked on reading) and the text's comments around the main line.
        game.moves.clear();
    }
    let mut moves: Vec<MoveNode> = row
        .moves
        .iter()
        .map(|_| MoveNode::new(SanToken::default(), Pos::default()))
        .collect();
    let mut leading = Vec::new();
    for (ply, text) in &row.comments {
        let c = comment(text.clone());
        match (*ply as usize)
            .checked_sub(1)
            .and_then(|i| moves.get_mut(i))
        {
            Some(node) => node.annotations_mut().comments_after.push(c),
            None => leading.push(c),
        }
    }
    Game {
        leading_comments: leading,
        moves,
        ..Game::default()
    }
}

/// The NAG and lichess's word of a judgement finding: `$6` inaccuracy, `$2` mistake, `$4`
/// blunder.
fn judgement_of(code: &str) -> Option<(u8, &'static str)> {
    match code {
        judged::INACCURACY => Some((6, "Inaccuracy")),
        judged::MISTAKE => Some((2, "Mistake")),
        judged::BLUNDER => Some((4, "Blunder")),
        _ => None,
    }
}

/// The stored evaluation of position `ply`, from the point of view of `mover`.
fn score_for(row: &ExportRow, ply: usize, mover: Color) -> Option<Score> {
    let &(_, score, _) = row.evals.iter().find(|e| e.0 as usize == ply)?;
    Some(match (mover, score) {
        (Color::White, s) => s,
        (Color::Black, Score::Cp(cp)) => Score::Cp(-cp),
        (Color::Black, Score::Mate(n)) => Score::Mate(-n),
    })
}

/// What lichess writes for a labelled move: the label's word, or across a mate transition
/// its description (the mover had a forced mate and lost it; the move lets the opponent
/// force one).
fn judgement_text(row: &ExportRow, k: usize, mover: Color, word: &'static str) -> &'static str {
    match (score_for(row, k, mover), score_for(row, k + 1, mover)) {
        (Some(Score::Mate(m)), _) if m > 0 => "Lost forced checkmate sequence",
        (Some(Score::Cp(_)), Some(Score::Mate(m))) if m < 0 => "Checkmate is now unavoidable",
        _ => word,
    }
}

/// The stored principal variation from position `k` (before move `k + 1`), replayed from
/// `before`: its moves up to the first that is not legal there, in canonical SAN.
fn better_line(row: &ExportRow, k: usize, before: &Position) -> Vec<MoveNode> {
    let Some((_, pv)) = row.lines.iter().find(|(ply, _)| *ply as usize == k) else {
        return Vec::new();
    };
    let mut pos = *before;
    let mut line = Vec::with_capacity(pv.len());
    for &m in pv {
        if !pos.is_legal(m) {
            break;
        }
        line.push(MoveNode::new(
            token(to_san(&pos, m).as_str()),
            Pos::default(),
        ));
        pos.play_unchecked(m);
    }
    line
}

/// `--annotate` on move `k + 1` (`node`, played from `before`), labelled by `code`: the
/// judgement NAG, lichess's comment (`Mistake. a4 was best.`) and the better line as a
/// variation, which starts with the best move in place of the one played.
fn annotate_move(row: &ExportRow, k: usize, code: &str, node: &mut MoveNode, before: &Position) {
    let Some((nag, word)) = judgement_of(code) else {
        return;
    };
    // A move-quality NAG ($1-$6) already there is the annotator's word: kept.
    if !node.nags().iter().any(|n| (1..=6).contains(n)) {
        node.annotations_mut().nags.push(nag);
    }
    let mut text = format!("{}.", judgement_text(row, k, before.turn(), word));
    let line = better_line(row, k, before);
    let best_is_other = line.first().is_some_and(|m| m.san != node.san);
    if best_is_other {
        text.push_str(&format!(" {} was best.", line[0].san.as_str()));
    }
    let a = node.annotations_mut();
    a.comments_after.push(comment(text));
    if best_is_other {
        a.variations.push(line);
    }
}

/// Builds the game to write.
pub fn to_pgn_game(row: &ExportRow, options: PgnOptions) -> Game {
    let mut tags = row.tags.clone();
    let result = match (options.fix_results, row.lawful_result.as_deref()) {
        (true, Some(r)) => r.to_owned(),
        _ => row.result.clone().unwrap_or_else(|| "*".to_owned()),
    };
    if let Some(t) = tags.iter_mut().find(|(n, _)| n == "Result") {
        t.1 = result.clone();
    }
    if options.add_tags {
        tags.retain(|(n, _)| n != "PlyCount" && n != "ArbiterTermination" && n != "ArbiterLaws");
        tags.push(("PlyCount".to_owned(), row.moves.len().to_string()));
        if let Some(kind) = &row.termination {
            tags.push((
                "ArbiterTermination".to_owned(),
                termination_text(kind, row.laws_edition.as_deref()),
            ));
        }
        if let Some(e) = &row.laws_edition {
            tags.push(("ArbiterLaws".to_owned(), format!("FIDE {e}")));
        }
    }
    if options.moves_only {
        const KEEP: [&str; 10] = [
            "Event", "Site", "Date", "Round", "White", "Black", "Result", "SetUp", "FEN", "Variant",
        ];
        tags.retain(|(n, _)| KEEP.contains(&n.as_str()));
    }
    let mut game = movetext(row);
    // Canonical SAN: the main line from the stored moves, variations replayed.
    // The row's SAN when it was read with it: then the main line is replayed only as far as
    // a variation needs (`pos` stands at ply `at`).
    let read = row.sans.len() == row.moves.len();
    let (mut pos, mut at) = (row.start, 0);
    for (i, (node, &m)) in game.moves.iter_mut().zip(&row.moves).enumerate() {
        let varied = node.annotations().is_some_and(|a| !a.variations.is_empty());
        if varied || !read {
            for &earlier in &row.moves[at..i] {
                pos.play_unchecked(earlier);
            }
            at = i;
        }
        if varied {
            for v in &mut node.annotations_mut().variations {
                canonical_line(v, pos, 1);
            }
        }
        node.san = if read {
            token(row.sans[i].as_str())
        } else {
            token(to_san(&pos, m).as_str())
        };
    }
    // A position query's first matching ply (`export --position`, docs/POSITIONS.md).
    if let Some(ply) = row.match_ply {
        let mark = comment(format!("arbiter: position matched at ply {ply}"));
        match (ply as usize)
            .checked_sub(1)
            .and_then(|i| game.moves.get_mut(i))
        {
            Some(node) => node.annotations_mut().comments_after.push(mark),
            None => game.leading_comments.push(mark),
        }
    }
    let analysed = !row.evals.is_empty();
    let ours = analysed && options.evals != Evals::File;
    let drop_file_evals = analysed && options.evals == Evals::Ours;
    if !options.clocks || drop_file_evals {
        let clocks = options.clocks;
        each_comment_list(&mut game, &mut |list: &mut Vec<Comment>| {
            for c in list.iter_mut() {
                if c.text.contains("[%") {
                    let text = strip_commands(&c.text, |name| {
                        (!clocks && (name == "clk" || name == "emt"))
                            || (drop_file_evals && name == "eval")
                    });
                    *c = comment(text);
                }
            }
            // A comment that held only the removed commands goes.
            list.retain(|c| !c.text.is_empty());
        });
    }
    if ours {
        for &(ply, score, depth) in &row.evals {
            let Some(node) = (ply as usize)
                .checked_sub(1)
                .and_then(|i| game.moves.get_mut(i))
            else {
                continue;
            };
            let text = format!("[%eval {score},{depth}]");
            let after = &mut node.annotations_mut().comments_after;
            match after.first_mut() {
                // Beside the move's own commands, as lichess writes them, unless the file's
                // evaluation stays there too (`both`).
                Some(c) if options.evals == Evals::Ours => {
                    *c = comment(format!("{} {text}", c.text));
                }
                _ => after.push(comment(text)),
            }
        }
    }
    if options.annotate {
        // The position before each move, for the labels' better lines.
        let mut pos = row.start;
        let befores: Vec<Position> = row
            .moves
            .iter()
            .map(|&m| {
                let before = pos;
                pos.play_unchecked(m);
                before
            })
            .collect();
        for (code, ply) in row.finding_codes.iter().zip(&row.finding_plies) {
            let Some(k) = ply.and_then(|p| (p as usize).checked_sub(1)) else {
                continue;
            };
            if let (Some(node), Some(before)) = (game.moves.get_mut(k), befores.get(k)) {
                annotate_move(row, k, code, node, before);
            }
        }
    }
    game.tags = tags.into();
    game.result = Marker::from_text(&result);
    game
}

/// What the writer keeps.
fn write_options(options: &PgnOptions) -> WriteOptions {
    WriteOptions {
        comments: options.comments && !options.moves_only,
        nags: options.nags && !options.moves_only,
        variations: options.variations && !options.moves_only,
    }
}

/// Appends the game's PGN text and a blank line.
pub fn write_pgn(row: &ExportRow, options: PgnOptions, out: &mut String) {
    write_game(&to_pgn_game(row, options), &write_options(&options), out);
    if !out.ends_with("\n\n") {
        out.push('\n');
    }
}

/// The PGN format as a game writer.
pub struct PgnWriter<W: Finish> {
    out: W,
    options: PgnOptions,
    text: String,
}

impl<W: Finish> PgnWriter<W> {
    pub fn new(out: W, options: PgnOptions) -> PgnWriter<W> {
        PgnWriter {
            out,
            options,
            text: String::new(),
        }
    }
}

impl<W: Finish> Writer for PgnWriter<W> {
    fn begin(&mut self) -> Result<(), ExportError> {
        Ok(())
    }

    fn game(&mut self, row: &ExportRow) -> Result<(), ExportError> {
        self.text.clear();
        write_pgn(row, self.options, &mut self.text);
        self.out.write_all(self.text.as_bytes())?;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), ExportError> {
        self.out.finish_output()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_stripped_by_name() {
        let t = "good [%clk 0:01:02] move [%eval 0.25] [%emt 0:00:03] [%csl Ga4]";
        assert_eq!(
            strip_commands(t, |n| n == "clk" || n == "emt"),
            "good move [%eval 0.25] [%csl Ga4]"
        );
        assert_eq!(
            strip_commands(t, |n| n == "eval"),
            "good [%clk 0:01:02] move [%emt 0:00:03] [%csl Ga4]"
        );
        assert_eq!(strip_commands("[%clk 1:00:00]", |_| true), "");
        assert_eq!(strip_commands("open [%clk", |_| true), "open [%clk");
    }

    fn row_of(pgn: &str) -> ExportRow {
        let game = parse_game_bytes(pgn.as_bytes(), 1, 0, 1);
        let replayed = crate::game::replay(&game, SanMode::Lenient);
        ExportRow {
            tags: crate::pgn::export_tags(&game),
            result: game.tag("Result").map(str::to_owned),
            moves: replayed.moves.clone(),
            start: replayed.start,
            annotated: Some(crate::pgn::game_to_string(&game, &WriteOptions::default())),
            ..ExportRow::default()
        }
    }

    #[test]
    fn variations_nags_and_comments_come_back_in_canonical_san() {
        let row = row_of(
            "[Result \"*\"]\n1. e4 $1 {best [%clk 0:03:00]} e5 (1... Pc7c5 $2 2. Ngf3 (2. Nc3 {x})) \
             2. Ng1f3 *",
        );
        let mut text = String::new();
        write_pgn(&row, PgnOptions::default(), &mut text);
        let movetext = text.split("\n\n").nth(1).unwrap().replace('\n', " ");
        assert_eq!(
            movetext,
            "1. e4 $1 {best [%clk 0:03:00]} 1... e5 (1... c5 $2 2. Nf3 (2. Nc3 {x})) 2. Nf3 *"
        );
        let stripped = PgnOptions {
            clocks: false,
            variations: false,
            ..PgnOptions::default()
        };
        text.clear();
        write_pgn(&row, stripped, &mut text);
        assert_eq!(
            text.split("\n\n").nth(1).unwrap(),
            "1. e4 $1 {best} 1... e5 2. Nf3 *"
        );
        text.clear();
        write_pgn(
            &row,
            PgnOptions {
                moves_only: true,
                ..PgnOptions::default()
            },
            &mut text,
        );
        assert_eq!(text.split("\n\n").nth(1).unwrap(), "1. e4 e5 2. Nf3 *");
    }

    #[test]
    fn our_evaluations_replace_the_files_by_default() {
        let mut row = row_of("1. e4 {[%eval 0.17] [%clk 0:03:00]} e5 {[%eval 0.2]} *");
        row.evals = vec![(1, Score::Cp(31), 12), (2, Score::Mate(-3), 9)];
        row.finding_codes = vec![judged::BLUNDER.to_owned()];
        row.finding_plies = vec![Some(2)];
        let text = |evals, annotate| {
            let mut t = String::new();
            let o = PgnOptions {
                evals,
                annotate,
                ..PgnOptions::default()
            };
            write_pgn(&row, o, &mut t);
            t.split("\n\n").nth(1).unwrap().replace('\n', " ")
        };
        assert_eq!(
            text(Evals::Ours, false),
            "1. e4 {[%clk 0:03:00] [%eval 0.31,12]} 1... e5 {[%eval #-3,9]} *"
        );
        assert_eq!(
            text(Evals::File, true),
            "1. e4 {[%eval 0.17] [%clk 0:03:00]} 1... e5 $4 {[%eval 0.2]} {Blunder.} *"
        );
        assert_eq!(
            text(Evals::Both, false),
            "1. e4 {[%eval 0.17] [%clk 0:03:00]} {[%eval 0.31,12]} 1... e5 {[%eval 0.2]} {[%eval #-3,9]} *"
        );
    }

    /// The moves of `uci` played from `pos`, for a stored line.
    fn line_of(pgn: &str, ply: usize, uci: &str) -> Vec<crate::chess::Move> {
        let row = row_of(pgn);
        let mut pos = row.start;
        for &m in &row.moves[..ply] {
            pos.play_unchecked(m);
        }
        uci.split_whitespace()
            .map(|t| {
                let m = crate::chess::uci::parse_uci(&pos, t).unwrap();
                pos.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn a_labelled_move_gets_lichess_comment_and_the_better_line_as_a_variation() {
        let pgn = "1. e4 e5 2. Nf3 Qg5 3. Nxg5 *";
        let mut row = row_of(pgn);
        row.evals = vec![
            (3, Score::Cp(40), 20),
            (4, Score::Cp(900), 20),
            (5, Score::Cp(890), 20),
        ];
        row.lines = vec![(3, line_of(pgn, 3, "b8c6 f1b5 a7a6 b5a4"))];
        row.finding_codes = vec![judged::BLUNDER.to_owned()];
        row.finding_plies = vec![Some(4)];
        let annotated = PgnOptions {
            annotate: true,
            ..PgnOptions::default()
        };
        let text = |row: &ExportRow, o: PgnOptions| {
            let mut t = String::new();
            write_pgn(row, o, &mut t);
            t.split("\n\n").nth(1).unwrap().replace('\n', " ")
        };
        assert_eq!(
            text(&row, annotated),
            "1. e4 e5 2. Nf3 {[%eval 0.40,20]} 2... Qg5 $4 {[%eval 9.00,20]} {Blunder. Nc6 was \
             best.} (2... Nc6 3. Bb5 a6 4. Ba4) 3. Nxg5 {[%eval 8.90,20]} *"
        );
        // No variation without variations; nothing of it without --annotate.
        let plain = text(
            &row,
            PgnOptions {
                variations: false,
                ..annotated
            },
        );
        assert!(plain.contains("$4 {[%eval 9.00,20]} {Blunder. Nc6 was best.} 3. Nxg5"));
        assert!(!text(&row, PgnOptions::default()).contains("best"));
        // A move that lets the opponent force a mate is said so; a stored line whose first
        // move is the one played, or is not legal, gives no better move.
        row.evals[1].1 = Score::Mate(3);
        row.lines = vec![(3, line_of(pgn, 3, "d8g5"))];
        assert!(
            text(&row, annotated)
                .contains("2... Qg5 $4 {[%eval #3,20]} {Checkmate is now unavoidable.} 3. Nxg5"),
            "{}",
            text(&row, annotated)
        );
        row.lines = vec![(3, line_of(pgn, 0, "g1f3"))];
        assert!(text(&row, annotated).contains("{Checkmate is now unavoidable.} 3. Nxg5"));
    }
}
