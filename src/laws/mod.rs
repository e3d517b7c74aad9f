//! The arbiter: what the Laws of Chess decide about a game, under the edition in force.
//! `edition` picks the Laws; `dead` decides unwinnability; `claims` finds claimable draws;
//! `finding` is the catalogue of what can be reported; `verdict` walks one game; `memo`
//! reuses dead-position verdicts of positions met before.

pub mod claims;
pub mod dead;
pub mod edition;
pub mod finding;
mod memo;
pub mod result;
pub mod verdict;

pub use claims::{Claim, ClaimWay};
pub use dead::{Budget, CannotWinProof, Deadness, Unwinnability, Winnability};
pub use edition::{Edition, EditionChoice, LawsChoice};
pub use finding::{Code, LawFinding, Severity};
pub use result::GameResult;
pub use verdict::{
    GameInput, TerminationKind, Verdict, VerdictOptions, judge, judge_keyed, judge_replayed,
};
