//! One game under the Laws: walk the moves once, find where the game ended by itself
//! (mate, stalemate, dead position, fivefold, 75 moves), where a draw could first have been
//! claimed, whether a win on time stands, and compare the lawful result with the record.

use super::claims::{self, Claim, ClaimWay, Occurrences, Replayer};
use super::dead::{self, Budget, Deadness, Winnability};
use super::edition::{Edition, LawsChoice};
use super::finding::{Code, LawFinding};
use super::memo;
use super::result::{GameResult, is_time_forfeit};
use crate::chess::{Bitboard, Color, Move, Position, Role};
use crate::game::keys::{FirstKeys, PlyKey};

/// What the arbiter needs to know about one game; the PGN reader fills it in.
#[derive(Debug, Clone, Copy)]
pub struct GameInput<'a> {
    pub start: Position,
    /// Legal moves from `start`, in order.
    pub moves: &'a [Move],
    /// The Date tag value (`YYYY.MM.DD`, `??` allowed).
    pub date: Option<&'a str>,
    pub result_tag: Option<&'a str>,
    pub termination_tag: Option<&'a str>,
    /// The result token that ends the movetext.
    pub result_marker: Option<&'a str>,
}

/// How the verdict is computed.
#[derive(Debug, Clone, Copy, Default)]
pub struct VerdictOptions {
    pub laws: LawsChoice,
    /// Search limits for dead positions and flag-fall questions.
    pub budget: Budget,
}

/// An automatic ending: the move that produced it ended the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerminationKind {
    Checkmate { winner: Color },
    Stalemate,
    DeadPosition,
    Fivefold,
    SeventyFiveMoves,
}

impl TerminationKind {
    pub fn result(self) -> GameResult {
        match self {
            TerminationKind::Checkmate { winner } => GameResult::win_for(winner),
            _ => GameResult::Draw,
        }
    }

    pub fn code(self) -> Code {
        match self {
            TerminationKind::Checkmate { .. } => Code::EndCheckmate,
            TerminationKind::Stalemate => Code::EndStalemate,
            TerminationKind::DeadPosition => Code::EndDeadPosition,
            TerminationKind::Fivefold => Code::EndFivefold,
            TerminationKind::SeventyFiveMoves => Code::EndSeventyFive,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            TerminationKind::Checkmate {
                winner: Color::White,
            } => "White checkmated",
            TerminationKind::Checkmate {
                winner: Color::Black,
            } => "Black checkmated",
            TerminationKind::Stalemate => "stalemate",
            TerminationKind::DeadPosition => "a dead position",
            TerminationKind::Fivefold => "fivefold repetition",
            TerminationKind::SeventyFiveMoves => "the 75-move rule",
        }
    }
}

/// Everything the Laws say about one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub edition: Edition,
    /// The edition was chosen without a usable Date tag.
    pub undated: bool,
    /// The result the Laws give, when they fix it: an automatic ending, or a flag-fall.
    /// `None` when the record leaves the result to the players (resignation, agreement,
    /// a claim, adjudication) or when it could not be decided.
    pub lawful_result: Option<GameResult>,
    /// The recorded result (Result tag, else the movetext marker).
    pub recorded_result: Option<GameResult>,
    /// The automatic ending and the ply of the move that produced it.
    pub termination: Option<(TerminationKind, u32)>,
    pub first_threefold_claim: Option<Claim>,
    pub first_fifty_claim: Option<Claim>,
    pub findings: Vec<LawFinding>,
}

/// 1993 Art. 10.4: the listed endings (K v K; K v K+B or K+N; K+B v K+B with the bishops
/// on diagonals of the same colour).
pub fn is_listed_draw_1993(pos: &Position) -> bool {
    let men = pos.occupied() & !pos.by_role(Role::King);
    match men.count() {
        0 => true,
        1 => (men & (pos.by_role(Role::Bishop) | pos.by_role(Role::Knight))).nonempty(),
        2 => {
            let bishops = pos.by_role(Role::Bishop);
            men == bishops
                && pos.pieces(Color::White, Role::Bishop).count() == 1
                && ((bishops & Bitboard::DARK_SQUARES) == bishops
                    || (bishops & Bitboard::LIGHT_SQUARES) == bishops)
        }
        _ => false,
    }
}

