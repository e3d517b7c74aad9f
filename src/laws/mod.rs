//! The arbiter: what the Laws of Chess decide about a game, under the edition in force.
//! `edition` picks the Laws; `dead` decides unwinnability; `finding` is the catalogue of
//! what can be reported; `verdict` walks one game and returns everything found.

pub mod dead;
