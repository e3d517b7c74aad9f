//! Legal move generation straight into a `MoveList`: check evasion masks, pins along the
//! line to the king, en passant tested by removing both pawns, and Chess960 castling under
//! Guidelines II of the FIDE Laws (2017): empty path except king and rook, king not attacked.

use super::attacks;
use super::bitboard::Bitboard;
use super::moves::{Move, MoveBuf, MoveList, TargetMoves};
use super::position::Position;
use super::types::{CastlingSide, Color, Rank, Role, Square};

impl Position {
    /// All legal moves.
    #[inline]
    pub fn generate_legal(&self, list: &mut MoveList) {
        self.generate_legal_from(list, Bitboard::FULL, Bitboard::FULL);
    }

    /// Legal moves whose origin is in `from_mask` and destination in `to_mask` (castling
    /// counts the rook's square as destination).
    pub fn generate_legal_from(&self, list: &mut MoveList, from_mask: Bitboard, to_mask: Bitboard) {
        let us = self.turn();
        let them = us.other();
        let king = self.king_of(us);
        let ours = self.by_color(us);
        let theirs = self.by_color(them);
        let occupied = ours | theirs;
        let checkers = self.checkers();

        if from_mask.contains(king) {
            self.king_moves(list, king, to_mask & !ours);
            if checkers.is_empty() {
                self.castling_moves(list, king, to_mask);
            }
        }
        if checkers.more_than_one() {
            return;
        }
        // With one checker: capture it or block the line.
        let target = match checkers.first() {
            Some(c) => attacks::between(king, c) | Bitboard::from_square(c),
            None => !ours,
        } & to_mask;

        let pinned = self.pinned(us, king);
        let movable = ours & from_mask;

        for from in movable & self.by_role(Role::Knight) & !pinned {
            for to in attacks::knight_attacks(from) & target {
                list.push(Move::normal(from, to));
            }
        }
        let diag = self.by_role(Role::Bishop) | self.by_role(Role::Queen);
        let orth = self.by_role(Role::Rook) | self.by_role(Role::Queen);
        for from in movable & diag {
            let mut dests = attacks::bishop_attacks(from, occupied) & target;
            if pinned.contains(from) {
                dests &= attacks::line(king, from);
            }
            for to in dests {
                list.push(Move::normal(from, to));
            }
        }
        for from in movable & orth {
            let mut dests = attacks::rook_attacks(from, occupied) & target;
            if pinned.contains(from) {
                dests &= attacks::line(king, from);
            }
            for to in dests {
                list.push(Move::normal(from, to));
            }
        }
        self.pawn_moves(
            list,
            movable & self.by_role(Role::Pawn),
            target,
            pinned,
            king,
            checkers,
            to_mask,
        );
    }

    /// Legal non-castling moves of our pieces of `role` onto `to` (all four promotions for a
    /// pawn reaching the last rank). Much cheaper than generating every move: this is what
    /// SAN resolution uses on every ply of every game.
    pub fn legal_moves_to(&self, role: Role, to: Square, list: &mut TargetMoves) {
        let us = self.turn();
        let them = us.other();
        let ours = self.by_color(us);
        if ours.contains(to) {
            return;
        }
        let occupied = self.occupied();
        let king = self.king_of(us);
        let mine = self.pieces(us, role);
        if role == Role::King {
            if attacks::king_attacks(to).contains(king)
                && !self.is_attacked_with(to, them, occupied - Bitboard::from_square(king))
            {
                list.push(Move::normal(king, to));
            }
            return;
        }
        let checkers = self.checkers();
        if checkers.more_than_one() {
            return;
        }
        let origins = match role {
            Role::Knight => attacks::knight_attacks(to) & mine,
            Role::Bishop => attacks::bishop_attacks(to, occupied) & mine,
            Role::Rook => attacks::rook_attacks(to, occupied) & mine,
            Role::Queen => attacks::queen_attacks(to, occupied) & mine,
            Role::Pawn => {
                let last_rank = match us {
                    Color::White => Rank(7),
                    Color::Black => Rank(0),
                };
                if self.ep_square() == Some(to) {
                    for from in attacks::pawn_attacks(them, to) & mine {
                        if self.ep_is_legal(from, to) {
                            list.push(Move::en_passant(from, to));
                        }
                    }
                    return;
                }
                let mut origins = Bitboard::EMPTY;
                if self.by_color(them).contains(to) {
                    origins |= attacks::pawn_attacks(them, to) & mine;
                } else {
                    let back: i8 = if us == Color::White { -8 } else { 8 };
                    if let Some(one) = to.offset(back) {
                        if mine.contains(one) {
                            origins.add(one);
                        } else if !occupied.contains(one)
                            && let Some(two) = one.offset(back)
                            && mine.contains(two)
                            && two.rank() == Rank(if us == Color::White { 1 } else { 6 })
                        {
                            origins.add(two);
                        }
                    }
                }
                for from in origins {
                    if self.safe_after(from, to, king, checkers) {
                        push_pawn_move(list, from, to, last_rank);
                    }
                }
                return;
            }
            Role::King => Bitboard::EMPTY,
        };
        for from in origins {
            if self.safe_after(from, to, king, checkers) {
                list.push(Move::normal(from, to));
            }
        }
    }

