//! Blocked positions: when every pawn is jammed against a pawn and no man can ever come to
//! take a pawn or be taken by one, the pawn skeleton is permanent; each piece then lives in
//! the set of squares it can reach around it, and a side whose pieces can never attack any
//! square of the enemy king's region can never give check, let alone mate.

use crate::chess::{Bitboard, Color, Position, Role, Square, attacks};

const NOT_A: u64 = 0xfefe_fefe_fefe_fefe;
const NOT_H: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const NOT_AB: u64 = 0xfcfc_fcfc_fcfc_fcfc;
const NOT_GH: u64 = 0x3f3f_3f3f_3f3f_3f3f;

/// Every square one king step from a square of `b`.
fn king_spread(b: u64) -> u64 {
    let h = b | ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    h | (h << 8) | (h >> 8)
}

/// Every square one knight jump from a square of `b`.
fn knight_spread(b: u64) -> u64 {
    let l1 = (b >> 1) & NOT_H;
    let l2 = (b >> 2) & NOT_GH;
    let r1 = (b << 1) & NOT_A;
    let r2 = (b << 2) & NOT_AB;
    let h1 = l1 | r1;
    let h2 = l2 | r2;
    (h1 << 16) | (h1 >> 16) | (h2 << 8) | (h2 >> 8)
}

/// Squares attacked by the pawns `pawns` of `color`.
fn pawn_spread(color: Color, pawns: u64) -> u64 {
    match color {
        Color::White => ((pawns << 7) & NOT_H) | ((pawns << 9) & NOT_A),
        Color::Black => ((pawns >> 9) & NOT_H) | ((pawns >> 7) & NOT_A),
    }
}

/// Squares a piece of `role` attacks from any square of `from`, pawns as the only obstacles.
/// A king's set keeps `from` itself: a pawn may later walk onto a square of the king's
/// region, and the king could then take it there.
fn attacks_from(role: Role, from: u64, pawns: Bitboard) -> u64 {
    match role {
        Role::King => king_spread(from),
        Role::Knight => knight_spread(from),
        Role::Bishop | Role::Rook | Role::Queen => {
            let mut out = 0;
            for sq in Bitboard(from) {
                out |= slider(role, sq, pawns).0;
            }
            out
        }
        Role::Pawn => 0,
    }
}

fn slider(role: Role, sq: Square, occ: Bitboard) -> Bitboard {
    match role {
        Role::Bishop => attacks::bishop_attacks(sq, occ),
        Role::Rook => attacks::rook_attacks(sq, occ),
        _ => attacks::queen_attacks(sq, occ),
    }
}

