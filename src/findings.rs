//! The one findings catalogue: every code any stage can report (reader, replay, Laws,
//! analysis), with its severity, the Article it rests on and what it means in one line.
//! A new code is one line in the `catalogue!` below; `docs/findings.md` lists exactly this
//! table (a test reads it back), and every stage takes its codes and severities from here.

use std::fmt;

/// How much a finding weighs, in increasing order: `Error` rejects the game it belongs to
/// (except the Laws' findings, which judge a legal game and never reject it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    /// Every severity, from the lightest.
    pub const ALL: [Severity; 3] = [Severity::Info, Severity::Warning, Severity::Error];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    /// The severity named `s` (`info`, `warning`, `error`), if any.
    pub fn parse(s: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The stage that reports a code (the section of `docs/findings.md` it is listed in).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// `src/pgn/`: the text of the file, syntax only.
    Pgn,
    /// `src/game/replay.rs`: the moves against the rules.
    Replay,
    /// `src/laws/`: the game under the Laws of its date.
    Laws,
    /// `src/search/analysis.rs`: the engine's judgement of the moves.
    Analysis,
}

/// One code of the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub stage: Stage,
    /// The stable code string (never renamed: users filter on it).
    pub code: &'static str,
    /// The severities it is reported with, lightest first (one, except `pgn.malformed-tag`).
    pub severities: &'static [Severity],
    /// The Article of the Laws it rests on, "—" when none; Laws codes depend on the edition
    /// (`laws::Code::article`) and say "by edition".
    pub article: &'static str,
    /// What it means, in one line (the docs' table cell, verbatim).
    pub meaning: &'static str,
}

impl Entry {
    /// The usual (first listed) severity.
    pub fn severity(&self) -> Severity {
        self.severities[0]
    }
}