    /// Is our king safe after a piece other than the king moves `from` → `to` (no en
    /// passant)? `checkers` are the pieces checking us now, at most one.
    #[inline]
    pub(crate) fn safe_after(
        &self,
        from: Square,
        to: Square,
        king: Square,
        checkers: Bitboard,
    ) -> bool {
        if let Some(c) = checkers.first()
            && !(attacks::between(king, c) | Bitboard::from_square(c)).contains(to)
        {
            return false;
        }
        !self.exposes_king(from, to, king)
    }

    /// Would moving a piece other than the king from `from` to `to` (no en passant) open a
    /// line from an enemy slider to our king on `king`? The checker, if any, is not asked
    /// about: callers test that `to` captures or blocks it. What is left is a slider behind
    /// `from` on its line to the king, found with the small ray tables, not the magic or
    /// `line` tables: this runs for every candidate of every SAN move. Sliders on the king's
    /// other lines of the same kind are blocked before the move and after it.
    #[inline(always)]
    pub(crate) fn exposes_king(&self, from: Square, to: Square, king: Square) -> bool {
        let queens = self.by_role(Role::Queen);
        let theirs = self.by_color(self.turn().other()) - Bitboard::from_square(to);
        let occupied = (self.occupied() - Bitboard::from_square(from)) | Bitboard::from_square(to);
        // Only sliders on the line through the king and `from` can be let through (the
        // others are blocked before the move and after it); both sets are nearly always
        // empty.
        let (rook_line, bishop_line) = attacks::lines_through(king, from);
        let rook_snipers = rook_line & (self.by_role(Role::Rook) | queens) & theirs;
        let bishop_snipers = bishop_line & (self.by_role(Role::Bishop) | queens) & theirs;
        rook_snipers
            .into_iter()
            .any(|s| (attacks::between_orthogonal(king, s) & occupied).is_empty())
            || bishop_snipers
                .into_iter()
                .any(|s| (attacks::between_diagonal(king, s) & occupied).is_empty())
    }

    fn king_moves(&self, list: &mut MoveList, king: Square, dests: Bitboard) {
        let them = self.turn().other();
        // The king must not hide behind itself from a slider: test with it lifted off.
        let occupied = self.occupied() - Bitboard::from_square(king);
        for to in attacks::king_attacks(king) & dests {
            if !self.is_attacked_with(to, them, occupied) {
                list.push(Move::normal(king, to));
            }
        }
    }

    fn castling_moves(&self, list: &mut MoveList, king: Square, to_mask: Bitboard) {
        for side in CastlingSide::ALL {
            if let Some(m) = self.castle_if_legal(king, side, to_mask) {
                list.push(m);
            }
        }
    }

    /// Castling to `side` when the right exists, the rook's square is in `to_mask` and the
    /// move is legal, assuming the side to move (king on `king`) is not in check.
    #[inline]
    pub(crate) fn castle_if_legal(
        &self,
        king: Square,
        side: CastlingSide,
        to_mask: Bitboard,
    ) -> Option<Move> {
        let us = self.turn();
        let them = us.other();
        let rank = us.back_rank();
        let rook = self.castling().rook(us, side)?;
        if !to_mask.contains(rook) {
            return None;
        }
        let king_to = Square::from_coords(side.king_to_file(), rank);
        let rook_to = Square::from_coords(side.rook_to_file(), rank);
        let movers = Bitboard::from_square(king) | Bitboard::from_square(rook);
        let king_path = attacks::between(king, king_to) | Bitboard::from_square(king_to);
        let rook_path = attacks::between(rook, rook_to) | Bitboard::from_square(rook_to);
        let others = self.occupied() - movers;
        if ((king_path | rook_path) & others).nonempty() {
            return None;
        }
        // The castling rook is lifted too: it may be screening a square of the king's path.
        if king_path
            .into_iter()
            .any(|sq| self.is_attacked_with(sq, them, others))
        {
            return None;
        }
        Some(Move::castle(king, rook))
    }