/// The first claim of each kind, with the position it is made in (for its message).
#[derive(Default)]
struct FirstClaims {
    threefold: Option<(Claim, Position)>,
    fifty: Option<(Claim, Position)>,
}

impl FirstClaims {
    /// Records the first ply at which a threefold repetition (Art. 9.2) or a fifty-move
    /// draw (Art. 9.3) could be claimed, if not recorded already. `keys` stands at `ply`.
    /// Most plies are ruled out here from the counts and the board alone.
    /// `at`: the key data of the position at `ply`, and its side to move.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn check(
        &mut self,
        seen: &Occurrences,
        at: &PlyKey,
        turn: Color,
        replayer: &mut Replayer<'_>,
        occurrences: u32,
        edition: Edition,
        ply: u32,
    ) {
        let threefold = self.threefold.is_none()
            && (occurrences >= 3 || seen.may_repeat_next(at.plain_key(), turn));
        // Every fifty-move limit is at least 100 half-moves (`claims::fifty`).
        let fifty = self.fifty.is_none() && at.halfmove_clock() + 1 >= 100;
        if threefold || fifty {
            self.check_position(
                seen,
                replayer.position_at(ply as usize),
                occurrences,
                edition,
                ply,
            );
        }
    }

    /// `check` where a claim may be: in the full position.
    #[inline(never)]
    fn check_position(
        &mut self,
        seen: &Occurrences,
        pos: &Position,
        occurrences: u32,
        edition: Edition,
        ply: u32,
    ) {
        if self.threefold.is_none()
            && let Some(way) = seen.threefold(pos, occurrences)
        {
            self.threefold = Some(found(ply, way, pos));
        }
        if self.fifty.is_none()
            && let Some(way) = claims::fifty(pos, edition)
        {
            self.fifty = Some(found(ply, way, pos));
        }
    }
}

/// A claim and a copy of its position, made out of line: most plies have no claim, and
/// the copy must not be paid for on them.
#[cold]
#[inline(never)]
fn found(ply: u32, way: ClaimWay, pos: &Position) -> (Claim, Position) {
    (Claim { ply, way }, *pos)
}

/// Walks the game and returns the verdict.
pub fn judge(game: &GameInput<'_>, options: &VerdictOptions) -> Verdict {
    let keys = PlyKey::walk(&game.start, game.moves);
    judge_walk(game, None, &keys, options, None)
}

/// `judge`, for a caller that has replayed the game already: `end` must be the position
/// after all of `game.moves`. Most games then need no full replay here at all.
pub fn judge_replayed(game: &GameInput<'_>, end: &Position, options: &VerdictOptions) -> Verdict {
    let keys = PlyKey::walk(&game.start, game.moves);
    judge_walk(game, Some(end), &keys, options, None)
}

/// `judge_replayed`, for a replay that also kept the key data of each position
/// (`game::replay_keyed`: `keys[i]` after move `i + 1`), so the moves are not walked again
/// for repetitions and the move count. With `kept`, also hands over the repetition keys
/// (Art. 9.2.2) of the positions after the first `plies` moves, for a caller that looks
/// positions up by key (the opening names); fewer come back when the game ended earlier.
pub fn judge_keyed(
    game: &GameInput<'_>,
    end: &Position,
    keys: &[PlyKey],
    options: &VerdictOptions,
    kept: Option<(usize, &mut FirstKeys)>,
) -> Verdict {
    if keys.len() != game.moves.len() {
        // Not the keys of these moves: walk them rather than judge something else.
        let keys = PlyKey::walk(&game.start, game.moves);
        return judge_walk(game, Some(end), &keys, options, kept);
    }
    judge_walk(game, Some(end), keys, options, kept)
}

