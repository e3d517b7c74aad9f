//! Statistics over the database's persons and games: player statistics and ratings.
//! Pure computations over rows the database hands over; the `cli` prints and stores them.

pub mod ratings;
