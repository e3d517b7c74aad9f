//! TRF-16, FIDE's tournament report format (Handbook C.04 Annex 2): every pairing program
//! reads and writes it. Reading gives a `Tournament` or a located error (line, column, the
//! field); a pairing that its two lines do not both record, or a total that the rounds do not
//! add up to, is an error naming both lines. Writing gives text that reads back to the same
//! tournament.
//!
//! Columns (1-based) of a player line `001`: 5-8 start number, 10 sex, 11-13 title, 15-47 name,
//! 49-52 FIDE rating, 54-56 federation, 58-68 FIDE id, 70-79 birth date, 81-84 points, 86-89
//! rank, then per round from column 92 a 10-column block: 4 columns opponent, a space, the
//! colour (`w`, `b`, `-`), a space, the result code, a space.
//!
//! Supported: `012` name, `022` city, `032` federation, `042`/`052` dates, `062`/`072` counts
//! (recomputed on writing), `092` type, `102` chief arbiter, `122` time control, `132` round
//! dates, `013` team lines (name and members), `XXR` number of rounds. Everything else (`112`
//! deputies, `2xx` national lines, `XX*` pairing-program extensions other than `XXR`) is
//! skipped on reading and named in `Tournament`-independent `skipped` so the caller can say so.

use super::model::{Colour, Player, Points, Round, RoundOutcome, Team, Tournament};
use std::fmt;

/// A TRF-16 file that cannot be read as a tournament.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrfError {
    /// A field that does not hold what its columns should.
    Field {
        line: usize,
        column: usize,
        field: String,
        found: String,
        expected: &'static str,
    },
    /// Two lines that contradict each other (a pairing one side does not record), or a line
    /// whose stated total differs from its rounds' sum.
    Inconsistent {
        line: usize,
        other_line: Option<usize>,
        message: String,
    },
    /// No player line at all.
    Empty,
}

impl fmt::Display for TrfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrfError::Field {
                line,
                column,
                field,
                found,
                expected,
            } => write!(
                f,
                "line {line}, column {column}: {field}: found '{found}', expected {expected}"
            ),
            TrfError::Inconsistent {
                line,
                other_line: Some(other),
                message,
            } => write!(f, "lines {line} and {other}: {message}"),
            TrfError::Inconsistent {
                line,
                other_line: None,
                message,
            } => write!(f, "line {line}: {message}"),
            TrfError::Empty => write!(f, "no player lines (001) in the file"),
        }
    }
}

impl std::error::Error for TrfError {}

/// What was read, and the line codes that were skipped (with their first line).
#[derive(Debug, Clone)]
pub struct Read {
    pub tournament: Tournament,
    pub skipped: Vec<(String, usize)>,
}

/// The first column of round `r` (0-based) on a player line.
fn round_column(r: usize) -> usize {
    92 + 10 * r
}

/// Characters `from..=to` (1-based columns) of a line, as far as the line goes.
fn cols(chars: &[char], from: usize, to: usize) -> String {
    if from > chars.len() {
        return String::new();
    }
    chars[from - 1..to.min(chars.len())].iter().collect()
}

fn field_error(
    line: usize,
    column: usize,
    field: impl Into<String>,
    found: &str,
    expected: &'static str,
) -> TrfError {
    TrfError::Field {
        line,
        column,
        field: field.into(),
        found: found.to_owned(),
        expected,
    }
}

/// A number in a fixed-width field, blank allowed (`None`).
fn number(
    chars: &[char],
    line: usize,
    from: usize,
    to: usize,
    field: &str,
) -> Result<Option<u32>, TrfError> {
    let text = cols(chars, from, to);
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<u32>()
        .map(Some)
        .map_err(|_| field_error(line, from, field, t, "digits"))
}