/// `plies`: the key data after each of `game.moves`, as many.
fn judge_walk(
    game: &GameInput<'_>,
    end: Option<&Position>,
    plies: &[PlyKey],
    options: &VerdictOptions,
    mut kept: Option<(usize, &mut FirstKeys)>,
) -> Verdict {
    let choice = options.laws.for_game(game.date);
    let edition = choice.edition;
    let mut findings = Vec::new();
    if choice.undated {
        findings.push(LawFinding::new(
            Code::LawsUndated,
            edition,
            0,
            format!("no usable Date tag: judged under the {edition} Laws"),
        ));
    }

    // ---- one pass: mate/stalemate/fivefold/75, claims ----------------------------------
    // `plies` holds the repetition keys and the move count; full positions are replayed
    // only where a claim or the end of the game needs one.
    let mut replayer = Replayer::new(&game.start, game.moves, end);
    let mut seen = Occurrences::default();
    // The key data of the current position, and its side to move.
    let mut at = PlyKey::of(&game.start);
    let mut turn = game.start.turn();
    let mut occurrences = seen.record(game.start.repetition_key());
    let at_start = game.moves.is_empty().then_some(&game.start);
    let mut ending: Option<(TerminationKind, u32)> =
        immediate_ending(at_start, game.start.halfmove_clock(), edition, 1).map(|k| (k, 0));
    let mut claims = FirstClaims::default();
    // The first position of the stretch, when it followed a double step and its key may
    // yet need the en passant file: (ply, key without it).
    let mut ep_pending: Option<(usize, u64)> = None;
    let last_move = game.moves.len();
    let quiet = claims::quiet_plies(game.start.repetition_key(), at.halfmove_clock(), plies);
    // The plies the walk below skips: their keys for the caller, and where they leave it.
    if quiet > 0 {
        if let Some((n, out)) = kept.as_mut() {
            plies
                .iter()
                .take(quiet.min(*n))
                .for_each(|p| out.push_ply(p));
        }
        if quiet % 2 == 1 {
            turn = turn.other();
        }
        at = plies[quiet - 1];
    }
    if quiet > 0 && quiet == last_move {
        // Every position occurs once and no count nears fifty moves: the walk would find
        // no claim and no ending before the last position, which it would judge with these
        // counts.
        let end = replayer.position_at(last_move);
        ending = immediate_ending(Some(end), at.halfmove_clock(), edition, occurrences)
            .map(|k| (k, last_move as u32));
    } else {
        // From an irreversible move on (or the start): nothing before it counts.
        for (i, next) in plies.iter().enumerate().skip(quiet) {
            let ply = i as u32;
            if ending.is_some() {
                break;
            }
            claims.check(&seen, &at, turn, &mut replayer, occurrences, edition, ply);
            (at, turn) = (*next, turn.other());
            if at.zeroing() {
                seen.clear();
                ep_pending = None;
            }
            let key = at.plain_key();
            if at.ep_pending() {
                ep_pending = Some((i + 1, key));
            } else if let Some((at, plain)) = ep_pending
                && key == plain
            {
                // A first repetition of that position: settle its key (9.2.2) before counting.
                let exact = replayer.position_at(at).repetition_key();
                if exact != plain {
                    seen.rekey(plain, exact);
                }
                ep_pending = None;
            }
            if let Some((plies, out)) = kept.as_mut()
                && i < *plies
            {
                out.push_ply(&at);
            }
            occurrences = seen.record(key);
            if occurrences == 2 {
                seen.seen_twice(key, turn);
            }
            // Most plies are neither the last nor near a 2014 automatic draw: no call for them.
            let clock = at.halfmove_clock();
            let automatic = edition >= Edition::Fide2014 && (occurrences >= 5 || clock >= 150);
            if i + 1 == last_move || automatic {
                let last = (i + 1 == last_move).then(|| replayer.position_at(last_move));
                ending = immediate_ending(last, clock, edition, occurrences).map(|k| (k, ply + 1));
            }
        }
    }
    // `pos`: the position at the ending's ply, or at the end of the record.
    let last_ply = match ending {
        Some((_, ply)) => ply,
        None => {
            let ply = game.moves.len() as u32;
            claims.check(&seen, &at, turn, &mut replayer, occurrences, edition, ply);
            ply
        }
    };
    let pos = *replayer.position_at(last_ply as usize);

    // ---- dead positions: the first dead ply before any other ending ------------------
    let mut dead_unknown_at = None;
    let live = !matches!(ending, Some((TerminationKind::Checkmate { .. }, _))); // a mate was reachable
    if live {
        match first_dead_ply(game, &pos, last_ply, edition, options.budget) {
            // An ending at the same ply keeps its own name (a stalemate is also dead).
            DeadSearch::Dead(ply) if ending.is_none_or(|(_, end)| ply < end) => {
                ending = Some((TerminationKind::DeadPosition, ply));
            }
            DeadSearch::Dead(_) => {}
            DeadSearch::Unknown(ply) => dead_unknown_at = Some(ply),
            DeadSearch::Alive => {}
        }
    }
    let FirstClaims {
        mut threefold,
        mut fifty,
    } = claims;
    if let Some((_, end)) = ending {
        threefold = threefold.filter(|(c, _)| c.ply < end);
        fifty = fifty.filter(|(c, _)| c.ply < end);
    }

    // ---- findings for the ending, claims and moves after the end ---------------------
    let mut ending_article = None;
    if let Some((kind, ply)) = ending {
        ending_article = kind.code().article(edition);
        findings.push(LawFinding::new(
            kind.code(),
            edition,
            ply,
            format!("the game ended by {} at ply {ply}", kind.describe()),
        ));
        let after = game.moves.len() as u32 - ply.min(game.moves.len() as u32);
        if after > 0 {
            findings.push(LawFinding::citing(
                Code::MoveAfterEnd,
                ending_article,
                ply + 1,
                format!(
                    "{after} half-move(s) recorded after the game ended by {} at ply {ply}",
                    kind.describe()
                ),
            ));
        }
    } else if let Some(ply) = dead_unknown_at {
        findings.push(LawFinding::new(
            Code::DeadUndetermined,
            edition,
            ply,
            "no side was shown able to mate, and no proof that neither can was found within the budget"
                .to_string(),
        ));
    }
    if let Some((c, at)) = threefold {
        findings.push(LawFinding::new(
            Code::ClaimThreefold,
            edition,
            c.ply,
            claim_message("the same position for the third time", &at, c),
        ));
    }
    if let Some((c, at)) = fifty {
        findings.push(LawFinding::new(
            Code::ClaimFifty,
            edition,
            c.ply,
            claim_message(
                "fifty moves by each player without pawn move or capture",
                &at,
                c,
            ),
        ));
    }

    // ---- the recorded result against the lawful one -------------------------------------
    // The Result tag and the marker disagreeing is the reader's `pgn.result-mismatch`; the
    // Laws judge the tag (the marker when there is no tag).
    let tag = game.result_tag.and_then(GameResult::parse);
    let marker = game.result_marker.and_then(GameResult::parse);
    let final_ply = game.moves.len() as u32;
    let recorded = tag.or(marker);
    let mut lawful = ending.map(|(k, _)| k.result());
    if let Some((kind, ply)) = ending {
        match recorded {
            Some(GameResult::Unfinished) => findings.push(LawFinding::citing(
                Code::ResultUnfinished,
                ending_article,
                ply,
                format!(
                    "recorded as * but the game ended by {} at ply {ply} ({})",
                    kind.describe(),
                    kind.result()
                ),
            )),
            Some(r) if r != kind.result() => findings.push(LawFinding::citing(
                Code::ResultMismatch,
                ending_article,
                ply,
                format!(
                    "recorded {r} but the game ended by {} at ply {ply}: {}",
                    kind.describe(),
                    kind.result()
                ),
            )),
            _ => {}
        }
    } else if let (Some(r), Some(term)) = (recorded, game.termination_tag)
        && is_time_forfeit(term)
        && let Some(winner) = r.winner()
    {
        lawful = flag_fall(
            &pos,
            winner,
            edition,
            options.budget,
            final_ply,
            r,
            &mut findings,
        );
    }

    Verdict {
        edition,
        undated: choice.undated,
        lawful_result: lawful,
        recorded_result: recorded,
        termination: ending,
        first_threefold_claim: threefold.map(|(c, _)| c),
        first_fifty_claim: fifty.map(|(c, _)| c),
        findings,
    }
}