/// `stage { CONST "code" severity[/severity] "article" "meaning"; ... }` becomes a module
/// `stage` of `pub const CONST: &str` and one [`Entry`] in [`CATALOGUE`] per line.
macro_rules! catalogue {
    ($($stage:ident $variant:ident {
        $($name:ident $code:literal $($sev:ident)/+ $article:literal $meaning:literal;)*
    })*) => {
        $(
            #[doc = concat!("Codes of the `", stringify!($stage), "` stage.")]
            pub mod $stage {
                $(#[doc = $meaning] pub const $name: &str = $code;)*
            }
        )*
        /// Every code, in the order of `docs/findings.md`.
        pub const CATALOGUE: &[Entry] = &[$($(Entry {
            stage: Stage::$variant,
            code: $code,
            severities: &[$(Severity::$sev),+],
            article: $article,
            meaning: $meaning,
        },)*)*];
    };
}

catalogue! {
    pgn Pgn {
        BOM "pgn.bom" Info "—" "the file starts with a UTF-8 byte-order mark (skipped)";
        CRLF "pgn.crlf" Info "—" "lines end with CR LF (once per file, at the first CR: line, column and byte name it)";
        CR "pgn.cr-line-ends" Info "—" "lines end with a lone CR (once per file, at the first CR)";
        NOT_UTF8 "pgn.not-utf8" Warning "—" "a tag value or comment is not UTF-8; read as Windows-1252 (once per game)";
        GARBAGE_SKIPPED "pgn.garbage-skipped" Warning "—" "text outside any game was skipped: before the first game, or after a termination marker up to the next tag section; the token shows its start, the message its size";
        GAME_TOO_LARGE "pgn.game-too-large" Error "—" "a game is larger than the limit (16 MiB): its first 16 MiB are read and quarantined; the token and message count the bytes skipped after them, which are NOT in the quarantine";
        GAME_TOO_COMPLEX "pgn.game-too-complex" Error "—" "a game over the reader's caps (200,000 moves and comments, variations 128 deep): the rest of its movetext is not read; its bytes go to the quarantine whole";
        MALFORMED_TAG "pgn.malformed-tag" Warning/Error "—" "warning: a tag value with unescaped quotes, read up to the last quote before `]`; error: an unreadable tag line, dropped";
        DUPLICATE_TAG "pgn.duplicate-tag" Warning "—" "a tag name appears twice; both are kept, the first is used";
        MISSING_TAG "pgn.missing-tag" Info "—" "Seven Tag Roster tags are missing (one finding listing them)";
        BAD_RESULT_TAG "pgn.bad-result-tag" Warning "—" "the Result tag is not `1-0`, `0-1`, `1/2-1/2` or `*`";
        MISSING_RESULT_MARKER "pgn.missing-result-marker" Warning "—" "the movetext has no termination marker";
        RESULT_MISMATCH "pgn.result-mismatch" Warning "—" "the Result tag and the termination marker differ (the Laws' verdict reads the tag)";
        TEXT_AFTER_RESULT "pgn.text-after-result" Warning "—" "text after the termination marker on its line(s); skipped";
        RESULT_IN_VARIATION "pgn.result-in-variation" Warning "—" "a termination marker inside a variation; ignored";
        UNREADABLE_TOKEN "pgn.unreadable-token" Error "—" "a token that is no move, move number, NAG, comment or marker (`Zq9`, German `Sf3`)";
        TOKEN_TOO_LONG "pgn.token-too-long" Error "—" "a move-like token longer than 15 bytes";
        BAD_NAG "pgn.bad-nag" Warning "—" "`$` outside 0–255, or an unknown glyph such as `!!!`; dropped";
        MISPLACED_NAG "pgn.misplaced-nag" Warning "—" "a glyph before any move, or NAGs with no move after them; dropped";
        MISPLACED_VARIATION "pgn.misplaced-variation" Error "—" "`(` before any move it could replace";
        UNCLOSED_VARIATION "pgn.unclosed-variation" Error "—" "`(` never closed (the content is kept)";
        UNOPENED_VARIATION "pgn.unopened-variation" Error "—" "`)` without `(`";
        EMPTY_VARIATION "pgn.empty-variation" Warning "—" "`( )` with no moves; dropped with its comments";
        UNTERMINATED_COMMENT "pgn.unterminated-comment" Error "—" "`{` never closed";
        BAD_COMMAND "pgn.bad-command" Warning "—" "`[%clk]`, `[%emt]` or `[%eval]` with arguments that do not parse; kept as text";
        EMPTY_GAME "pgn.empty-game" Warning "—" "a game with no moves";
        NULL_MOVE "pgn.null-move" Warning "—" "`--` or `Z0`; kept as a null move";
        ANNOTATION_SYMBOL "pgn.annotation-symbol" Info "—" "an Informant-style symbol (`+-`, `=/+`, `N`, `RR`, `∞`, …) read as its NAG, which export writes as `$n`";
        UNSUPPORTED_VARIANT "pgn.unsupported-variant" Error "—" "a `Variant` tag other than standard chess or Chess960 (the game goes to quarantine)";
        TAG_LINE_BREAK "pgn.tag-line-break" Warning "—" "a tag value runs over a line end (`[White \"Foo` then `Bar\"]`); the two lines are read as one tag, joined by a space";
        GLUED_RESULT "pgn.glued-result" Info "—" "a termination marker written against the last move (`h6*`, `e41-0`); read as the move and the marker";
    }
    replay Replay {
        FEN_INVALID "setup.invalid-fen" Error "—" "the FEN tag is not a legal position (the message says what is wrong)";
        FEN_CASTLING "setup.castling-repaired" Warning "—" "the FEN tag named castling rights no king and rook could use; they were dropped";
        SETUP_MISSING "setup.missing-setup-tag" Info "—" "a FEN tag without `[SetUp \"1\"]`; the FEN is used";
        UNREADABLE "move.unreadable" Error "—" "a token that is not algebraic notation";
        ILLEGAL "move.illegal" Error "—" "no legal move matches the token";
        AMBIGUOUS "move.ambiguous" Error "—" "more than one legal move matches the token";
        NOT_CANONICAL "move.not-canonical" Error "—" "`--strict`: a legal move not written as standard SAN";
        NULL_MOVE "move.null" Error "—" "a null move in the main line";
        VARIATION_ILLEGAL "variation.illegal-move" Warning "—" "a move in a variation cannot be played there (main line intact)";
        REPAIRED_CASTLING_ZEROS "move.repaired.castling-zeros" Warning "—" "`0-0` read as `O-O`";
        REPAIRED_MISSING_CAPTURE "move.repaired.missing-capture" Warning "—" "`ed5` read as `exd5`";
        REPAIRED_SUPERFLUOUS_CAPTURE "move.repaired.superfluous-capture" Warning "—" "`x` on a move that captures nothing";
        REPAIRED_OVER_DISAMBIGUATION "move.repaired.over-disambiguation" Warning "—" "`Nbd7` where `Nd7` is unique";
        REPAIRED_PROMOTION_FORM "move.repaired.promotion-form" Warning "—" "`e8Q`, `e8(Q)`, `e8/Q` read as `e8=Q`";
        REPAIRED_LONG_ALGEBRAIC "move.repaired.long-algebraic" Warning "—" "`Ng1f3`, `e2-e4`, `e2xe4`";
        REPAIRED_UCI "move.repaired.uci" Warning "—" "`e2e4`, `e7e8q`, `e1g1`";
        REPAIRED_PAWN_LETTER "move.repaired.pawn-letter" Warning "—" "`Pe4` read as `e4`";
        REPAIRED_CHECK_SUFFIX "move.repaired.check-suffix" Info "—" "`+`/`#` missing or wrong";
        REPAIRED_ANNOTATION_GLYPH "move.repaired.annotation-glyph" Info "—" "`e4!?` glued to the move";
        REPAIRED_EN_PASSANT_SUFFIX "move.repaired.en-passant-suffix" Info "—" "`exd6 e.p.`";
    }
    laws Laws {
        END_CHECKMATE "end.checkmate" Info "by edition" "the game ended in checkmate";
        END_STALEMATE "end.stalemate" Info "by edition" "the game ended in stalemate";
        END_DEAD_POSITION "end.dead-position" Info "by edition" "the game ended in a dead position (1993: only the listed endings)";
        END_FIVEFOLD "end.fivefold" Info "by edition" "a position appeared for the fifth time";
        END_SEVENTY_FIVE "end.seventy-five" Info "by edition" "75 moves each without pawn move or capture (a mate on that move takes precedence)";
        CLAIM_THREEFOLD "claim.threefold" Info "by edition" "first ply where a threefold repetition could be claimed (present, or by a written move)";
        CLAIM_FIFTY "claim.fifty" Info "by edition" "first ply where the fifty-move draw could be claimed";
        MOVE_AFTER_END "move.after-end" Warning "by edition" "half-moves recorded after the game had ended";
        RESULT_MISMATCH "result.mismatch" Error "by edition" "the recorded result differs from the ending's";
        RESULT_UNFINISHED "result.unfinished" Warning "by edition" "`*` recorded for a game that had ended";
        RESULT_FLAG_UNWINNABLE "result.flag-unwinnable" Error "by edition" "win on time by a side that could not mate: a draw";
        FLAG_UNDETERMINED "flag.undetermined" Info "by edition" "win on time; the winner's mating chances were not decided within the budget";
        DEAD_UNDETERMINED "dead.undetermined" Info "by edition" "the final position could not be shown alive or dead within the budget";
        LAWS_UNDATED "laws.undated" Info "by edition" "no usable Date tag: the newest edition was applied";
    }
    analysis Analysis {
        INACCURACY "analysis.inaccuracy" Warning "—" "lichess's inaccuracy: the mover's Win% fell by ≥ 5 points, or a mate was allowed or lost in an already decided position; never the engine's best move";
        MISTAKE "analysis.mistake" Warning "—" "lichess's mistake: Win% fell by ≥ 10 points, or a mate allowed or lost from ±700 cp on; never the engine's best move";
        BLUNDER "analysis.blunder" Warning "—" "lichess's blunder: Win% fell by ≥ 15 points, or a mate allowed or lost otherwise; never the engine's best move";
        MISSED_MATE "analysis.missed-mate" Warning "—" "the mover had a mate in ≤ 3 and the move lets it go; the message names the mating move";
        ONLY_MOVE "analysis.only-move" Info "—" "the mover found an only move (gap ≥ 0.5)";
        RESIGNED_NOT_LOST "analysis.resigned-not-lost" Warning "—" "a decisive game not ended by mate whose loser was not lost on the board (wc above −0.35)";
        DRAW_IN_WON_POSITION "analysis.draw-in-won-position" Info "—" "`1/2-1/2` while one side's wc ≥ 0.5 and the board did not draw the game";
        ENGINE_FAILED "analysis.engine-failed" Warning "—" "the UCI engine of `--engine` crashed or hung on this game twice (stored without analysis), or answered an illegal move (its evaluations before are kept; the message has its answer and the question)";
    }
}

/// The catalogue's entry for `code`, if it is one.
pub fn entry(code: &str) -> Option<&'static Entry> {
    CATALOGUE.iter().find(|e| e.code == code)
}

