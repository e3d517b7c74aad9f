//! Cheap proofs that a side can still mate (2017 Art. 5.2.2, 6.9; 2001 Art. 9.6), tried
//! before any helpmate line on the final position of every game: classes of positions
//! proved alive once, here, from the material and the pawns alone, in a few bitboard
//! operations. A class that does not apply claims nothing; the searches decide the rest.

use crate::chess::{Bitboard, Color, File, MoveList, Position, Role, attacks};

/// Which class proved that a side can still mate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AliveClass {
    /// No pawns on the board, and the side has a queen or a rook.
    PawnlessHeavy,
    /// Both sides have a queen or a rook and no pawn stands directly in front of an enemy
    /// pawn or the enemy king.
    Unlocked,
    /// As `Unlocked`, but with pawns jammed head to head, and a file without any pawn: the
    /// kings and the heavy pieces can cross the jammed pawns there, so the jams wall off
    /// no part of the board (no pawn may stand in front of the enemy king).
    OpenFile,
    /// One side or both without a queen or rook: the side has a pawn, no pawn stands
    /// directly in front of an enemy pawn or the enemy king (every pawn can still advance).
    /// The side can promote and mate with the new queen. (Until issue 36's fourth sitting it
    /// also needed 8 men on the board; the labelled sets and the corpus finals showed no
    /// side it would claim wrongly without the count: the small endings that are dead only
    /// by a tempo are all forced play, which the guard stands aside for.)
    FreePawns,
    /// No pawn, rook or queen on the board, each side at most two minor pieces, the side at
    /// least one, and no material lemma against it (`material::cannot_win`): a knight with
    /// a man of the loser to fill a flight square, two knights, bishops of both colours, or
    /// a bishop with a knight or an other-coloured bishop of the loser. Such a side mates in
    /// a corner with the loser's own men beside its king (the corner mates of `corner`);
    /// on a board without pawns nothing can keep the men from getting there.
    MinorPieces,
}

/// Neither side is held to forced play: the side to move is not in check and each king has
/// a quiet step (to an empty square no enemy man attacks). Without this the classes are
/// false: D3-Chess's vector has 16 sides in them that cannot win, every one a forced line
/// (a check met only by taking the last rook, a pinned rook whose king has no square, a king
/// held by pawns while its side runs out of moves).
fn free_to_wait(pos: &Position) -> bool {
    if pos.is_check() {
        return false;
    }
    let occupied = pos.occupied();
    Color::ALL.into_iter().all(|c| {
        let king = pos.king_of(c);
        let around = occupied - Bitboard::from_square(king);
        (attacks::king_attacks(king) - occupied)
            .into_iter()
            .any(|to| !pos.is_attacked_with(to, c.other(), around))
    })
}

/// A class proving that `winner` can still mate, if one applies. The caller has made sure
/// the game is not over (the side to move has a legal move).
pub fn proof(pos: &Position, winner: Color) -> Option<AliveClass> {
    let class = conditions(pos, winner)?;
    free_to_wait(pos).then_some(class)
}

/// A class that one legal move of the side to move reaches, for a side whose material and
/// pawns are in a class but whose position fails the guard (in check, or a king without a
/// quiet step): the forced play the guard stands aside for is often one move long. The
/// moves are tried in generation order, at most `ONE_MOVE_TRIES` of them; `None` claims
/// nothing. The position reached is one legal move away, so it is reachable, and the claim
/// rests on the class as at the root.
pub fn one_move_away(pos: &Position) -> Option<AliveClass> {
    let sides = Color::ALL.map(|c| conditions(pos, c).is_some());
    if sides == [false, false] {
        return None;
    }
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    list.iter().take(ONE_MOVE_TRIES).find_map(|&m| {
        let mut child = *pos;
        child.play_unchecked(m);
        Color::ALL
            .into_iter()
            .filter(|c| sides[c.index()])
            .find_map(|c| proof(&child, c))
    })
}

/// Moves `one_move_away` tries before leaving the position to the cheap line.
const ONE_MOVE_TRIES: usize = 8;

