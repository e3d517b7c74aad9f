//! Tournaments: crosstables and standings with FIDE's tie-breaks (Handbook C.07), read from
//! TRF-16 or built from stored games. `model` is the tournament itself (players, rounds, the
//! kinds of unplayed round of C.07 Art. 16), `trf` reads and writes TRF-16, `tiebreaks` holds
//! one file per tie-break family and the acronym registry, `standings` ranks, `crosstable`
//! prints the text tables, `html` the self-contained page, `event` builds a tournament from
//! the games of one stored event (read through `db::events`), `coverage` says how much of the
//! event those games are.

pub mod coverage;
pub mod crosstable;
pub mod event;
pub mod html;
pub mod model;
pub mod standings;
pub mod tiebreaks;
pub mod trf;

pub use model::{Kind, Tournament};
pub use standings::Standings;
pub use tiebreaks::{Rules, Spec};

/// Formats a tie-break value with the acronym's decimals; an empty string for no value.
pub fn format_value(value: Option<f64>, decimals: usize) -> String {
    match value {
        Some(v) => format!("{v:.decimals$}"),
        None => String::new(),
    }
}

#[cfg(test)]
mod fixtures;