/// The usual severity of a catalogued code. Panics on a code missing from the catalogue:
/// every code a stage reports is a constant generated from it, so that is a programming
/// error caught by the tests.
pub fn severity(code: &str) -> Severity {
    match entry(code) {
        Some(e) => e.severity(),
        None => panic!("finding code {code} is not in the catalogue"),
    }
}

/// Codes once reported and now retired, with the code that reports the same fact. They may
/// still be in databases written by older versions.
pub const RETIRED: &[(&str, &str)] = &[("result.tag-marker-mismatch", pgn::RESULT_MISMATCH)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for e in CATALOGUE {
            assert!(seen.insert(e.code), "duplicate {}", e.code);
            assert!(
                e.code.contains('.') && !e.code.contains(' ') && !e.meaning.is_empty(),
                "{}",
                e.code
            );
            assert!(e.severities.windows(2).all(|w| w[0] < w[1]), "{}", e.code);
            assert_eq!(
                e.article == "by edition",
                e.stage == Stage::Laws,
                "{}",
                e.code
            );
        }
        for (old, new) in RETIRED {
            assert!(entry(old).is_none() && entry(new).is_some());
        }
        assert_eq!(severity(pgn::BOM), Severity::Info);
        assert_eq!(
            entry("pgn.malformed-tag").unwrap().severities,
            [Severity::Warning, Severity::Error]
        );
        assert_eq!(CATALOGUE.len(), 31 + 20 + 14 + 8);
    }

    #[test]
    fn one_severity_order() {
        assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Error);
        assert_eq!(Severity::parse("warning"), Some(Severity::Warning));
        assert_eq!(Severity::parse("fatal"), None);
    }

    /// `docs/findings.md` lists exactly the catalogue: every table row whose first cell is a
    /// code gives that code's severities and meaning, verbatim, and no code is missing.
    #[test]
    fn docs_list_exactly_the_catalogue() {
        let docs = include_str!("../docs/findings.md");
        let mut listed = Vec::new();
        for line in docs.lines().filter(|l| l.starts_with("| `")) {
            let cells: Vec<String> = split_row(line);
            let code = cells[0].trim_matches('`').to_string();
            let e = entry(&code).unwrap_or_else(|| panic!("docs list {code}, not catalogued"));
            let sev: Vec<&str> = e.severities.iter().map(|s| s.as_str()).collect();
            assert_eq!(cells[1], sev.join(" / "), "severity of {code}");
            assert_eq!(cells[2], e.meaning, "meaning of {code}");
            listed.push(code);
        }
        let all: Vec<&str> = CATALOGUE.iter().map(|e| e.code).collect();
        assert_eq!(
            listed, all,
            "docs/findings.md must list the catalogue, in order"
        );
    }

    /// The cells of a Markdown table row, trimmed, with `\|` read as `|`.
    fn split_row(line: &str) -> Vec<String> {
        let mut cells = vec![String::new()];
        let mut chars = line.trim().trim_matches('|').chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&'|') => cells.last_mut().unwrap().push('|'),
                '|' => cells.push(String::new()),
                c => cells.last_mut().unwrap().push(c),
            }
        }
        cells.iter().map(|c| c.trim().to_string()).collect()
    }
}