fn claim_message(what: &str, pos: &Position, c: Claim) -> String {
    let who = match pos.turn() {
        Color::White => "White",
        Color::Black => "Black",
    };
    match c.way {
        ClaimWay::Present => format!("{who}, to move, could claim: {what} is on the board"),
        ClaimWay::IntendedMove(m) => format!(
            "{who}, to move, could claim by writing down {}: it would produce {what}",
            crate::chess::san::to_san(pos, m)
        ),
    }
}

/// Mate, stalemate, and the 2014 automatic draws, in that order of precedence
/// (9.6.2: a mate on the 75th move takes precedence). `last`: the position, when it is
/// the last of the record; earlier ones are followed by a legal move (the moves are legal
/// by the caller's contract), so the side to move has one and generating moves to find
/// out is wasted work. `clock`: the position's half-move clock.
fn immediate_ending(
    last: Option<&Position>,
    clock: u32,
    edition: Edition,
    occurrences: u32,
) -> Option<TerminationKind> {
    if let Some(pos) = last
        && !pos.has_legal_moves()
    {
        return Some(if pos.is_check() {
            TerminationKind::Checkmate {
                winner: pos.turn().other(),
            }
        } else {
            TerminationKind::Stalemate
        });
    }
    if edition >= Edition::Fide2014 {
        if occurrences >= 5 {
            return Some(TerminationKind::Fivefold);
        }
        if clock >= 150 {
            return Some(TerminationKind::SeventyFiveMoves);
        }
    }
    None
}