    #[allow(clippy::too_many_arguments)]
    fn pawn_moves(
        &self,
        list: &mut MoveList,
        pawns: Bitboard,
        target: Bitboard,
        pinned: Bitboard,
        king: Square,
        checkers: Bitboard,
        to_mask: Bitboard,
    ) {
        if pawns.is_empty() {
            return;
        }
        let us = self.turn();
        let theirs = self.by_color(us.other());
        let empty = !self.occupied();
        let (forward, start_rank, last_rank): (i8, Rank, Rank) = match us {
            Color::White => (8, Rank(1), Rank(7)),
            Color::Black => (-8, Rank(6), Rank(0)),
        };
        let unpinned = pawns - pinned;

        // Pushes, done set-wise for unpinned pawns.
        let (single, double) = {
            let one = match us {
                Color::White => unpinned.shift_up(1),
                Color::Black => unpinned.shift_down(1),
            } & empty;
            let start_pushed =
                one & Bitboard::from_rank(Rank(start_rank.0.wrapping_add(forward.signum() as u8)));
            let two = match us {
                Color::White => start_pushed.shift_up(1),
                Color::Black => start_pushed.shift_down(1),
            } & empty;
            (one & target, two & target)
        };
        for to in single {
            let from = Square::new((to.index() as i8 - forward) as u8);
            push_pawn_move(list, from, to, last_rank);
        }
        for to in double {
            let from = Square::new((to.index() as i8 - 2 * forward) as u8);
            list.push(Move::normal(from, to));
        }
        // Captures for unpinned pawns.
        for from in unpinned {
            for to in attacks::pawn_attacks(us, from) & theirs & target {
                push_pawn_move(list, from, to, last_rank);
            }
        }
        // Pinned pawns move only along the pin line (never possible when in check).
        if checkers.is_empty() {
            for from in pawns & pinned {
                let pin_line = attacks::line(king, from);
                for to in attacks::pawn_attacks(us, from) & theirs & target & pin_line {
                    push_pawn_move(list, from, to, last_rank);
                }
                if let Some(one) = from.offset(forward)
                    && empty.contains(one)
                    && pin_line.contains(one)
                {
                    if target.contains(one) {
                        push_pawn_move(list, from, one, last_rank);
                    }
                    if from.rank() == start_rank
                        && let Some(two) = one.offset(forward)
                        && empty.contains(two)
                        && target.contains(two)
                    {
                        list.push(Move::normal(from, two));
                    }
                }
            }
        }
        // En passant: tested in full, since it removes two pieces from one rank.
        if let Some(ep) = self.ep_square()
            && to_mask.contains(ep)
        {
            for from in attacks::pawn_attacks(us.other(), ep) & pawns {
                if self.ep_is_legal(from, ep) {
                    list.push(Move::en_passant(from, ep));
                }
            }
        }
    }

    /// Would capturing en passant from `from` onto `ep` leave our king safe?
    pub(crate) fn ep_is_legal(&self, from: Square, ep: Square) -> bool {
        let us = self.turn();
        let them = us.other();
        let captured = Square::from_coords(ep.file(), from.rank());
        if self
            .piece_at(captured)
            .is_none_or(|p| p.role != Role::Pawn || p.color == us)
        {
            return false;
        }
        let king = self.king_of(us);
        let occupied =
            (self.occupied() - Bitboard::from_square(from) - Bitboard::from_square(captured))
                | Bitboard::from_square(ep);
        let theirs = self.by_color(them) - Bitboard::from_square(captured);
        let rq = (self.by_role(Role::Rook) | self.by_role(Role::Queen)) & theirs;
        let bq = (self.by_role(Role::Bishop) | self.by_role(Role::Queen)) & theirs;
        let leapers = ((attacks::knight_attacks(king) & self.by_role(Role::Knight))
            | (attacks::pawn_attacks(us, king) & self.by_role(Role::Pawn)))
            & theirs;
        (attacks::rook_attacks(king, occupied) & rq).is_empty()
            && (attacks::bishop_attacks(king, occupied) & bq).is_empty()
            && leapers.is_empty()
    }

    /// Our pieces that stand alone between our king and an enemy slider.
    #[inline]
    fn pinned(&self, us: Color, king: Square) -> Bitboard {
        let them = us.other();
        let theirs = self.by_color(them);
        let snipers = ((attacks::rook_attacks(king, Bitboard::EMPTY)
            & (self.by_role(Role::Rook) | self.by_role(Role::Queen)))
            | (attacks::bishop_attacks(king, Bitboard::EMPTY)
                & (self.by_role(Role::Bishop) | self.by_role(Role::Queen))))
            & theirs;
        let occupied = self.occupied();
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = attacks::between(king, sniper) & occupied;
            if !blockers.more_than_one() {
                pinned |= blockers & self.by_color(us);
            }
        }
        pinned
    }
}

#[inline]
fn push_pawn_move<const N: usize>(
    list: &mut MoveBuf<N>,
    from: Square,
    to: Square,
    last_rank: Rank,
) {
    if to.rank() == last_rank {
        for role in Role::PROMOTIONS {
            list.push(Move::promotion(from, to, role));
        }
    } else {
        list.push(Move::normal(from, to));
    }
}
