//! The Laws joined to positions (docs/POSITIONS.md, "The Laws"): searches only an arbiter
//! can answer. `--repetition N`: the position occurs for at least the N-th time;
//! `--claimable threefold|fifty`: the player to move could claim a draw (Art. 9.2 / 9.3, as
//! `laws::claims` rules) and play went on; `--automatic fivefold|seventy-five`: the 2014
//! Laws ended the game by themselves (9.6.1 / 9.6.2) and the record goes on. Each is a
//! condition on one ply, so it combines with every other form of a query at the same ply.
//!
//! Sameness is Art. 9.2.2's (`Position::repetition_key`) in every edition: the 1980 text
//! (12.3 and its 1964 interpretation), the 1993 one (10.10) and 2001/2017 (9.2) all count a
//! position as the same only with the same placement, side to move, castling rights and en
//! passant captures; the query relaxations (`--ignore-ep` …) loosen the FEN's target only,
//! never the count. The editions differ in the fifty-move claim (written-move form from 2001,
//! K+2N v K+P at 100 moves in 1980) and the automatic endings (2014 on), which `GameLaws`
//! carries per game.

use crate::chess::{Move, MoveList, Position};
use crate::laws::Edition;
use crate::laws::claims::{ClaimWay, fifty};
use std::fmt;

/// The claims `--claimable` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimKind {
    /// Art. 9.2 (1980: 12.3; 1993: 10.10): the same position for the third time, on the
    /// board or by writing down the move that makes it.
    Threefold,
    /// Art. 9.3 (1980: 12.4; 1993: 10.12): fifty moves each without pawn move or capture;
    /// by a written move from 2001 on.
    Fifty,
}

/// The automatic draws of the 2014 Laws `--automatic` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutomaticKind {
    /// Art. 9.6.1: the same position for the fifth time.
    Fivefold,
    /// Art. 9.6.2: seventy-five moves each without pawn move or capture.
    SeventyFive,
}

impl crate::choice::Choice for ClaimKind {
    const ALL: &'static [ClaimKind] = &[ClaimKind::Threefold, ClaimKind::Fifty];

    fn name(self) -> &'static str {
        match self {
            ClaimKind::Threefold => "threefold",
            ClaimKind::Fifty => "fifty",
        }
    }

    fn help(self) -> &'static str {
        match self {
            ClaimKind::Threefold => {
                "Art. 9.2 (1980: 12.3; 1993: 10.10): the same position for the third time, on the board or by writing down the move that makes it"
            }
            ClaimKind::Fifty => {
                "Art. 9.3 (1980: 12.4; 1993: 10.12): fifty moves each without pawn move or capture; by a written move from 2001 on"
            }
        }
    }
}

impl crate::choice::Choice for AutomaticKind {
    const ALL: &'static [AutomaticKind] = &[AutomaticKind::Fivefold, AutomaticKind::SeventyFive];

    fn name(self) -> &'static str {
        match self {
            AutomaticKind::Fivefold => "fivefold",
            AutomaticKind::SeventyFive => "seventy-five",
        }
    }

    fn help(self) -> &'static str {
        match self {
            AutomaticKind::Fivefold => "Art. 9.6.1: the same position for the fifth time",
            AutomaticKind::SeventyFive => {
                "Art. 9.6.2: seventy-five moves each without pawn move or capture"
            }
        }
    }
}

impl fmt::Display for ClaimKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClaimKind::Threefold => "threefold",
            ClaimKind::Fifty => "fifty",
        })
    }
}

impl fmt::Display for AutomaticKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AutomaticKind::Fivefold => "fivefold",
            AutomaticKind::SeventyFive => "seventy-five",
        })
    }
}

/// The Laws' forms of a query; every one given must hold at the matching ply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LawsQuery {
    /// The position occurs for at least this many times (counting this ply and the ones
    /// before it): its first match is the N-th occurrence.
    pub repetition: Option<u32>,
    /// A claim the player to move could make here, play going on.
    pub claimable: Option<ClaimKind>,
    /// The game ended here by this automatic draw, the record going on.
    pub automatic: Option<AutomaticKind>,
}

impl LawsQuery {
    pub fn is_empty(&self) -> bool {
        self.repetition.is_none() && self.claimable.is_none() && self.automatic.is_none()
    }
}

/// A `--repetition` value that is no count of occurrences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepetitionError(pub String);

impl fmt::Display for RepetitionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is no number of occurrences: give a whole number from 1 up (2: repeated once, 3: the third occurrence, as in --repetition 3)",
            self.0
        )
    }
}

impl std::error::Error for RepetitionError {}

/// `--repetition N`: a whole number from 1 up (1: every position; 0, negatives and words
/// are errors).
pub fn parse_repetition(text: &str) -> Result<u32, RepetitionError> {
    match text.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(RepetitionError(text.to_owned())),
    }
}