/// Points written `3.5`, `3`, `3,5`, blank allowed.
fn points(chars: &[char], line: usize, from: usize, to: usize) -> Result<Option<Points>, TrfError> {
    let text = cols(chars, from, to);
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    let bad = || field_error(line, from, "points", t, "a score such as 3.5");
    let (whole, frac) = match t.split_once(['.', ',']) {
        Some((w, f)) => (w, f),
        None => (t, "0"),
    };
    let whole: u32 = whole.parse().map_err(|_| bad())?;
    let half = match frac.trim_end_matches('0') {
        "" => 0,
        "5" => 1,
        _ => return Err(bad()),
    };
    Ok(Some(Points(whole * 2 + half)))
}

/// Reads TRF-16 text. Pairings are checked both ways and totals against the rounds.
pub fn read(text: &str) -> Result<Read, TrfError> {
    let mut t = Tournament::default();
    let mut skipped: Vec<(String, usize)> = Vec::new();
    // Per player: the rounds as written (opponent start number, colour, outcome).
    let mut raw: Vec<Vec<(Option<u32>, Colour, RoundOutcome)>> = Vec::new();
    let mut xxr: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let code = cols(&chars, 1, 3);
        let rest = || cols(&chars, 5, chars.len()).trim().to_owned();
        match code.as_str() {
            "001" => {
                let (player, rounds) = player_line(&chars, n)?;
                raw.push(rounds);
                t.players.push(player);
            }
            "012" => t.name = rest(),
            "022" => t.city = rest(),
            "032" => t.federation = rest(),
            "042" => t.start_date = rest(),
            "052" => t.end_date = rest(),
            "062" | "072" | "082" => {}
            "092" => t.kind_text = rest(),
            "102" => t.chief_arbiter = rest(),
            "122" => t.time_control = rest(),
            "132" => {
                let mut r = 0;
                while round_column(r) <= chars.len() {
                    let d = cols(&chars, round_column(r), round_column(r) + 7);
                    t.round_dates.push(d.trim().to_owned());
                    r += 1;
                }
                while t.round_dates.last().is_some_and(String::is_empty) {
                    t.round_dates.pop();
                }
            }
            "013" => t.teams.push(team_line(&chars, n)?),
            "XXR" => {
                let v = rest();
                xxr = Some(
                    v.parse()
                        .map_err(|_| field_error(n, 5, "XXR number of rounds", &v, "digits"))?,
                );
            }
            other => {
                if !skipped.iter().any(|(c, _)| c == other) {
                    skipped.push((other.to_owned(), n));
                }
            }
        }
    }
    if t.players.is_empty() {
        return Err(TrfError::Empty);
    }
    let written = raw.iter().map(Vec::len).max().unwrap_or(0);
    t.rounds = xxr.unwrap_or(0).max(written);
    resolve(&mut t, &raw)?;
    check(&t)?;
    Ok(Read {
        tournament: t,
        skipped,
    })
}

type RawRound = (Option<u32>, Colour, RoundOutcome);