/// The roles whose men live in regions (pawns apart), king first.
const KING_AND_PIECES: [Role; 5] = [
    Role::King,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

/// A region found before: the role, the squares allowed and the obstacles it was found
/// with, then the region and the squares its piece attacks from it.
type RegionEntry = (Role, u64, u64, u64, u64);

/// Buckets of the per-thread region cache, by role, allowed squares and obstacles; each
/// holds the last regions found for them.
const REGION_BUCKETS: usize = 64;
const REGION_WAYS: usize = 4;

thread_local! {
    /// Pieces move inside their regions while the pawns stand, so the searches, which ask
    /// `cannot_win` at every node, find the same regions again and again (flooding them
    /// anew was a tenth of the D3-Chess vector's instructions).
    static REGIONS: std::cell::RefCell<[[Option<RegionEntry>; REGION_WAYS]; REGION_BUCKETS]> =
        const { std::cell::RefCell::new([[None; REGION_WAYS]; REGION_BUCKETS]) };
}

/// `region` and the squares a piece of `role` attacks from it, from the per-thread cache
/// when a region for these `allowed` squares and obstacles holding `from` was found before.
/// A cached region is the right one because reaching is symmetric here: every square of
/// a region but its start is allowed, and a piece's start is too (a king never stands
/// where an enemy pawn attacks it), so the region of any of its squares is the same set.
fn region_and_hits(role: Role, from: Square, allowed: u64, pawns: Bitboard) -> (u64, u64) {
    let at = 1u64 << from.index();
    if allowed & at == 0 {
        let reach = region(role, from, allowed, pawns);
        return (reach, attacks_from(role, reach, pawns));
    }
    let mix = (allowed ^ pawns.0.rotate_left(29) ^ role.index() as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let bucket = (mix >> 58) as usize % REGION_BUCKETS;
    REGIONS.with_borrow_mut(|cache| {
        let ways = &mut cache[bucket];
        for &(r, a, p, reach, hits) in ways.iter().flatten() {
            if r == role && a == allowed && p == pawns.0 && reach & at != 0 {
                return (reach, hits);
            }
        }
        let reach = region(role, from, allowed, pawns);
        let hits = attacks_from(role, reach, pawns);
        // The oldest of the bucket's regions makes room.
        ways.rotate_right(1);
        ways[0] = Some((role, allowed, pawns.0, reach, hits));
        (reach, hits)
    })
}

/// The squares a piece of `role` standing on `from` can ever reach, moving only over
/// `allowed` squares (pawns as the only obstacles).
fn region(role: Role, from: Square, allowed: u64, pawns: Bitboard) -> u64 {
    let mut reached = 1u64 << from.index();
    let mut frontier = reached;
    while frontier != 0 {
        let next = attacks_from(role, frontier, pawns) & allowed & !reached;
        reached |= next;
        frontier = next;
    }
    reached
}

/// Where the pawns can ever stand when none of them ever captures. Every pawn must have
/// a stopper ahead of it on its file: an enemy pawn (the two can only close in on each
/// other) or a `wall`, a king shown never to move. A pawn then moves at most up to its
/// stopper's square, less one square for each man in between.
#[derive(Clone, Copy)]
struct Paths {
    /// Every square each side's pawns can ever stand on.
    ever: [u64; 2],
    /// Pawns that can never move (their path is their square).
    fixed: [u64; 2],
}

/// The pawns' paths, by fills along the files: a pawn walks up (White) or down (Black)
/// until the first man that is not a pawn of its side (an enemy pawn or a wall), behind the
/// pawns of its side in between, so the squares its side's pawns may ever stand on are
/// those from each pawn up to that stopper, and a pawn never moves when only pawns of its
/// side stand between it and the stopper. `None` when a pawn has no stopper on its file.
/// A few dozen instructions: the searches ask at every node, and neither a per-thread cache
/// of the paths by pawns (its misses, for the many pawn structures an exhaustive walk
/// meets, scanned all 64 squares) nor a walk over each file's men was as fast.
fn pawn_paths(white_pawns: u64, black_pawns: u64, walls: u64) -> Option<Paths> {
    let white_stoppers = black_pawns | walls;
    let black_stoppers = white_pawns | walls;
    if white_pawns & !fill_down(white_stoppers >> 8) != 0
        || black_pawns & !fill_up(black_stoppers << 8) != 0
    {
        return None;
    }
    Some(Paths {
        ever: [
            occluded_fill_up(white_pawns, !white_stoppers),
            occluded_fill_down(black_pawns, !black_stoppers),
        ],
        fixed: [
            occluded_fill_down(white_pawns & (white_stoppers >> 8), white_pawns),
            occluded_fill_up(black_pawns & (black_stoppers << 8), black_pawns),
        ],
    })
}

/// `b` and the squares above each of its squares on the file for as long as they are in
/// `through`.
#[inline]
fn occluded_fill_up(mut b: u64, mut through: u64) -> u64 {
    b |= through & (b << 8);
    through &= through << 8;
    b |= through & (b << 16);
    through &= through << 16;
    b | (through & (b << 32))
}

/// `b` and the squares below each of its squares on the file for as long as they are in
/// `through`.
#[inline]
fn occluded_fill_down(mut b: u64, mut through: u64) -> u64 {
    b |= through & (b >> 8);
    through &= through >> 8;
    b |= through & (b >> 16);
    through &= through >> 16;
    b | (through & (b >> 32))
}

/// Proves that `winner` can never give check, when no pawn can ever capture or be captured.
/// Pawns that can still advance are allowed when each will be stopped on its file; their
/// whole paths then count as places they may be (for captures and checks) and only the
/// pawns that can never move count as obstacles (for the pieces' regions).
/// Returns false whenever the argument does not apply (it never guesses).
pub fn cannot_win(pos: &Position, winner: Color) -> bool {
    let pawns = pos.by_role(Role::Pawn);
    if pawns.is_empty() || pos.ep_square().is_some() || pos.is_check() {
        return false;
    }
    // The search asks this at every node: first a few shifts to see that each pawn has
    // something ahead of it on its file that could stop it.
    let white_pawns = pos.pieces(Color::White, Role::Pawn).0;
    let black_pawns = pos.pieces(Color::Black, Role::Pawn).0;
    let kings = pos.by_role(Role::King).0;
    let stopped_white = fill_down((black_pawns | kings) >> 8);
    let stopped_black = fill_up((white_pawns | kings) << 8);
    if white_pawns & !stopped_white != 0 || black_pawns & !stopped_black != 0 {
        return false;
    }
    if skeleton_proof(pos, winner, 0) {
        return true;
    }
    // A king right next to a pawn on its file may be what stops that pawn for good (a
    // king in the corner behind an enemy pawn); the proof then checks it never moves.
    let walls = kings & (pawns.0 << 8 | pawns.0 >> 8);
    walls != 0 && skeleton_proof(pos, winner, walls)
}

/// A wider form of the skeleton argument for the complete stages (it costs more than
/// `cannot_win`, and only runs once per side, before the search): a wall of pawns jammed
/// head to head that no man can ever take splits the board, while other pawns may still
/// move, be taken by a king or a piece, or stand in front of each other. Returns false
/// whenever the argument does not apply.
///
/// The wall `F` starts as every pawn with an enemy pawn right ahead of it; a pair leaves
/// it when a king (where no wall pawn defends the square) or a piece may ever attack
/// either pawn, the regions being worked out with the wall as the only obstacle, until
/// nothing changes. Every other pawn moves along its file up to a stopper it can never
/// pass: a wall pawn, or an enemy pawn that nothing can ever take (no enemy king or piece
/// attacks its file up to the wall) at its square now (it only comes closer); a pawn
/// with no stopper could promote, and the argument fails. Invariant, by induction over
/// the moves: the wall stands, each other pawn is on its path or gone, every piece and
/// king is in its region. Pushes keep it (stoppers hold); no pawn ever takes, as no enemy
/// pawn's path nor enemy piece's region meets the squares it may attack (kings are never
/// taken), so there is no promotion and no file change; a king never steps where a wall
/// pawn attacks; nothing takes a wall pawn. A piece whose every move lands on a wall
/// pawn (a sentry) never moves, and when no enemy man can ever attack its square it is a
/// permanent obstacle for its own king. Then the count of `no_mate_square` decides, with
/// the loser's men on their paths and regions (2017 Art. 5.2.2, 6.9).
pub fn cannot_win_wide(pos: &Position, winner: Color) -> bool {
    let pawns = pos.by_role(Role::Pawn);
    if pawns.is_empty() || pos.ep_square().is_some() || pos.is_check() {
        return false;
    }
    let pawns_of = [
        pos.pieces(Color::White, Role::Pawn).0,
        pos.pieces(Color::Black, Role::Pawn).0,
    ];
    let mut wall = [
        pawns_of[0] & (pawns_of[1] >> 8),
        pawns_of[1] & (pawns_of[0] << 8),
    ];
    // Men other than pawns, with their regions: found again each round.
    let mut kings = [0u64; 2];
    let mut king_hits = [0u64; 2];
    let mut piece_hits = [0u64; 2];
    let mut piece_reach = [0u64; 2];
    let mut wall_attacks;
    loop {
        let blockers = Bitboard(wall[0] | wall[1]);
        wall_attacks = [
            pawn_spread(Color::White, wall[0]),
            pawn_spread(Color::Black, wall[1]),
        ];
        for color in Color::ALL {
            let (us, them) = (color.index(), color.other().index());
            let allowed = !blockers.0 & !wall_attacks[them];
            kings[us] = region(Role::King, pos.king_of(color), allowed, blockers);
            king_hits[us] = king_spread(kings[us]);
            piece_hits[us] = 0;
            piece_reach[us] = 0;
            for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
                for sq in pos.pieces(color, role) {
                    let reach = region(role, sq, !blockers.0, blockers);
                    piece_reach[us] |= reach;
                    piece_hits[us] |= attacks_from(role, reach, blockers);
                }
            }
        }
        // Wall pawns an enemy man may take, and their partners.
        let white_hit = wall[0] & (piece_hits[1] | (king_hits[1] & !wall_attacks[0]));
        let black_hit = wall[1] & (piece_hits[0] | (king_hits[0] & !wall_attacks[1]));
        let broken = white_hit | black_hit | (white_hit << 8) | (black_hit >> 8);
        if broken & (wall[0] | wall[1]) == 0 {
            break;
        }
        wall[0] &= !broken;
        wall[1] &= !broken;
    }
    let all_wall = wall[0] | wall[1];
    // The other pawns' paths.
    let mut ever = wall;
    for color in Color::ALL {
        let (us, them) = (color.index(), color.other().index());
        for sq in Bitboard(pawns_of[us] & !wall[us]) {
            let (f, r) = (sq.file().0 as i32, sq.rank().0 as i32);
            let step = if color == Color::White { 1 } else { -1 };
            let mut path = 0u64;
            let mut rank = r;
            loop {
                path |= 1 << (rank * 8 + f);
                let next = rank + step;
                if !(0..8).contains(&next) {
                    return false; // nothing stops it: it could promote
                }
                let bit = 1u64 << (next * 8 + f);
                if bit & all_wall != 0 {
                    break;
                }
                if bit & pawns_of[them] != 0
                    && untouchable(
                        next,
                        f,
                        color.other(),
                        all_wall,
                        &king_hits,
                        &piece_hits,
                        &wall_attacks,
                    )
                {
                    break;
                }
                rank = next;
            }
            ever[us] |= path;
        }
    }
    let ever_attacks = [
        pawn_spread(Color::White, ever[0]),
        pawn_spread(Color::Black, ever[1]),
    ];
    if ever_attacks[0] & (ever[1] | piece_reach[1]) != 0
        || ever_attacks[1] & (ever[0] | piece_reach[0]) != 0
    {
        return false;
    }
    // Sentries that nothing can attack stand in their own king's way for good.
    let blockers = Bitboard(all_wall);
    let loser = winner.other();
    let (w, l) = (winner.index(), loser.index());
    let mut loser_men = [0u64; 16];
    let mut loser_count = 0;
    let mut loser_obstacles = all_wall;
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for sq in pos.pieces(loser, role) {
            let at = 1u64 << sq.index();
            let reach = region(role, sq, !all_wall, blockers);
            let still = attacks_from(role, at, blockers) & !all_wall == 0;
            let exposed = piece_hits[w] | king_hits[w] | ever_attacks[w];
            if still && at & exposed == 0 {
                loser_obstacles |= at;
            }
            if loser_count == loser_men.len() {
                return false;
            }
            loser_men[loser_count] = reach;
            loser_count += 1;
        }
    }
    for sq in Bitboard(pawns_of[l]) {
        if loser_count == loser_men.len() {
            return false;
        }
        loser_men[loser_count] = ever[l] & (FILE_A << sq.file().0);
        loser_count += 1;
    }
    let allowed = !loser_obstacles & !wall_attacks[w];
    let loser_king = region(Role::King, pos.king_of(loser), allowed, blockers);
    let winner_reach = ever_attacks[w] | piece_hits[w];
    if winner_reach & loser_king == 0 {
        return true;
    }
    no_mate_square(
        winner_reach & loser_king,
        winner_reach,
        kings[w],
        &loser_men[..loser_count],
        None,
        None,
    )
}