/// What the Laws say of one game that the forms need: the edition in force, and the ply at
/// which the game ended by itself (mate, stalemate, dead position, fivefold, 75 moves), if
/// it did: no claim can be made from there on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameLaws {
    pub edition: Edition,
    pub end: Option<u32>,
}

impl Default for GameLaws {
    /// The newest Laws and no ending known (for a caller without a verdict).
    fn default() -> GameLaws {
        GameLaws {
            edition: Edition::NEWEST,
            end: None,
        }
    }
}

/// What one ply holds for the forms.
#[derive(Debug, Clone, Copy, Default)]
struct Ply {
    /// Occurrences of this position so far, this one included.
    occurrences: u32,
    /// A threefold claim: on the board (`Some(true)`) or by a written move only (`Some(false)`).
    threefold: Option<bool>,
    /// A fifty-move claim: on the board or by a written move only, as for `threefold`.
    fifty: Option<bool>,
    halfmove_clock: u32,
}

/// The plies (0: the start position, k: after the k-th half-move) at which every form of
/// `q` holds, or `None` when none does. `moves` are legal from `start`.
pub fn matching_plies(
    q: &LawsQuery,
    start: &Position,
    moves: &[Move],
    game: &GameLaws,
) -> Option<Vec<bool>> {
    if q.is_empty() {
        return Some(vec![true; moves.len() + 1]);
    }
    let plies = walk(q, start, moves, game.edition);
    let n = moves.len();
    // The first automatic ending of the 2014 Laws, as the verdict finds it (fivefold first;
    // a start position with 75 moves made already is one).
    let automatic = (game.edition >= Edition::Fide2014)
        .then(|| {
            plies
                .iter()
                .position(|p| p.occurrences >= 5 || p.halfmove_clock >= 150)
        })
        .flatten();
    // Where the game stopped: its last recorded ply, or an earlier ending.
    let end = [Some(n), game.end.map(|e| e as usize), automatic]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(n);
    let mut out = vec![false; n + 1];
    let mut any = false;
    for (ply, p) in plies.iter().enumerate() {
        let next = plies.get(ply + 1);
        let holds = q.repetition.is_none_or(|k| p.occurrences >= k)
            && q.claimable.is_none_or(|kind| {
                let (way, next_present) = match kind {
                    ClaimKind::Threefold => (p.threefold, next.map(|x| x.threefold == Some(true))),
                    ClaimKind::Fifty => (p.fifty, next.map(|x| x.fifty == Some(true))),
                };
                played_on(way, ply, end, next_present.unwrap_or(false))
            })
            && q.automatic.is_none_or(|kind| {
                let here = automatic == Some(ply) && ply == end && ply < n;
                here && match kind {
                    AutomaticKind::Fivefold => p.occurrences >= 5,
                    AutomaticKind::SeventyFive => p.occurrences < 5,
                }
            });
        out[ply] = holds;
        any |= holds;
    }
    any.then_some(out)
}

/// Whether a claim at `ply` (`way`: on the board, or by a written move only) was passed
/// over: the game had not ended, and play went on. A game whose record stops right after
/// the written move, with the claim then on the board, ended by that claim (PGN records the
/// move written down), so play did not go on.
fn played_on(way: Option<bool>, ply: usize, end: usize, next_present: bool) -> bool {
    match way {
        None => false,
        Some(true) => ply < end,
        Some(false) => ply < end && !(ply + 1 == end && next_present),
    }
}

/// One replay: occurrences per ply, and the claims where `q` asks for them.
fn walk(q: &LawsQuery, start: &Position, moves: &[Move], edition: Edition) -> Vec<Ply> {
    let claims = q.claimable;
    let mut out = Vec::with_capacity(moves.len() + 1);
    // The keys since the last pawn move or capture (no earlier position can come back after
    // one), and those seen twice among them (only these can a written move make a third).
    let mut stretch: Vec<u64> = Vec::new();
    let mut twice: Vec<u64> = Vec::new();
    let mut pos = *start;
    for ply in 0..=moves.len() {
        if ply > 0 {
            let m = moves[ply - 1];
            if pos.is_zeroing(m) {
                stretch.clear();
                twice.clear();
            }
            pos.play_unchecked(m);
        }
        let key = pos.repetition_key();
        let occurrences = 1 + stretch.iter().filter(|&&k| k == key).count() as u32;
        stretch.push(key);
        if occurrences == 2 {
            twice.push(key);
        }
        let threefold = (claims == Some(ClaimKind::Threefold))
            .then(|| {
                if occurrences >= 3 {
                    Some(true)
                } else {
                    written_threefold(&pos, &twice).then_some(false)
                }
            })
            .flatten();
        let fifty = (claims == Some(ClaimKind::Fifty))
            .then(|| fifty(&pos, edition).map(|w| w == ClaimWay::Present))
            .flatten();
        out.push(Ply {
            occurrences,
            threefold,
            fifty,
            halfmove_clock: pos.halfmove_clock(),
        });
    }
    out
}

