//! The tie-breaks that count rounds (C.07 Art. 7): WIN, the rounds that gave a win, played or
//! not (forfeit wins, the PAB and full-point byes included); WON, the games won over the
//! board; BPG, the games played with Black; BWG, the games won with Black; GE (REP), the rounds
//! one elected to play: the rounds less the half- and zero-point byes, forfeit losses and
//! absences (the VURs of Art. 16.2), so that games, forfeit wins and the PAB count.

use super::{Acronym, Context, Values};
use crate::stats::tournament::model::{Colour, Points};

pub fn compute(acronym: Acronym, ctx: &Context) -> Values {
    ctx.t
        .players
        .iter()
        .map(|p| {
            let n = p
                .rounds
                .iter()
                .filter(|r| {
                    let win = r.points() == Points::ONE;
                    let game = r.outcome.is_game();
                    match acronym {
                        Acronym::Win => win,
                        Acronym::Won => win && game,
                        Acronym::Bpg => game && r.colour == Colour::Black,
                        Acronym::Bwg => win && game && r.colour == Colour::Black,
                        Acronym::Ge | Acronym::Rep => r.outcome.played_or_pab() || win,
                        _ => false,
                    }
                })
                .count();
            Some(n as f64)
        })
        .collect()
}