/// Can nothing ever take the pawn of `color` on file `file`, rank `rank`? No enemy king
/// (where no wall pawn of `color` defends) or piece attacks its file from there up to the
/// first wall pawn ahead (it never passes one; enemy pawns never take, checked apart).
fn untouchable(
    rank: i32,
    file: i32,
    color: Color,
    wall: u64,
    king_hits: &[u64; 2],
    piece_hits: &[u64; 2],
    wall_attacks: &[u64; 2],
) -> bool {
    let (us, them) = (color.index(), color.other().index());
    let step = if color == Color::White { 1 } else { -1 };
    let danger = piece_hits[them] | (king_hits[them] & !wall_attacks[us]);
    let mut r = rank;
    while (0..8).contains(&r) {
        let bit = 1u64 << (r * 8 + file);
        if bit & wall != 0 {
            break;
        }
        if bit & danger != 0 {
            return false;
        }
        r += step;
    }
    true
}

/// `b` and every square below it on its file.
pub(super) fn fill_down(mut b: u64) -> u64 {
    b |= b >> 8;
    b |= b >> 16;
    b | b >> 32
}

/// `b` and every square above it on its file.
pub(super) fn fill_up(mut b: u64) -> u64 {
    b |= b << 8;
    b |= b << 16;
    b | b << 32
}