/// The material and pawn conditions of the classes, without the guard.
fn conditions(pos: &Position, winner: Color) -> Option<AliveClass> {
    let ours = pos.by_color(winner);
    let pawns = pos.by_role(Role::Pawn);
    let heavy = pos.by_role(Role::Queen) | pos.by_role(Role::Rook);
    if (ours & (heavy | pawns)).is_empty() {
        return minor_pieces(pos, winner);
    }
    if pawns.is_empty() {
        return (ours & heavy)
            .nonempty()
            .then_some(AliveClass::PawnlessHeavy);
    }
    let theirs = pos.by_color(winner.other());
    let heavy_both = (ours & heavy).nonempty() && (theirs & heavy).nonempty();
    if !heavy_both && (ours & pawns).is_empty() {
        return None;
    }
    let white = pos.pieces(Color::White, Role::Pawn);
    let black = pos.pieces(Color::Black, Role::Pawn);
    let kings = pos.by_role(Role::King);
    // A pawn that can never advance: in front of it an enemy pawn, or the enemy king.
    let by_king = (white.shift_up(1) & kings & pos.by_color(Color::Black))
        | (black.shift_down(1) & kings & pos.by_color(Color::White));
    let jammed = white.shift_up(1) & black;
    if by_king.nonempty() {
        return None;
    }
    if !heavy_both {
        return jammed.is_empty().then_some(AliveClass::FreePawns);
    }
    if jammed.is_empty() {
        return Some(AliveClass::Unlocked);
    }
    (0..8)
        .any(|f| (pawns & Bitboard::from_file(File(f))).is_empty())
        .then_some(AliveClass::OpenFile)
}

