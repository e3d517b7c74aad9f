//! Player statistics over the database: one pass over `player_games` (one row per person per
//! game) builds every person's dossier in memory (`dossier`), with performance ratings in the
//! three usual definitions (`performance`); `read` streams the rows out of SQLite, `report`
//! turns a dossier into text, JSON, CSV and leaderboard rows, `html` into a self-contained page.
//! `ratings` rates the persons: one submodule per rating system. `scan` is the lean read of the
//! selected games (a few integer columns, no joins) that `board` (the leaderboard of `stats
//! players`) and the ratings use when they need no more. `analysis` is the players' analysis
//! summary (accuracy, ACPL, labels per 100 moves), one pass of its own beside them.

pub mod analysis;
pub mod board;
pub mod dossier;
pub mod html;
pub mod performance;
pub mod ratings;
pub mod read;
pub mod report;
pub mod row;
pub mod scan;
pub mod tournament;
pub mod tree;