/// The skeleton argument with the kings on `walls` taken as stoppers; it fails unless
/// each of them is shown never to move.
fn skeleton_proof(pos: &Position, winner: Color, walls: u64) -> bool {
    let white_pawns = pos.pieces(Color::White, Role::Pawn).0;
    let black_pawns = pos.pieces(Color::Black, Role::Pawn).0;
    let Some(paths) = pawn_paths(white_pawns, black_pawns, walls) else {
        return false;
    };
    let ever_attacks = [
        pawn_spread(Color::White, paths.ever[0]),
        pawn_spread(Color::Black, paths.ever[1]),
    ];
    // Two pawns that could ever attack each other might take, which unjams the skeleton.
    if ever_attacks[0] & paths.ever[1] != 0 || ever_attacks[1] & paths.ever[0] != 0 {
        return false;
    }
    let fixed_attacks = [
        pawn_spread(Color::White, paths.fixed[0]),
        pawn_spread(Color::Black, paths.fixed[1]),
    ];
    let obstacles = paths.fixed[0] | paths.fixed[1];
    let blockers = Bitboard(obstacles);
    let sentries = sentries(pos, &paths, blockers);
    let loser = winner.other();
    let mut king_regions = [0u64; 2];
    let mut piece_hits = [0u64; 2];
    let mut sentries_needed = false;
    let mut king_captures = [0u64; 2];
    let mut memo = [(Role::King, 0u64, 0u64); 8];
    let mut memo_len = 0;
    let mut loser_king_region = 0;
    let mut winner_king_region = 0;
    // Where each of the loser's men (king apart) can ever stand, for `no_mate_square`.
    let mut loser_men = [0u64; 16];
    let mut loser_count = 0;
    // A pawn gives check too: every square the winner's pawns may ever attack.
    let mut winner_reach = ever_attacks[winner.index()];
    for color in Color::ALL {
        let enemy = color.other().index();
        // A king never takes on a square that a pawn or a king which never moves defends.
        let enemy_walls = walls & pos.by_color(color.other()).0;
        // Nor on a pawn a sentry defends (checked below to stay for good, when it matters).
        let king_takable_but_for_sentries =
            paths.ever[enemy] & !fixed_attacks[enemy] & !king_spread(enemy_walls);
        let king_takable = king_takable_but_for_sentries & !sentries.defends[enemy];
        for role in KING_AND_PIECES {
            for sq in pos.pieces(color, role) {
                let (allowed, takable) = if role == Role::King {
                    (!obstacles & !fixed_attacks[enemy], king_takable)
                } else {
                    (!obstacles, paths.ever[enemy])
                };
                // Moves are reversible with the pawns fixed, so a region is shared by
                // every piece of the role standing in it: found once (positions with
                // many bishops spend most of the test here).
                let at = 1u64 << sq.index();
                let known = if role == Role::King {
                    None
                } else {
                    memo[..memo_len]
                        .iter()
                        .find(|&&(r, reach, _)| r == role && reach & at != 0)
                };
                let (reach, hits) = match known {
                    Some(&(_, reach, hits)) => (reach, hits),
                    None => {
                        let (reach, hits) = region_and_hits(role, sq, allowed, blockers);
                        if role != Role::King && memo_len < memo.len() {
                            memo[memo_len] = (role, reach, hits);
                            memo_len += 1;
                        }
                        (reach, hits)
                    }
                };
                if walls & at != 0 && reach != at {
                    return false;
                }
                // A piece that can step where a pawn may take it could unjam the skeleton.
                if role != Role::King && reach & ever_attacks[enemy] != 0 {
                    return false;
                }
                if role == Role::King && walls == 0 {
                    // A king may take a pawn only where that ends the game at once (see
                    // `stalemating_captures`), checked once every region is known.
                    king_captures[color.index()] = hits & takable;
                } else if hits & takable != 0 {
                    return false;
                }
                if role == Role::King {
                    sentries_needed |= hits & king_takable_but_for_sentries != 0;
                    king_regions[color.index()] = reach;
                } else {
                    piece_hits[color.index()] |= hits;
                }
                if color == loser && role == Role::King {
                    loser_king_region = reach;
                } else if color == loser {
                    if loser_count == loser_men.len() {
                        return false;
                    }
                    loser_men[loser_count] = reach;
                    loser_count += 1;
                } else if role == Role::King {
                    winner_king_region = reach;
                } else {
                    winner_reach |= hits;
                }
            }
        }
    }
    // A sentry is never taken: no enemy piece may ever attack its square, and the enemy
    // king only where a pawn that never moves defends it.
    for color in Color::ALL.into_iter().filter(|_| sentries_needed) {
        let (us, enemy) = (color.index(), color.other().index());
        let exposed = piece_hits[enemy] | (king_spread(king_regions[enemy]) & !fixed_attacks[us]);
        if sentries.squares[us] & exposed != 0 {
            return false;
        }
    }
    for color in Color::ALL {
        let captures = king_captures[color.index()];
        if captures != 0
            && !stalemating_captures(
                pos,
                color,
                captures,
                &king_regions,
                &paths,
                &fixed_attacks,
                (color == winner).then_some(blockers),
            )
        {
            return false;
        }
    }
    if winner_reach & loser_king_region == 0 {
        return true;
    }
    // A loser's pawn stays on its file, within the squares its side's pawns may ever
    // hold there (no pawn ever captures).
    for sq in pos.pieces(loser, Role::Pawn) {
        if loser_count == loser_men.len() {
            return false;
        }
        loser_men[loser_count] = paths.ever[loser.index()] & (FILE_A << sq.file().0);
        loser_count += 1;
    }
    // The loser moves only its king when its other men are pawns that never move.
    let loser_pieces = pos.by_color(loser) & !pos.by_role(Role::King) & !pos.by_role(Role::Pawn);
    let retro = (walls == 0
        && loser_pieces.is_empty()
        && paths.ever[loser.index()] == paths.fixed[loser.index()]
        && pos.castling().is_empty())
    .then(|| {
        let queens = pos.pieces(winner, Role::Queen);
        Retro {
            loser_region: loser_king_region,
            diagonal: (pos.pieces(winner, Role::Bishop) | queens).nonempty(),
            straight: (pos.pieces(winner, Role::Rook) | queens).nonempty(),
            blockers,
        }
    });
    let now = (pos.turn() == winner).then(|| {
        (
            pos.king_of(loser),
            king_spread(1 << pos.king_of(winner).index()),
        )
    });
    no_mate_square(
        winner_reach & loser_king_region,
        winner_reach,
        winner_king_region,
        &loser_men[..loser_count],
        retro.as_ref(),
        now,
    )
}