/// Art. 9.2.1.1: a legal move that would make a position already seen twice occur a third
/// time (a pawn move or capture never brings a position back).
fn written_threefold(pos: &Position, twice: &[u64]) -> bool {
    if twice.is_empty() {
        return false;
    }
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    list.iter().any(|&m| {
        if pos.is_zeroing(m) {
            return false;
        }
        let mut child = *pos;
        child.play_unchecked(m);
        twice.contains(&child.repetition_key())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::SanMode;

    fn game(sans: &str) -> (Position, Vec<Move>) {
        let start = Position::new();
        let mut pos = start;
        let moves = sans
            .split_whitespace()
            .map(|t| {
                crate::chess::san::play_san(&mut pos, t, SanMode::Strict)
                    .unwrap()
                    .mv
            })
            .collect();
        (start, moves)
    }

    fn first(q: LawsQuery, sans: &str, laws: GameLaws) -> Option<usize> {
        let (s, m) = game(sans);
        matching_plies(&q, &s, &m, &laws).and_then(|v| v.iter().position(|&b| b))
    }

    const SHUFFLE: &str = "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8";

    #[test]
    fn repetition_counts_occurrences_up_to_the_ply() {
        let rep = |n| LawsQuery {
            repetition: Some(n),
            ..LawsQuery::default()
        };
        // The start position comes back at plies 4 and 8; after 1.Nf3 at 1, 5.
        assert_eq!(first(rep(1), SHUFFLE, GameLaws::default()), Some(0));
        assert_eq!(first(rep(2), SHUFFLE, GameLaws::default()), Some(4));
        assert_eq!(first(rep(3), SHUFFLE, GameLaws::default()), Some(8));
        assert_eq!(first(rep(4), SHUFFLE, GameLaws::default()), None);
    }

    #[test]
    fn a_claim_counts_only_when_play_went_on() {
        let claim = LawsQuery {
            claimable: Some(ClaimKind::Threefold),
            ..LawsQuery::default()
        };
        // Ply 7: Black may write 4...Ng8, the start position's third occurrence; the record
        // stops after it (the claim), so play did not go on.
        assert_eq!(first(claim, SHUFFLE, GameLaws::default()), None);
        // One move more: at ply 8 the start position is on the board for the third time
        // and White plays on; at ply 7 Black could have claimed by writing 4...Ng8.
        let on = format!("{SHUFFLE} e4");
        assert_eq!(first(claim, &on, GameLaws::default()), Some(7));
        // A game that ended at ply 7 by itself (as a stored verdict says): no claim there.
        let ended = GameLaws {
            end: Some(7),
            ..GameLaws::default()
        };
        assert_eq!(first(claim, &on, ended), None);
    }

    #[test]
    fn automatic_endings_are_where_the_verdict_puts_them() {
        use crate::laws::{GameInput, VerdictOptions, judge};
        // 75 moves already made at the start: the verdict ends the game there.
        let start = Position::from_fen("8/8/4k3/8/8/4K3/8/R7 w - - 150 120").unwrap();
        let mut pos = start;
        let moves: Vec<Move> = ["Ra2", "Kd6", "Ra3"]
            .iter()
            .map(|t| {
                crate::chess::san::play_san(&mut pos, t, SanMode::Strict)
                    .unwrap()
                    .mv
            })
            .collect();
        let input = GameInput {
            start,
            moves: &moves,
            date: Some("2020.01.01"),
            result_tag: None,
            termination_tag: None,
            result_marker: None,
        };
        let ended = judge(&input, &VerdictOptions::default()).termination;
        assert_eq!(ended.map(|(_, ply)| ply), Some(0));
        let q = LawsQuery {
            automatic: Some(AutomaticKind::SeventyFive),
            ..LawsQuery::default()
        };
        // With the verdict's ending and without it (found by the walk), the same ply.
        for end in [Some(0), None] {
            let laws = GameLaws {
                edition: Edition::Fide2014,
                end,
            };
            let plies = matching_plies(&q, &start, &moves, &laws).unwrap();
            assert_eq!(plies, [true, false, false, false]);
        }
        let laws = GameLaws {
            edition: Edition::Fide2001,
            end: None,
        };
        assert_eq!(matching_plies(&q, &start, &moves, &laws), None);
    }

    #[test]
    fn bad_repetition_counts_are_refused() {
        assert_eq!(parse_repetition("3"), Ok(3));
        for bad in ["0", "-1", "three", "", "2.5"] {
            let e = parse_repetition(bad).unwrap_err();
            assert!(e.to_string().contains("--repetition 3"), "{e}");
        }
    }
}