/// `MinorPieces`' material, the caller having found no pawn, rook or queen of `winner`:
/// the material of the corner-mate stage (`corner::applies`) that no lemma rules out.
fn minor_pieces(pos: &Position, winner: Color) -> Option<AliveClass> {
    let heavy = pos.by_role(Role::Pawn) | pos.by_role(Role::Rook) | pos.by_role(Role::Queen);
    let men = |c: Color| (pos.by_color(c) & !pos.by_role(Role::King)).count();
    let applies = heavy.is_empty() && (1..=2).contains(&men(winner)) && men(winner.other()) <= 2;
    (applies && super::material::cannot_win(pos, winner).is_none())
        .then_some(AliveClass::MinorPieces)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::laws::dead::{Budget, Deadness, deadness_searched};

    fn class(fen: &str, side: Color) -> Option<AliveClass> {
        proof(&Position::from_fen(fen).unwrap(), side)
    }

    fn searched(fen: &str) -> Deadness {
        deadness_searched(&Position::from_fen(fen).unwrap(), Budget::default())
    }

    #[test]
    fn pawnless_heavy_needs_a_queen_or_rook_and_no_pawn() {
        let krk = "8/8/4k3/8/8/8/8/4K2R w - - 0 1";
        assert_eq!(class(krk, Color::White), Some(AliveClass::PawnlessHeavy));
        assert_eq!(class(krk, Color::Black), None);
        assert_eq!(searched(krk), Deadness::Alive);
        // Minor pieces only: left to the searches (K+B v K is dead).
        assert_eq!(class("8/8/4k3/8/8/8/8/4K2B w - - 0 1", Color::White), None);
        // One pawn anywhere takes the position out of the class (here into `FreePawns`, the
        // pawn being free; the bare king still cannot win).
        let pawn = "8/8/4k3/8/8/8/P7/4K2R w - - 0 1";
        assert_eq!(class(pawn, Color::White), Some(AliveClass::FreePawns));
        assert_eq!(class(pawn, Color::Black), None);
    }

    #[test]
    fn unlocked_stops_at_a_blocked_file() {
        // a5 against a7 is free (no pawn in front of an enemy pawn): the class applies.
        let free = "r3k3/p1p5/8/P7/8/8/1P6/R3K3 w - - 0 1";
        assert_eq!(class(free, Color::White), Some(AliveClass::Unlocked));
        assert_eq!(class(free, Color::Black), Some(AliveClass::Unlocked));
        assert_eq!(searched(free), Deadness::Alive);
        // One step further the a-pawns block each other: not `Unlocked`, but the files
        // beside them are open.
        let blocked = "r3k3/p1p5/P7/8/8/8/1P6/R3K3 w - - 0 1";
        assert_eq!(class(blocked, Color::White), Some(AliveClass::OpenFile));
        assert_eq!(searched(blocked), Deadness::Alive);
        // Jammed pairs on the a-, c-, e- and g-files, with the files between them open:
        // the rooks cross there (Rh8 mates behind the pawns), so `OpenFile` claims it.
        let gaps = "1k1r4/p1p1p1p1/P1P1P1P1/8/8/8/8/R3K3 w - - 0 1";
        assert_eq!(class(gaps, Color::White), Some(AliveClass::OpenFile));
        assert_eq!(class(gaps, Color::Black), Some(AliveClass::OpenFile));
        assert_eq!(searched(gaps), Deadness::Alive);
    }

    #[test]
    fn open_file_class_needs_a_file_without_pawns() {
        // A wall over all eight files, no pawn able to take another: no class claims it
        // (it is alive, but only because a rook can give itself up to a pawn of the wall
        // and open it, which is for the searches to find).
        let wall = "r3k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/8/R3K3 w - - 0 1";
        assert_eq!(class(wall, Color::White), None);
        assert_eq!(class(wall, Color::Black), None);
        assert_eq!(searched(wall), Deadness::Alive);
        // Without the rooks nothing can open it: dead only because of the blocked files.
        let bare = "4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/8/4K3 w - - 0 1";
        assert_eq!(class(bare, Color::White), None);
        assert_eq!(searched(bare), Deadness::Dead);
        // The h-pawns gone, the h-file is open: the rooks and kings cross, and both sides
        // can mate again.
        let open = "r3k3/8/1p1p1p2/pPpPpPp1/P1P1P1P1/8/8/R3K3 w - - 0 1";
        assert_eq!(class(open, Color::White), Some(AliveClass::OpenFile));
        assert_eq!(class(open, Color::Black), Some(AliveClass::OpenFile));
        assert_eq!(searched(open), Deadness::Alive);
        // A pawn standing in front of the enemy king is left to the searches, open file or
        // not (the king may be held there, as in the tempo position below).
        let held = "r7/8/1p1p1p2/pPpPpPp1/P1P1P1P1/k7/P7/4K2R w - - 0 1";
        assert_eq!(class(held, Color::White), None);
        // Six men, the rooks crossing on the open files.
        let six = "r3k3/8/p7/P7/8/8/8/R3K3 w - - 0 1";
        assert_eq!(class(six, Color::White), Some(AliveClass::OpenFile));
        assert_eq!(searched(six), Deadness::Alive);
    }

    #[test]
    fn free_pawns_need_every_pawn_free() {
        // Pawns on both wings, none facing another or a king: either side promotes and mates.
        let free = "4k3/ppp5/8/8/8/8/PPP5/4K3 w - - 0 1";
        assert_eq!(class(free, Color::White), Some(AliveClass::FreePawns));
        assert_eq!(class(free, Color::Black), Some(AliveClass::FreePawns));
        assert_eq!(searched(free), Deadness::Alive);
        // Any count of men: K+P v K, the pawn free, promotes and mates; the bare king
        // cannot.
        let kpk = "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1";
        assert_eq!(class(kpk, Color::White), Some(AliveClass::FreePawns));
        assert_eq!(class(kpk, Color::Black), None);
        assert_eq!(searched(kpk), Deadness::Alive);
        // One head-on pair anywhere takes the position out of the class, open files or not.
        let jammed = "4k3/1pp5/8/p7/P7/8/1PP5/4K3 w - - 0 1";
        assert_eq!(class(jammed, Color::White), None);
        assert_eq!(class(jammed, Color::Black), None);
        assert_eq!(searched(jammed), Deadness::Alive);
        // A pawn stopped by the enemy king: left to the searches.
        let held = "8/ppp1k3/4P3/8/8/8/PP6/4K3 w - - 0 1";
        assert_eq!(class(held, Color::White), None);
        assert_eq!(class(held, Color::Black), None);
        // Minor pieces without a pawn claim nothing; the side with the pawns is in the class.
        let minors = "4k3/pppp4/8/8/8/8/8/2BNK3 w - - 0 1";
        assert_eq!(class(minors, Color::White), None);
        assert_eq!(class(minors, Color::Black), Some(AliveClass::FreePawns));
        // In check (the knight on d3): forced play, left to the searches.
        let check = "4k3/ppp5/8/8/8/3n4/PPP5/4K3 w - - 0 1";
        assert_eq!(class(check, Color::White), None);
        assert_eq!(class(check, Color::Black), None);
        assert_eq!(searched(check), Deadness::Alive);
    }

    #[test]
    fn free_pawns_in_small_endings_stand_aside_for_forced_play() {
        // D3-Chess: White's king has no quiet step (the queen holds g1, g2, h2), so White
        // must push a6+, and the pawns then run out of moves: dead only by the tempo count,
        // though both sides have a free pawn (and Black a queen).
        let tempo = "8/pk6/8/P7/8/8/5q2/7K w - - 0 1";
        let pos = Position::from_fen(tempo).unwrap();
        assert_eq!(conditions(&pos, Color::White), Some(AliveClass::FreePawns));
        assert_eq!(conditions(&pos, Color::Black), Some(AliveClass::FreePawns));
        assert_eq!(class(tempo, Color::White), None);
        assert_eq!(class(tempo, Color::Black), None);
        assert_eq!(searched(tempo), Deadness::Dead);
        // D3-Chess: in check from the pawn, Black's only move is Kh8, after which it has no
        // move unless White gives one: White cannot win.
        let check = "6k1/7P/4N1K1/8/8/8/8/8 b - - 0 1";
        let pos = Position::from_fen(check).unwrap();
        assert_eq!(conditions(&pos, Color::White), Some(AliveClass::FreePawns));
        assert_eq!(class(check, Color::White), None);
        assert_eq!(searched(check), Deadness::Dead);
        // D3-Chess: Black's pawn can advance only once its own king, boxed in on h1, has
        // moved, which it never can: Black cannot win, its king having no quiet step.
        let boxed = "B7/8/8/8/4r3/8/7p/5K1k w - - 0 1";
        let pos = Position::from_fen(boxed).unwrap();
        assert_eq!(conditions(&pos, Color::Black), Some(AliveClass::FreePawns));
        assert_eq!(class(boxed, Color::Black), None);
        assert!(
            crate::laws::dead::analyse_side(&pos, Color::Black, Budget::default()).cannot_win()
        );
    }

    #[test]
    fn unlocked_needs_both_sides_free_to_wait() {
        // D3-Chess: White cannot win. Black's king is held on b8 by the b-pawns, one of
        // them standing in front of it, and Black runs out of moves (stalemate) before
        // White can bring a man to check: dead only by the tempo count. Neither condition
        // of the class holds (no heavy piece; a pawn stopped by the enemy king).
        let tempo = "1k6/1P5p/BP3p2/1P6/8/8/5PKP/8 b - - 0 1";
        assert_eq!(class(tempo, Color::White), None);
        // The same with rooks for both sides is claimed only without the king block.
        let rooks = "1k5r/1P5p/BP3p2/1P6/8/8/5PKP/R7 b - - 0 1";
        assert_eq!(class(rooks, Color::White), None);
        let kings_free = "3k3r/1P5p/BP3p2/1P6/8/8/5PKP/R7 b - - 0 1";
        assert_eq!(class(kings_free, Color::White), Some(AliveClass::Unlocked));
        assert_eq!(searched(kings_free), Deadness::Alive);
        // The smallest endings with a rook each: six men, and K+R+P v K+R.
        let six = "r3k3/p7/8/8/8/8/P7/R3K3 w - - 0 1";
        assert_eq!(class(six, Color::White), Some(AliveClass::Unlocked));
        assert_eq!(searched(six), Deadness::Alive);
        let five = "r3k3/8/8/8/8/8/P7/R3K3 b - - 0 1";
        assert_eq!(class(five, Color::White), Some(AliveClass::Unlocked));
        assert_eq!(class(five, Color::Black), Some(AliveClass::Unlocked));
        assert_eq!(searched(five), Deadness::Alive);
    }

    /// A final in check reaches a class by one legal move; a forced line whose only move
    /// takes the mating material reaches none, and stays with the searches.
    #[test]
    fn one_move_away_reaches_a_class_only_through_a_legal_move() {
        let check = Position::from_fen("r3k3/pp6/8/8/8/8/PP6/R3K2r w Q - 0 1").unwrap();
        assert_eq!(proof(&check, Color::White), None);
        assert_eq!(proof(&check, Color::Black), None);
        assert_eq!(one_move_away(&check), Some(AliveClass::Unlocked));
        assert_eq!(
            deadness_searched(&check, Budget::default()),
            Deadness::Alive
        );
        // Black's only move takes the rook: no class one move on, and the position is dead.
        let forced = Position::from_fen("k7/1R6/8/8/8/8/8/7K b - - 0 1").unwrap();
        assert_eq!(one_move_away(&forced), None);
        assert_eq!(
            deadness_searched(&forced, Budget::default()),
            Deadness::Dead
        );
        // Material in no class: nothing is tried.
        let minor = Position::from_fen("8/8/4k3/8/8/8/8/4K2B w - - 0 1").unwrap();
        assert_eq!(one_move_away(&minor), None);
    }

    #[test]
    fn minor_pieces_need_material_no_lemma_rules_out() {
        // K+N v K+B (a master game's final): each side mates in a corner with the other's
        // piece beside its king.
        let nb = "8/8/5K1N/5b2/5k2/8/8/8 w - - 0 80";
        assert_eq!(class(nb, Color::White), Some(AliveClass::MinorPieces));
        assert_eq!(class(nb, Color::Black), Some(AliveClass::MinorPieces));
        assert_eq!(searched(nb), Deadness::Alive);
        // Bishops on opposite colours: the loser's bishop fills the other colour's square.
        let opposite = "2b1k3/8/8/8/8/8/8/2B1K3 w - - 0 1";
        assert_eq!(class(opposite, Color::White), Some(AliveClass::MinorPieces));
        assert_eq!(searched(opposite), Deadness::Alive);
        // On the same colour a lemma rules both out: dead, and no class claims it.
        let same = "2b1k3/8/8/8/8/8/8/4KB2 w - - 0 1";
        assert_eq!(class(same, Color::White), None);
        assert_eq!(class(same, Color::Black), None);
        assert_eq!(searched(same), Deadness::Dead);
        // A lone knight against a bare king, and a third piece (left to the searches).
        assert_eq!(class("4k3/8/8/8/8/8/8/4KN2 w - - 0 1", Color::White), None);
        assert_eq!(
            class("4k3/8/8/8/8/8/8/2BNKB2 w - - 0 1", Color::White),
            None
        );
    }

    #[test]
    fn minor_pieces_stand_aside_for_forced_play() {
        // D3-Chess: in check from the knight, Black's only move takes it: White cannot win,
        // and the position is dead, only because of that forced capture.
        let check = "kb6/2N5/1K6/8/8/8/8/8 b - - 0 50";
        let pos = Position::from_fen(check).unwrap();
        assert_eq!(
            conditions(&pos, Color::White),
            Some(AliveClass::MinorPieces)
        );
        assert_eq!(class(check, Color::White), None);
        assert_eq!(one_move_away(&pos), None);
        assert_eq!(searched(check), Deadness::Dead);
        // D3-Chess: not in check, but Black's king has no quiet step and its only move
        // takes the knight on a2: dead by a tempo.
        let forced = "8/8/8/8/8/8/N7/kNK5 b - - 0 1";
        let pos = Position::from_fen(forced).unwrap();
        assert_eq!(
            conditions(&pos, Color::White),
            Some(AliveClass::MinorPieces)
        );
        assert_eq!(class(forced, Color::White), None);
        assert_eq!(searched(forced), Deadness::Dead);
        // The king one square further off: a quiet step, and the class applies.
        let free = "8/8/8/8/8/8/N7/1NK4k b - - 0 1";
        assert_eq!(class(free, Color::White), Some(AliveClass::MinorPieces));
        assert_eq!(searched(free), Deadness::Alive);
    }

    #[test]
    fn forced_play_is_left_to_the_searches() {
        // K+R v K, Black to move, not in check: its king's only move takes the rook, so
        // White cannot win (dead only by that one forced capture).
        let forced = "k7/1R6/8/8/8/8/8/7K b - - 0 1";
        let pos = Position::from_fen(forced).unwrap();
        assert_eq!(
            conditions(&pos, Color::White),
            Some(AliveClass::PawnlessHeavy)
        );
        assert_eq!(class(forced, Color::White), None);
        assert_eq!(searched(forced), Deadness::Dead);
        // One square further the king has a quiet step and the class applies.
        let free = "k7/2R5/8/8/8/8/8/7K b - - 0 1";
        assert_eq!(class(free, Color::White), Some(AliveClass::PawnlessHeavy));
        assert_eq!(searched(free), Deadness::Alive);
        // D3-Chess: in check, the only move takes the rook.
        let check = "Rk6/8/2K5/8/8/8/8/8 b - - 0 1";
        let pos = Position::from_fen(check).unwrap();
        assert_eq!(
            conditions(&pos, Color::White),
            Some(AliveClass::PawnlessHeavy)
        );
        assert_eq!(class(check, Color::White), None);
        // D3-Chess: Black's rook pinned, its king without a square; every White move mates
        // or stalemates: Black cannot win, dead only because of the pin.
        let pinned = "7k/5Qr1/4QQQ1/4QQ2/8/8/P7/K7 w - - 0 1";
        let pos = Position::from_fen(pinned).unwrap();
        assert_eq!(conditions(&pos, Color::Black), Some(AliveClass::Unlocked));
        assert_eq!(class(pinned, Color::Black), None);
    }
}