const FILE_A: u64 = 0x0101_0101_0101_0101;

/// The one way out of a skeleton that ends the game (2017 Art. 5.2.1, stalemate): the king
/// of `capturer` may take a pawn on `captures` only where the other side (the owner) is
/// left without a legal move. Every pawn of the owner must never move and the owner have no
/// men but its king and pawns. The capture needs the two kings apart, so the owner's king
/// stands on a square `k` of its region not next to the taken pawn's square `t`; then
/// every square next to `k` must hold one of the owner's pawns (all still there but `t`),
/// be attacked by a pawn of the capturer that never moves, or be next to `t` (the
/// capturer's king). The owner's pawns cannot move either: each stays blocked (a pawn
/// behind `t` by the capturing king), and none can ever take (no man of the capturer
/// ever stands where they attack, `t` included, since a defended pawn is not takable).
/// So the owner has no legal move: the game ends in stalemate, or in mate by the capturer
/// if the owner's king is in check. That check can only be discovered by the capturing
/// king's move (the owner was not in check at the capturer's turn), along a line from
/// `k` through the square the king came from: when the capturer is the winner,
/// `winner_blockers` is given and such lines must be impossible for its pieces (pawns as
/// the only obstacles; the winner promotes nothing, every pawn being stopped). Until the
/// capture the skeleton stands, so `skeleton_proof`'s argument covers every position
/// before it, and the game ends with it.
fn stalemating_captures(
    pos: &Position,
    capturer: Color,
    captures: u64,
    king_regions: &[u64; 2],
    paths: &Paths,
    fixed_attacks: &[u64; 2],
    winner_blockers: Option<Bitboard>,
) -> bool {
    let owner = capturer.other();
    let men = pos.by_color(owner) & !pos.by_role(Role::King) & !pos.by_role(Role::Pawn);
    let (o, c) = (owner.index(), capturer.index());
    if men.nonempty() || paths.ever[o] != paths.fixed[o] {
        return false;
    }
    let queens = pos.pieces(capturer, Role::Queen);
    let diagonal = (pos.pieces(capturer, Role::Bishop) | queens).nonempty();
    let straight = (pos.pieces(capturer, Role::Rook) | queens).nonempty();
    for t in Bitboard(captures) {
        let near_t = king_spread(1 << t.index());
        let origins = near_t & king_regions[c] & !(1 << t.index());
        for k in Bitboard(king_regions[o] & !near_t) {
            let flights = king_spread(1 << k.index()) & !(1 << k.index());
            if flights & !paths.fixed[o] & !fixed_attacks[c] & !near_t != 0 {
                return false;
            }
            if let Some(blockers) = winner_blockers {
                let lines = if diagonal {
                    attacks::bishop_attacks(k, blockers).0
                } else {
                    0
                } | if straight {
                    attacks::rook_attacks(k, blockers).0
                } else {
                    0
                };
                if lines & origins != 0 {
                    return false;
                }
            }
        }
    }
    true
}

/// Pieces that can never move and defend pawns for good, per side.
struct Sentries {
    /// Their squares.
    squares: [u64; 2],
    /// The side's pawns that never move which they defend.
    defends: [u64; 2],
}

/// A knight, bishop, rook or queen whose every move (pawns as the only obstacles) lands on
/// a pawn that never moves can only ever move by taking an enemy one, which the skeleton
/// argument rules out; so as long as it is not taken it stands where it is and defends the
/// pawns of its side next to it on its lines (the first man on each line is that pawn,
/// whatever else moves). `skeleton_proof` checks that it is never taken (by a pawn: it is
/// never on a square an enemy pawn may attack; by a piece: none attacks its square; by the
/// king: only where a pawn that never moves defends it). An enemy king can then never take
/// the pawns it defends: by induction over the moves, no move breaks the skeleton, the
/// sentries or the defences together.
fn sentries(pos: &Position, paths: &Paths, blockers: Bitboard) -> Sentries {
    let mut out = Sentries {
        squares: [0; 2],
        defends: [0; 2],
    };
    for color in Color::ALL {
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            for sq in pos.pieces(color, role) {
                let at = 1u64 << sq.index();
                let hits = attacks_from(role, at, blockers);
                if hits & !blockers.0 == 0 {
                    out.squares[color.index()] |= at;
                    out.defends[color.index()] |= hits & paths.fixed[color.index()];
                }
            }
        }
    }
    out
}

/// What the loser's last move tells (see `no_mate_square`), when the loser has no men but
/// its king and pawns that never move, and nobody may castle.
struct Retro {
    /// The squares the loser's king can ever stand on.
    loser_region: u64,
    /// The winner has bishops or queens (lines on diagonals), rooks or queens (on ranks
    /// and files); it never promotes, every pawn being stopped.
    diagonal: bool,
    straight: bool,
    /// The pawns that never move.
    blockers: Bitboard,
}