enum DeadSearch {
    Dead(u32),
    Alive,
    /// Not shown alive and not proved dead, at this ply.
    Unknown(u32),
}

/// The first dead ply up to `last`, by the edition's rule; `last_pos` is the position at
/// `last`. Once a position is dead every later one is too, so only the last one is
/// analysed in full; when it is dead (rare), the game is replayed and the plies before it
/// are examined, last first, until one is not dead.
///
/// The answer is the one a binary search over the plies gives (it was one, and it remains
/// the fallback): a ply shown alive (a mate found from it) has every earlier ply alive too,
/// since the game's moves lead from them to it, and no analysis proves an alive position
/// dead; so when the walk back meets an alive ply after dead ones, every probe of the
/// binary search would have answered the same. Walking back is cheaper because the plies
/// just before the end are usually dead by a static proof (material, blocked pawns), and
/// it analyses only the one alive ply next to them, where the search probed several alive
/// endgame positions, each costly to show alive.
fn first_dead_ply(
    game: &GameInput<'_>,
    last_pos: &Position,
    last: u32,
    edition: Edition,
    budget: Budget,
) -> DeadSearch {
    let is_dead = |p: &Position| -> Deadness {
        match edition {
            Edition::Fide1980 => Deadness::Alive,
            Edition::Fide1993 => {
                if is_listed_draw_1993(p) {
                    Deadness::Dead
                } else {
                    Deadness::Alive
                }
            }
            Edition::Fide2001 | Edition::Fide2014 => memo::deadness(p, budget),
        }
    };
    match is_dead(last_pos) {
        Deadness::Alive => return DeadSearch::Alive,
        Deadness::Unknown => return DeadSearch::Unknown(last),
        Deadness::Dead => {}
    }
    let last = last as usize;
    let mut positions = Vec::with_capacity(last + 1);
    let mut pos = game.start;
    positions.push(pos);
    for &m in game.moves.iter().take(last) {
        pos.play_unchecked(m);
        positions.push(pos);
    }
    // What is known of each ply: Some(true) dead, Some(false) not shown dead.
    let mut known: Vec<Option<bool>> = vec![None; last + 1];
    known[last] = Some(true);
    // Static proofs for both sides make `deadness` answer "dead" at once, without search.
    let statically_dead = |p: &Position| {
        edition >= Edition::Fide2001
            && Color::ALL
                .into_iter()
                .all(|c| dead::static_proof(p, c).is_some())
    };
    // Dead plies proved by search are costly: after a few, the binary search takes over.
    const SEARCHED_DEAD_LIMIT: u32 = 2;
    let mut searched_dead = 0;
    let mut first_dead = last;
    while first_dead > 0 {
        let ply = first_dead - 1;
        let p = &positions[ply];
        let at_once = statically_dead(p);
        let verdict = if at_once { Deadness::Dead } else { is_dead(p) };
        match verdict {
            Deadness::Dead => {
                known[ply] = Some(true);
                first_dead = ply;
                if !at_once {
                    searched_dead += 1;
                    if searched_dead > SEARCHED_DEAD_LIMIT {
                        break;
                    }
                }
            }
            Deadness::Alive => return DeadSearch::Dead(first_dead as u32),
            Deadness::Unknown => {
                known[ply] = Some(false);
                break;
            }
        }
    }
    if first_dead == 0 {
        return DeadSearch::Dead(0);
    }
    // Invariant: positions[hi] is dead; positions before lo are not shown dead.
    let (mut lo, mut hi) = (0usize, last);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let dead = match known[mid] {
            Some(d) => d,
            None => is_dead(&positions[mid]) == Deadness::Dead,
        };
        if dead {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    DeadSearch::Dead(hi as u32)
}

/// A recorded win on time (2017/2001 Art. 6.9; 1993 Art. 10.5 and 10.14; 1980 Art. 17.1).
fn flag_fall(
    pos: &Position,
    winner: Color,
    edition: Edition,
    budget: Budget,
    ply: u32,
    recorded: GameResult,
    findings: &mut Vec<LawFinding>,
) -> Option<GameResult> {
    let name = if winner == Color::White {
        "White"
    } else {
        "Black"
    };
    match edition {
        Edition::Fide1980 => Some(recorded),
        Edition::Fide1993 => {
            if (pos.by_color(winner) & !pos.by_role(Role::King)).is_empty() {
                findings.push(LawFinding::new(
                    Code::ResultFlagUnwinnable,
                    edition,
                    ply,
                    format!("recorded {recorded} on time, but {name} has a bare king: a draw"),
                ));
                Some(GameResult::Draw)
            } else {
                Some(recorded)
            }
        }
        Edition::Fide2001 | Edition::Fide2014 => match dead::analyse_side(pos, winner, budget) {
            Winnability::CannotWin(proof) => {
                findings.push(LawFinding::new(
                    Code::ResultFlagUnwinnable,
                    edition,
                    ply,
                    format!(
                        "recorded {recorded} on time, but {name} cannot checkmate by any series of legal moves ({proof}): a draw"
                    ),
                ));
                Some(GameResult::Draw)
            }
            Winnability::CanWin { .. } => Some(recorded),
            Winnability::Unknown { nodes } => {
                findings.push(LawFinding::new(
                    Code::FlagUndetermined,
                    edition,
                    ply,
                    format!(
                        "recorded {recorded} on time; whether {name} could still mate was not decided in {nodes} nodes"
                    ),
                ));
                None
            }
        },
    }
}
