//! The one fast read of the selected games for the leaderboard and the rating systems lives
//! in the store's read path (`db::query::scan`); its rows and result type, as the statistics
//! name them.

pub use crate::db::query::scan::{GameRow, Order, WhiteResult, for_each_game};