fn player_line(chars: &[char], n: usize) -> Result<(Player, Vec<RawRound>), TrfError> {
    let sno = number(chars, n, 5, 8, "start number")?
        .ok_or_else(|| field_error(n, 5, "start number", "", "digits"))?;
    if sno == 0 {
        return Err(field_error(n, 5, "start number", "0", "a number from 1"));
    }
    let mut p = Player::new(sno, cols(chars, 15, 47).trim());
    p.line = n;
    p.sex = chars.get(9).copied().unwrap_or(' ');
    p.title = cols(chars, 11, 13).trim().to_owned();
    p.rating = match number(chars, n, 49, 52, "FIDE rating")? {
        None | Some(0) => None,
        Some(r) => Some(u16::try_from(r).map_err(|_| {
            field_error(n, 49, "FIDE rating", &r.to_string(), "a rating below 65536")
        })?),
    };
    p.federation = cols(chars, 54, 56).trim().to_owned();
    p.fide_id = cols(chars, 58, 68).trim().to_owned();
    p.birth = cols(chars, 70, 79).trim().to_owned();
    p.stated_points = points(chars, n, 81, 84)?;
    p.stated_rank = number(chars, n, 86, 89, "rank")?;
    let mut rounds = Vec::new();
    let mut r = 0;
    while round_column(r) <= chars.len() {
        let c = round_column(r);
        let round_no = r + 1;
        let opp_text = cols(chars, c, c + 3);
        let opp = opp_text.trim();
        let opponent = if opp.is_empty() {
            None
        } else {
            let v: u32 = opp.parse().map_err(|_| {
                field_error(
                    n,
                    c,
                    format!("round {round_no} opponent"),
                    opp,
                    "a start number",
                )
            })?;
            (v != 0).then_some(v)
        };
        let colour = match chars.get(c + 4 - 1 + 1).copied().unwrap_or(' ') {
            'w' | 'W' => Colour::White,
            'b' | 'B' => Colour::Black,
            '-' | ' ' => Colour::None,
            other => {
                return Err(field_error(
                    n,
                    c + 5,
                    format!("round {round_no} colour"),
                    &other.to_string(),
                    "w, b or -",
                ));
            }
        };
        let code = chars.get(c + 6).copied().unwrap_or(' ');
        let outcome = RoundOutcome::from_trf(code).ok_or_else(|| {
            field_error(
                n,
                c + 7,
                format!("round {round_no} result"),
                &code.to_string(),
                "one of 1 = 0 + - W D L H F U Z or blank",
            )
        })?;
        rounds.push((opponent, colour, outcome));
        r += 1;
    }
    while rounds
        .last()
        .is_some_and(|&(o, _, out)| o.is_none() && out == RoundOutcome::Absent)
    {
        rounds.pop();
    }
    Ok((p, rounds))
}

fn team_line(chars: &[char], n: usize) -> Result<Team, TrfError> {
    let name = cols(chars, 5, 36).trim().to_owned();
    let mut members = Vec::new();
    let mut c = 37;
    while c <= chars.len() {
        let text = cols(chars, c, c + 4);
        let v = text.trim();
        if !v.is_empty() {
            members.push(
                v.parse()
                    .map_err(|_| field_error(n, c, "team member", v, "a start number"))?,
            );
        }
        c += 5;
    }
    Ok(Team { name, members })
}

/// Start numbers become indexes; each round's entry is checked for sense on its own.
fn resolve(t: &mut Tournament, raw: &[Vec<RawRound>]) -> Result<(), TrfError> {
    let mut by_sno = std::collections::HashMap::new();
    for (i, p) in t.players.iter().enumerate() {
        if let Some(&j) = by_sno.get(&p.sno) {
            let first: &Player = &t.players[j];
            return Err(TrfError::Inconsistent {
                line: first.line,
                other_line: Some(p.line),
                message: format!("start number {} is used twice", p.sno),
            });
        }
        by_sno.insert(p.sno, i);
    }
    let rounds = t.rounds;
    for (i, rs) in raw.iter().enumerate() {
        let line = t.players[i].line;
        let mut out = vec![Round::ABSENT; rounds];
        for (r, &(opp, colour, outcome)) in rs.iter().enumerate() {
            let column = round_column(r);
            let opponent = match opp {
                None => None,
                Some(sno) => Some(*by_sno.get(&sno).ok_or_else(|| {
                    field_error(
                        line,
                        column,
                        format!("round {} opponent", r + 1),
                        &format!("{sno:04}"),
                        "the start number of a player in the file",
                    )
                })?),
            };
            if opponent == Some(i) {
                return Err(field_error(
                    line,
                    column,
                    format!("round {} opponent", r + 1),
                    &format!("{:04}", t.players[i].sno),
                    "another player than the player himself",
                ));
            }
            if outcome.is_game() && opponent.is_none() {
                return Err(field_error(
                    line,
                    column,
                    format!("round {} opponent", r + 1),
                    "0000",
                    "an opponent for a played game",
                ));
            }
            let opponent = if outcome.has_opponent() {
                opponent
            } else {
                None
            };
            out[r] = Round {
                opponent,
                colour,
                outcome,
            };
        }
        t.players[i].rounds = out;
    }
    Ok(())
}

