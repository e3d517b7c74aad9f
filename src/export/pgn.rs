//! Clean PGN from the database: canonical SAN replayed from the stored moves, tags in export
//! order, main-line comments kept; `--fix-results` writes the lawful result, `--add-tags`
//! adds PlyCount, a Termination tag naming the Law and the edition applied.

use super::games::ExportRow;
use crate::chess::san::to_san;
use crate::laws::{Code, Edition, LawsChoice};
use crate::pgn::commands::parse_commands;
use crate::pgn::{Comment, Game, Marker, MoveNode, Pos, SanToken, WriteOptions, write_game};

#[derive(Debug, Clone, Copy, Default)]
pub struct PgnOptions {
    pub fix_results: bool,
    pub add_tags: bool,
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

/// Builds the game to write: canonical SAN for every move, comments after their ply.
pub fn to_pgn_game(row: &ExportRow, options: PgnOptions) -> Game {
    let mut tags = row.tags.clone();
    let lawful = row.lawful_result.as_deref();
    let result = match (options.fix_results, lawful) {
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
    let mut pos = row.start;
    let mut moves = Vec::with_capacity(row.moves.len());
    for &m in &row.moves {
        let san = to_san(&pos, m);
        pos.play_unchecked(m);
        // Canonical SAN is at most 7 characters: it always fits a token.
        let token =
            SanToken::new(san.as_str()).unwrap_or_else(|| SanToken::new("--").expect("fits"));
        moves.push(MoveNode::new(token, Pos::default()));
    }
    let mut leading = Vec::new();
    for (ply, text) in &row.comments {
        let comment = Comment {
            text: text.clone(),
            commands: parse_commands(text).0,
        };
        match (*ply as usize)
            .checked_sub(1)
            .and_then(|i| moves.get_mut(i))
        {
            Some(node) => node.annotations_mut().comments_after.push(comment),
            None => leading.push(comment),
        }
    }
    // The search's evaluations, in lichess's form, where the file had none of its own.
    for (ply, score) in &row.evals {
        let Some(node) = (*ply as usize)
            .checked_sub(1)
            .and_then(|i| moves.get_mut(i))
        else {
            continue;
        };
        if node
            .comments_after()
            .iter()
            .any(|c| c.text.contains("[%eval"))
        {
            continue;
        }
        let text = format!("[%eval {score}]");
        node.annotations_mut().comments_after.push(Comment {
            commands: parse_commands(&text).0,
            text,
        });
    }
    Game {
        tags: tags.into(),
        leading_comments: leading,
        moves,
        result: Marker::from_text(&result),
        ..Game::default()
    }
}

/// Appends the game's PGN text and a blank line.
pub fn write_pgn(row: &ExportRow, options: PgnOptions, out: &mut String) {
    write_game(&to_pgn_game(row, options), &WriteOptions::default(), out);
    if !out.ends_with("\n\n") {
        out.push('\n');
    }
}