/// The flight-square count (2017 Art. 5.2.2, 6.9): the winner can give check only on
/// `checks` (the squares of the loser king's region that its men other than the king may
/// ever attack); those men never attack a square outside `reach`, and the winner's king
/// never stands outside `king_region`. In a mate on a square `s` every square next to `s`
/// is attacked by the winner or holds one of the loser's men: a flight square that is
/// neither is empty or holds a man of the winner that nothing defends, and the king could
/// step there (sliders' lines are taken with pawns as the only obstacles, so a square
/// behind the king on a checking line counts as attacked). The winner's king stands on
/// one square `k`, at least two steps from `s` (kings never touch), and covers only the
/// squares next to `k`. So for some such `k` (or none) the remaining flight squares need
/// one loser's man each, a different man per square, and a man can only be on a square of
/// `men` (one entry per man: a piece's region, a pawn's squares on its file). When for
/// every `s` and `k` some such square lies outside every man's reach, or fewer men can
/// reach any of them than there are squares to fill, no mate exists whatever both sides
/// play: the pawn skeleton and the regions are permanent (see `skeleton_proof`).
///
/// With `retro`, the loser's last move before the mate was its king's, from a square `e`
/// next to `s` (no other man of the loser can move: its pawns are blocked and never take),
/// and the winner's king then stood on the square `w` it left with the mating move (the
/// same square unless that move was the king's, which mates only by uncovering a line
/// from `s` through `w`: no castling, no promotion, and a capture of a pawn stalemates,
/// see `stalemating_captures`). So `e` is not next to `w`, and in the mate `e` is empty
/// (the loser's men other than its king never move), hence attacked: by a man other than
/// the king (on `reach`) or by the king on its new square. The exception is a mate by the
/// winner's very first move, the winner to move now (`now`: the loser king's square and
/// the squares the winner's king can be on after one move); the plain count applies there.
fn no_mate_square(
    checks: u64,
    reach: u64,
    king_region: u64,
    men: &[u64],
    retro: Option<&Retro>,
    now: Option<(Square, u64)>,
) -> bool {
    let fillable = |flights: u64| {
        let mut cover = 0;
        let mut count = 0;
        for &m in men {
            if m & flights != 0 {
                cover |= m;
                count += 1;
            }
        }
        flights & !cover == 0 && count >= flights.count_ones()
    };
    for s in Bitboard(checks) {
        let at = 1u64 << s.index();
        let near = king_spread(at);
        let flights = near & !at & !reach;
        let first_move = now.filter(|&(sq, _)| sq == s);
        let region = match first_move {
            Some((_, after_one)) => king_region & after_one,
            None => king_region,
        };
        let ring = king_spread(near) & !near & region;
        let retro = retro.filter(|_| first_move.is_none());
        let Some(retro) = retro else {
            if fillable(flights) {
                return false;
            }
            // The winner's king two steps away, covering some of them.
            for k in Bitboard(ring) {
                let covered = king_spread(1 << k.index());
                if covered & flights != 0 && fillable(flights & !covered) {
                    return false;
                }
            }
            continue;
        };
        let entries = retro.loser_region & near & !at;
        // The king stood still: far away, or two steps from `s`.
        if entries & reach != 0 && fillable(flights) {
            return false;
        }
        for k in Bitboard(ring) {
            let covered = king_spread(1 << k.index());
            if entries & reach & !covered != 0 && fillable(flights & !covered) {
                return false;
            }
        }
        // The king uncovered the check, leaving `w` (not next to `s`) for a square `k`.
        let mut lines = 0;
        if retro.diagonal {
            lines |= attacks::bishop_attacks(s, retro.blockers).0;
        }
        if retro.straight {
            lines |= attacks::rook_attacks(s, retro.blockers).0;
        }
        for w in Bitboard(lines & king_region & !near) {
            let from_w = king_spread(1 << w.index());
            for k in Bitboard(from_w & king_region & !near & !(1 << w.index())) {
                let covered = king_spread(1 << k.index());
                if entries & !from_w & (reach | covered) != 0 && fillable(flights & !covered) {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(fen: &str, c: Color) -> bool {
        cannot_win(&Position::from_fen(fen).unwrap(), c)
    }

    /// A man on a file, for the reference paths below.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Man {
        White,
        Black,
        Wall,
    }

    /// `pawn_paths` as first written: every square of every file, rank by rank.
    fn paths_square_by_square(white_pawns: u64, black_pawns: u64, walls: u64) -> Option<Paths> {
        let mut paths = Paths {
            ever: [0; 2],
            fixed: [0; 2],
        };
        for file in 0..8u32 {
            let mut men = Vec::new();
            for rank in 0..8u32 {
                let bit = 1u64 << (rank * 8 + file);
                if white_pawns & bit != 0 {
                    men.push((rank, Man::White));
                } else if black_pawns & bit != 0 {
                    men.push((rank, Man::Black));
                } else if walls & bit != 0 {
                    men.push((rank, Man::Wall));
                }
            }
            for m in 0..men.len() {
                let (rank, man) = men[m];
                let (lo, hi, side) = match man {
                    Man::Wall => continue,
                    Man::White => {
                        let j = (m + 1..men.len()).find(|&j| men[j].1 != Man::White)?;
                        (rank, men[j].0 - (j - m) as u32, 0)
                    }
                    Man::Black => {
                        let j = (0..m).rev().find(|&j| men[j].1 != Man::Black)?;
                        (men[j].0 + (m - j) as u32, rank, 1)
                    }
                };
                for r in lo..=hi {
                    paths.ever[side] |= 1 << (r * 8 + file);
                }
                if lo == hi {
                    paths.fixed[side] |= 1 << (rank * 8 + file);
                }
            }
        }
        Some(paths)
    }

    /// The paths by fills equal the square-by-square ones on random structures (dense
    /// enough that most files hold several men, and blocked ones are common).
    #[test]
    fn paths_agree_with_the_square_by_square_reference() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut some, mut none) = (0, 0);
        for _ in 0..20_000 {
            let (a, b, c) = (next(), next(), next());
            // Pawns never stand on the first or last rank.
            let middle = 0x00FF_FFFF_FFFF_FF00u64;
            let mut white = a & b & middle;
            let mut black = !a & b & c & middle;
            if c & 1 == 0 {
                // Head to head: each White pawn with a Black one right in front of it.
                white = a & b & 0x0000_FFFF_FFFF_FF00;
                black = (white << 8) | (!a & b & c & middle & !(white << 8) & (white << 16));
                black &= !white;
            }
            let walls = next() & next() & next() & !(white | black);
            let got = pawn_paths(white, black, walls).map(|p| (p.ever, p.fixed));
            let want = paths_square_by_square(white, black, walls).map(|p| (p.ever, p.fixed));
            assert_eq!(got, want, "{white:#x} {black:#x} {walls:#x}");
            if got.is_some() {
                some += 1;
            } else {
                none += 1;
            }
        }
        // Both outcomes are exercised.
        assert!(some > 100 && none > 100, "{some} {none}");
    }

    /// The regions cache answers as the computation does: for every role and every allowed
    /// square behind a locked pawn chain, asked in two orders, the cached region and attacks
    /// are those flooded afresh from that square.
    #[test]
    fn cached_regions_are_the_computed_ones() {
        let pos = Position::from_fen("4k3/8/1p1p1p1p/pPpPpPpP/P1P1P1P1/8/8/4K3 w - - 0 1").unwrap();
        let pawns = pos.by_role(Role::Pawn);
        let allowed = !pawns.0;
        let mut regions = std::collections::HashSet::new();
        for role in KING_AND_PIECES {
            for order in [0u8, 63] {
                for k in 0..64u8 {
                    let sq = Square::new(k ^ order);
                    if allowed & (1 << sq.index()) == 0 {
                        continue;
                    }
                    let fresh = region(role, sq, allowed, pawns);
                    assert_eq!(
                        region_and_hits(role, sq, allowed, pawns),
                        (fresh, attacks_from(role, fresh, pawns)),
                        "{role:?} on {sq}"
                    );
                    regions.insert((role, fresh));
                }
            }
        }
        // Kings and knights cross nowhere, bishops keep to their colour's side: more than
        // one region each for them, so a wrong region from the cache would show.
        assert!(regions.len() > 5, "{}", regions.len());
    }

    #[test]
    fn spreads_stay_on_the_board() {
        assert_eq!(king_spread(1), 0x303);
        assert_eq!(knight_spread(1), 0x20400);
        assert_eq!(knight_spread(1 << 63), 0x0020_4000_0000_0000);
        assert_eq!(pawn_spread(Color::White, 1 << 8), 1 << 17);
    }

    #[test]
    fn locked_wall_with_bishops_on_one_side_each() {
        let fen = "2b1k3/8/8/1p1p1p1p/1P1P1P1P/8/8/2B1K3 w - - 0 1";
        assert!(blocked(fen, Color::White));
        assert!(blocked(fen, Color::Black));
        // d6-d5 is answered by e4xd5: the pawns are not jammed for good.
        assert!(!blocked(
            "8/8/8/1p1pp2k/pP1pP1p1/P2P2P1/6K1/8 w - - 0 1",
            Color::White
        ));
        // Kings can walk round and take an undefended pawn: not applicable.
        assert!(!blocked("4k3/8/8/3p4/3P4/8/8/4K3 w - - 0 1", Color::White));
        assert!(!blocked("4k3/8/8/8/3P4/8/8/4K3 w - - 0 1", Color::White));
    }

    #[test]
    fn pawns_that_advance_into_a_jam() {
        // The bishops get out once b2 or b7 has moved: not applicable.
        let fen = "2b1k3/1p6/8/1p1p1p1p/8/8/1P1P1P1P/2B1K3 w - - 0 1";
        assert!(!blocked(fen, Color::White));
        // A White pawn with no Black pawn ahead of it could promote.
        assert!(!blocked(
            "2b1k3/8/8/1p1p1p2/8/8/1P1P1P1P/2B1K3 w - - 0 1",
            Color::White
        ));
        // b2-b4 meets a pawn on c5 or a5 at some point: a capture is possible.
        assert!(!blocked(
            "2b1k3/8/8/p1p5/8/8/1P6/2B1K3 w - - 0 1",
            Color::White
        ));
        // The king can walk to an advancing pawn and take it.
        assert!(!blocked(
            "1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3 w - - 0 1",
            Color::White
        ));
    }

    #[test]
    fn too_few_men_to_fill_the_flight_squares() {
        // Black's light bishops can check White's king behind the locked wall, but no mate
        // square has its unattacked neighbours fillable by White's one bishop and pawns.
        for fen in [
            "8/4kb2/8/1p1p1p1p/1P1P1P1P/1b6/3B1K2/8 b - - 0 1",
            "8/2k5/4b3/1p1p1pBp/1P1P1P1P/8/3K1B2/8 b - - 0 1",
            "2b5/1k6/3B4/1p1p1p1p/1P1P1P1P/8/8/4K3 w - - 0 1",
        ] {
            assert!(blocked(fen, Color::White), "{fen}");
            assert!(blocked(fen, Color::Black), "{fen}");
        }
        // White can mate here (D3-Chess: W-): Black's own bishops fill the flight squares.
        let fen = "4k3/8/1Bb3b1/1p1p1p1p/1P1P1P1P/1b6/3B4/4K3 b - - 0 1";
        assert!(!blocked(fen, Color::White));
        // The count itself: a corner king with two unattacked neighbours.
        let (h1, g1, h2, g2) = (1 << 7, 1 << 6, 1 << 15, 1 << 14);
        assert!(!no_mate_square(h1, g2, 0, &[g1, h2], None, None));
        assert!(no_mate_square(h1, g2, 0, &[g1], None, None));
        assert!(no_mate_square(h1, g2, 0, &[g1 | h2], None, None));
        assert!(no_mate_square(h1, g2, 0, &[g1, g1 | g2], None, None));
        assert!(!no_mate_square(h1, g2 | h2, 0, &[g1], None, None));
        // The winner's king on h3 covers h2 (g2 is next to h1: it may never stand there).
        let (h3, f1) = (1 << 23, 1 << 5);
        assert!(!no_mate_square(h1, g2, h3, &[g1], None, None));
        assert!(no_mate_square(h1, g2, h3, &[h2], None, None));
        assert!(!no_mate_square(h1, g2, h3 | f1, &[h2], None, None));
        assert!(no_mate_square(h1, g2, g2, &[], None, None));
        // Two dark bishops and a king against a bare king, corner h8: g8 and h7 are never
        // both covered by the king.
        let (h8, g7, g8, h7) = (1 << 63, 1 << 54, 1 << 62, 1 << 55);
        assert!(no_mate_square(
            h8,
            g7,
            !(h8 | g7 | g8 | h7),
            &[],
            None,
            None
        ));
    }

    #[test]
    fn knights_that_never_move_defend_pawns() {
        // Na4 and Na5 are hemmed in by pawns and defend c5, c3, b2 and c4, b3, b7: no king
        // ever takes a pawn, and White's dark bishops cannot mate Black's king without
        // Black men to fill its light flight squares.
        let fen = "k7/1p6/1Pp5/n1P5/N1p5/1pP1B3/1P1B4/K7 w - - 0 1";
        assert!(blocked(fen, Color::White));
        assert!(blocked(fen, Color::Black));
        // With a light bishop for Black (it fills a flight square), White may mate.
        let fen = "1kb5/1p6/1Pp5/n1P5/N1p5/1pP5/1P6/1KB5 w - - 0 1";
        assert!(!blocked(fen, Color::White));
        // Without the knight on a4, Black's king can walk to c5's side and take it.
        let fen = "k7/1p6/1Pp5/n1P5/2p5/1pP1B3/1P1B4/K7 w - - 0 1";
        assert!(!blocked(fen, Color::White));
    }

    #[test]
    fn a_capture_that_stalemates_leaves_the_skeleton_standing() {
        // D3-Chess (--): Black's king can take g2 only with White's king on h4, which
        // stalemates White; Black's mate on h4 needs its king on h2, which White's last
        // king move into h4 (from h3) never allows.
        for fen in [
            "8/8/3b3p/5p1P/3b1p1K/5Pp1/6P1/5kb1 b - -",
            "8/b1b5/k6p/2b2p1P/1b3p2/5PpK/6P1/8 w - -",
            "8/8/7p/5p1P/5p1K/4bPp1/5bPb/4bkb1 b - -",
        ] {
            assert!(blocked(fen, Color::White), "{fen}");
            assert!(blocked(fen, Color::Black), "{fen}");
        }
        // D3-Chess (--): White's king takes a4 only with Black's king on a6, stalemating
        // it; a mate on a5 needs White's king on a7 or next to a6.
        for fen in [
            "8/1p2B1B1/1PpB1B2/k1P5/p1P5/P7/5K2/8 w - -",
            "8/1p2B1B1/1PpB1B2/k1P1B3/p1P2B2/P7/5K2/8 w - -",
        ] {
            assert!(blocked(fen, Color::White), "{fen}");
            assert!(blocked(fen, Color::Black), "{fen}");
        }
        // With a White knight (it has moves after the capture) the argument is off.
        assert!(!blocked(
            "8/8/3b3p/5p1P/3b1p1K/5Pp1/6P1/N4kb1 b - -",
            Color::White
        ));
    }

    fn wide(fen: &str, c: Color) -> bool {
        cannot_win_wide(&Position::from_fen(fen).unwrap(), c)
    }

    #[test]
    fn a_wall_that_splits_the_board() {
        // D3-Chess (--): the kings may take the pawns in front of the wall, but those
        // pawns never change files, so nothing ever takes a wall pawn.
        for fen in [
            "1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3 w - -",
            "2k5/p1p1p1p1/P1P1P1P1/2p1p2K/8/8/2P1P1P1/8 w - -",
            "1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/4P3/8/P1P3P1/4K3 w - -",
            "1b1k4/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/3K4 w - -",
            // The bishop on b8 never moves: Black's king never reaches a8, where the
            // bishop on f7 could mate it.
            "1b1k4/p1p1pBp1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/3K4 w - -",
        ] {
            assert!(wide(fen, Color::White), "{fen}");
            assert!(wide(fen, Color::Black), "{fen}");
            assert!(!blocked(fen, Color::White), "{fen}");
        }
        // D3-Chess (WB): a bishop in front of the wall can be taken by a pawn.
        let fen = "1b1k4/p1p1p1p1/P1P1P1P1/p1p1pBp1/8/8/P1P1P1P1/3K4 w - -";
        assert!(!wide(fen, Color::White));
        assert!(!wide(fen, Color::Black));
        // Without White's a2 Black's a5 could promote.
        let fen = "1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/2P1P1P1/4K3 w - -";
        assert!(!wide(fen, Color::Black));
    }

    #[test]
    fn a_king_that_never_moves_stops_a_pawn() {
        // Kh1 is walled in by h2 (defended by g3) and g2; Black's bishops are dark-squared.
        let fen = "7k/8/8/3B4/8/6p1/1b4Pp/2b4K w - - 0 1";
        assert!(blocked(fen, Color::Black));
        // Ka1 likewise; Black's king can walk round to c2 but never take b2 next to Ka1.
        assert!(blocked(
            "k7/1b6/2b5/8/8/1pB5/pP6/K7 w - - 0 1",
            Color::Black
        ));
        // An undefended a2 can be taken: the king is no wall.
        assert!(!blocked("k7/8/8/8/8/8/pP6/K7 b - - 0 1", Color::Black));
    }
}