/// Each pairing recorded on both lines, with opposite colours and mirrored results; each
/// stated total equal to the rounds' sum.
fn check(t: &Tournament) -> Result<(), TrfError> {
    for (i, p) in t.players.iter().enumerate() {
        for (r, round) in p.rounds.iter().enumerate() {
            let Some(j) = round.opponent else { continue };
            let q = &t.players[j];
            let theirs = q.rounds[r];
            let describe = |x: &Round, who: &Player| match x.opponent {
                Some(o) => format!(
                    "{} {} '{}' against {}",
                    who.sno,
                    x.colour.trf(),
                    x.outcome.trf(),
                    t.players[o].sno
                ),
                None => format!("{} '{}' with no opponent", who.sno, x.outcome.trf()),
            };
            let mirrored = theirs.opponent == Some(i)
                && theirs.colour == round.colour.opposite()
                && round.outcome.mirrored() == Some(theirs.outcome);
            // A forfeit is sometimes written on one side only (the absent player's line
            // keeps `-` with no opponent): accept that, but not a contradiction.
            let one_sided_forfeit = !round.outcome.is_game()
                && theirs.opponent.is_none()
                && round.outcome.mirrored() == Some(theirs.outcome);
            if !mirrored && !one_sided_forfeit {
                return Err(TrfError::Inconsistent {
                    line: p.line,
                    other_line: Some(q.line),
                    message: format!(
                        "round {}: player {} is paired with {}, but the pairing is not mirrored ({} / {})",
                        r + 1,
                        p.sno,
                        q.sno,
                        describe(round, p),
                        describe(&theirs, q)
                    ),
                });
            }
        }
        if let Some(stated) = p.stated_points {
            let sum = p.points();
            if stated != sum {
                return Err(TrfError::Inconsistent {
                    line: p.line,
                    other_line: None,
                    message: format!(
                        "column 81: player {} has {} points written but the rounds add up to {}",
                        p.sno, stated, sum
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Writes TRF-16. `ranks` (by player index) fills columns 86-89 when given.
pub fn write(t: &Tournament, ranks: Option<&[u32]>) -> String {
    let mut out = String::new();
    let mut header = |code: &str, value: &str| {
        if !value.is_empty() {
            out.push_str(&format!("{code} {value}\n"));
        }
    };
    header("012", &t.name);
    header("022", &t.city);
    header("032", &t.federation);
    header("042", &t.start_date);
    header("052", &t.end_date);
    header("062", &t.players.len().to_string());
    let rated = t.players.iter().filter(|p| p.rating.is_some()).count();
    header("072", &rated.to_string());
    header("092", &t.kind_text);
    header("102", &t.chief_arbiter);
    header("122", &t.time_control);
    if !t.round_dates.is_empty() {
        let mut line = format!("{:<91}", "132");
        for d in &t.round_dates {
            line.push_str(&format!("{d:<8}  "));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str(&format!("XXR {}\n", t.rounds));
    for (i, p) in t.players.iter().enumerate() {
        let rank = ranks
            .map(|r| r[i])
            .or(p.stated_rank)
            .map(|r| format!("{r:>4}"))
            .unwrap_or_else(|| "    ".to_owned());
        let rating = p
            .rating
            .map(|r| format!("{r:>4}"))
            .unwrap_or_else(|| "    ".to_owned());
        let mut line = format!(
            "001 {:>4} {}{:>3} {:<33} {} {:<3} {:>11} {:<10} {:>4} {}",
            p.sno,
            p.sex,
            p.title,
            truncate(&p.name, 33),
            rating,
            truncate(&p.federation, 3),
            truncate(&p.fide_id, 11),
            truncate(&p.birth, 10),
            p.points(),
            rank
        );
        for r in &p.rounds {
            let opp = match r.opponent {
                Some(o) => format!("{:04}", t.players[o].sno),
                None if r.outcome == RoundOutcome::Absent => "    ".to_owned(),
                None => "0000".to_owned(),
            };
            let colour = if r.outcome == RoundOutcome::Absent && r.opponent.is_none() {
                ' '
            } else {
                r.colour.trf()
            };
            line.push_str(&format!("  {opp} {colour} {}", r.outcome.trf()));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    for team in &t.teams {
        let mut line = format!("013 {:<32}", truncate(&team.name, 32));
        for m in &team.members {
            line.push_str(&format!(" {m:>4}"));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn truncate(s: &str, width: usize) -> String {
    s.chars().take(width).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::tournament::model::RoundResult;

    #[test]
    fn reads_the_round_robin_fixture() {
        let Some(rr6) = super::super::fixtures::rr6() else {
            return;
        };
        let t = read(&rr6).unwrap().tournament;
        assert_eq!(t.players.len(), 6);
        assert_eq!(t.rounds, 5);
        assert_eq!(t.players[0].name, "Player1, P");
        assert_eq!(t.players[0].rating, Some(2400));
        assert_eq!(t.players[0].points(), Points(7));
        assert_eq!(
            t.players[0].rounds[0],
            Round {
                opponent: Some(5),
                colour: Colour::White,
                outcome: RoundOutcome::Played(RoundResult::Win)
            }
        );
    }

    #[test]
    fn write_then_read_is_the_same_tournament() {
        let Some(rr6) = super::super::fixtures::rr6() else {
            return;
        };
        let first = read(&rr6).unwrap().tournament;
        let text = write(&first, None);
        let second = read(&text).unwrap().tournament;
        let strip = |t: &Tournament| {
            let mut t = t.clone();
            for p in &mut t.players {
                p.line = 0;
            }
            t
        };
        assert_eq!(strip(&first), strip(&second));
        assert_eq!(write(&second, None), text);
    }

    /// Two players' lines in TRF-16's columns, player 1's first round as given.
    fn line_with(round1: &str) -> String {
        let line = |sno: u32, name: &str, pts: &str, round: &str| {
            format!(
                "001 {sno:>4}  {:>3} {name:<33} 2400 NOR {:>11} {:<10} {pts:>4} {:>4}  {round}\n",
                "", "", "", ""
            )
        };
        line(1, "A", "1.0", round1) + &line(2, "B", "0.0", "0001 b 0")
    }

    #[test]
    fn a_bad_result_code_names_line_column_and_field() {
        let err = read(&line_with("0002 w 7")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1, column 99: round 1 result: found '7', expected one of 1 = 0 + - W D L H F U Z or blank"
        );
    }

    #[test]
    fn a_bad_opponent_names_its_columns() {
        let err = read(&line_with("00x2 w 1")).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("line 1, column 92: round 1 opponent: found '00x2'"),
            "{err}"
        );
        let err = read(&line_with("0009 w 1")).unwrap_err();
        assert!(
            err.to_string().contains("the start number of a player"),
            "{err}"
        );
    }

    #[test]
    fn a_pairing_not_mirrored_names_both_lines() {
        // Player 1 says he beat 2 with White; 2 says he lost to 1 with White too.
        let text = line_with("0002 w 1").replace("0001 b 0", "0001 w 0");
        let err = read(&text).unwrap_err();
        assert!(
            err.to_string().starts_with("lines 1 and 2: round 1"),
            "{err}"
        );
    }

    #[test]
    fn a_total_that_does_not_add_up_is_reported() {
        let text = line_with("0002 w 1").replace(" 1.0 ", " 1.5 ");
        let err = read(&text).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: column 81: player 1 has 1.5 points written but the rounds add up to 1.0"
        );
    }
}
