//! Identity: which opening a game is (by position), which person a name is (a name is a
//! spelling), and which records are the same game. Pure functions over games and names;
//! the database side lives in `db::persons` and `db::duplicates`.

pub mod aliases;
pub mod names;
pub mod openings;
pub mod resolve;
pub mod timecontrol;
