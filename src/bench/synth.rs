//! A synthetic collection for benchmarks at scale. N distinct games between P persons
//! whose true ratings are hidden in the generator (and written to the truth CSV), paired so
//! that they form one connected pool, each result drawn from the logistic model
//! (400·log10, with draws) and played out with the moves of a real game that ended that
//! way. The same spec and seed write the same bytes. `arbiter bench synth` runs it.

use crate::chess::SanMode;
use crate::chess::san::to_san;
use crate::game::replay;
use crate::laws::{GameResult, VerdictOptions, judge_replayed};
use crate::pgn::{Splitter, parse_game, parse_game_bytes};
use crate::pipeline::source::{self, SourceError};
use crate::pipeline::work::verdict_input;
use std::fmt;
use std::io::Write;
use std::path::PathBuf;

/// What the generator needs, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spec {
    pub games: u64,
    pub players: u32,
    pub seed: u64,
    pub draw_rate: f64,
}

/// A spec the generator cannot honour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpecError {
    TooFewPlayers,
    /// More persons than `games + 1` cannot form one pool.
    NoPool {
        players: u32,
        games: u64,
    },
    DrawRate(f64),
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::TooFewPlayers => write!(f, "--players must be at least 2"),
            SpecError::NoPool { players, games } => write!(
                f,
                "--players {players} cannot form one pool in {games} games: at most --games + 1 persons"
            ),
            SpecError::DrawRate(_) => write!(f, "--draw-rate must be between 0 and 0.5"),
        }
    }
}

impl std::error::Error for SpecError {}

impl Spec {
    /// The spec, checked: at least two persons, few enough to form one pool, a draw rate
    /// in 0..=0.5.
    pub fn new(games: u64, players: u32, seed: u64, draw_rate: f64) -> Result<Spec, SpecError> {
        if players < 2 {
            return Err(SpecError::TooFewPlayers);
        }
        if u64::from(players) > games + 1 {
            return Err(SpecError::NoPool { players, games });
        }
        if !(0.0..=0.5).contains(&draw_rate) {
            return Err(SpecError::DrawRate(draw_rate));
        }
        Ok(Spec {
            games,
            players,
            seed,
            draw_rate,
        })
    }
}

/// The true ratings: a normal spread like a national list, clamped to the usual range.
const MEAN: f64 = 1900.0;
const SPREAD: f64 = 300.0;
const FLOOR: f64 = 1000.0;
const CEILING: f64 = 2850.0;
/// Opponents are drawn around the player's own rating with this standard deviation.
const OPPONENT_SPREAD: f64 = 200.0;
/// Games per event (the Round tag counts within it), and the years the dates cover.
const EVENT_GAMES: u64 = 64;
const FIRST_YEAR: u64 = 1990;
const YEARS: u64 = 36;
/// Time controls by weight: classical, rapid, blitz, bullet, correspondence-like, unknown.
const TIME_CONTROLS: [(&str, u64); 8] = [
    ("40/7200:1800+30", 3),
    ("5400+30", 4),
    ("900+10", 3),
    ("600", 1),
    ("180+2", 4),
    ("60", 1),
    ("1/259200", 1),
    ("-", 1),
];

/// Decided games whose moves the synthetic games borrow when no `--source` is given: each
/// replays legally and ends as its result says (checked by `builtin_sources_are_all_kept`).
const BUILTIN: &str = r#"[ECO "C41"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. Bc4 Bg4 4. Nc3 g6 5. Nxe5 Bxd1 6. Bxf7+ Ke7 7. Nd5# 1-0

[ECO "C41"]
[Result "1-0"]

1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7
8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7
14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0

[ECO "C20"]
[Result "1-0"]

1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0

[ECO "B76"]
[Result "1-0"]

1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 g6 6. Be3 Bg7 7. f3 O-O 8. Qd2
Nc6 9. Bc4 Bd7 10. O-O-O Rc8 11. Bb3 Ne5 12. h4 h5 1-0

[ECO "A00"]
[Result "0-1"]

1. f3 e5 2. g4 Qh4# 0-1

[ECO "C50"]
[Result "0-1"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Nd4 4. Nxe5 Qg5 5. Nxf7 Qxg2 6. Rf1 Qxe4+ 7. Be2 Nf3#
0-1

[ECO "A52"]
[Result "0-1"]

1. d4 Nf6 2. c4 e5 3. dxe5 Ng4 4. Bf4 Nc6 5. Nf3 Bb4+ 6. Nbd2 Qe7 7. a3 Ngxe5
8. axb4 Nd3# 0-1

[ECO "C54"]
[Result "0-1"]

1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. c3 Nf6 5. d4 exd4 6. cxd4 Bb4+ 7. Nc3 Nxe4
8. O-O Bxc3 9. d5 Bf6 10. Re1 Ne7 11. Rxe4 d6 0-1

[ECO "C67"]
[Result "1/2-1/2"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. O-O Nxe4 5. d4 Nd6 6. Bxc6 dxc6 7. dxe5 Nf5
8. Qxd8+ Kxd8 1/2-1/2

[ECO "B90"]
[Result "1/2-1/2"]

1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 6. Be3 e5 7. Nb3 Be6 8. f3
Be7 9. Qd2 O-O 10. O-O-O Nbd7 11. g4 b5 1/2-1/2

[ECO "A04"]
[Result "1/2-1/2"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2
"#;

/// Where each synthetic result finds its moves: decided games grouped by result
/// (white wins, draws, black wins), their main line as wrapped SAN ending in the result.
#[derive(Debug, Default)]
pub struct Sources {
    by_result: [Vec<Borrowed>; 3],
    /// Games read but not lent: undecided, illegal, from a set-up position, or recorded
    /// with a result the Laws contradict.
    pub skipped: u64,
}

#[derive(Debug)]
struct Borrowed {
    eco: Option<String>,
    movetext: String,
}

/// A result as an index: 0 white wins, 1 draw, 2 black wins.
const RESULT_TEXT: [&str; 3] = ["1-0", "1/2-1/2", "0-1"];

impl Sources {
    /// The built-in set.
    pub fn builtin() -> Sources {
        let mut sources = Sources::default();
        let (raws, _) = crate::pgn::split_bytes(BUILTIN.as_bytes());
        for raw in &raws {
            sources.add(&parse_game(raw));
        }
        sources
    }

    /// Every decided game of these files.
    pub fn read(paths: &[PathBuf]) -> Result<Sources, SourceError> {
        let mut sources = Sources::default();
        for path in paths {
            let src = source::open(path)?;
            for raw in Splitter::new(src) {
                let raw = raw.map_err(|e| SourceError::Read {
                    name: path.display().to_string(),
                    source: e.source,
                })?;
                sources.add(&parse_game_bytes(
                    &raw.bytes,
                    raw.game_number,
                    raw.byte_offset,
                    raw.line,
                ));
            }
        }
        Ok(sources)
    }

    /// Games lent per result (white wins, draws, black wins).
    pub fn counts(&self) -> [usize; 3] {
        self.by_result.each_ref().map(Vec::len)
    }

    /// A result no source game lends its moves to (`1-0`, `1/2-1/2` or `0-1`), if any: the
    /// generator needs all three.
    pub fn missing_result(&self) -> Option<&'static str> {
        (0..3)
            .find(|&i| self.by_result[i].is_empty())
            .map(|i| RESULT_TEXT[i])
    }

    fn add(&mut self, game: &crate::pgn::Game) {
        let index = match game.tag("Result") {
            Some("1-0") => 0,
            Some("1/2-1/2") => 1,
            Some("0-1") => 2,
            _ => {
                self.skipped += 1;
                return;
            }
        };
        let played = replay(game, SanMode::Lenient);
        let lawful = || {
            let verdict = judge_replayed(
                &verdict_input(game, &played),
                &played.final_position(),
                &VerdictOptions::default(),
            );
            verdict.recorded_result == Some(RESULTS[index])
                && verdict.lawful_result.is_none_or(|r| r == RESULTS[index])
        };
        if game.is_rejected()
            || played.is_rejected()
            || !played.complete
            || played.start_fen.is_some()
            || played.moves.is_empty()
            || !lawful()
        {
            self.skipped += 1;
            return;
        }
        let mut pos = played.start;
        let mut words = Vec::with_capacity(played.moves.len() * 3 / 2 + 1);
        for &m in &played.moves {
            if pos.turn() == crate::chess::Color::White {
                words.push(format!("{}.", pos.fullmove_number()));
            }
            words.push(to_san(&pos, m).to_string());
            pos.play_unchecked(m);
        }
        words.push(RESULT_TEXT[index].to_owned());
        self.by_result[index].push(Borrowed {
            eco: game.tag("ECO").map(str::to_owned),
            movetext: wrap(&words),
        });
    }
}

const RESULTS: [GameResult; 3] = [
    GameResult::WhiteWins,
    GameResult::Draw,
    GameResult::BlackWins,
];

/// Words joined by spaces in lines of at most 79 characters, each line ending in `\n`.
fn wrap(words: &[String]) -> String {
    let mut out = String::new();
    let mut line = 0;
    for w in words {
        if line > 0 && line + 1 + w.len() > 79 {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(w);
        line += w.len();
    }
    out.push('\n');
    out
}

/// The hidden pool: each person's true rating and activity, and the persons by rating.
pub struct Pool {
    pub ratings: Vec<f64>,
    /// Running sum of the activity weights (who plays often), for drawing White.
    activity: Vec<f64>,
    /// Person indices sorted by true rating, and those ratings.
    by_rating: Vec<u32>,
    sorted: Vec<f64>,
}

impl Pool {
    fn new(players: u32, rng: &mut Rng) -> Pool {
        let ratings: Vec<f64> = (0..players)
            .map(|_| (MEAN + SPREAD * rng.normal()).clamp(FLOOR, CEILING))
            .map(|r| (r * 10.0).round() / 10.0)
            .collect();
        let mut total = 0.0;
        let activity = (0..players)
            .map(|_| {
                total += rng.normal().exp();
                total
            })
            .collect();
        let mut by_rating: Vec<u32> = (0..players).collect();
        by_rating.sort_by(|&a, &b| ratings[a as usize].total_cmp(&ratings[b as usize]));
        let sorted = by_rating.iter().map(|&i| ratings[i as usize]).collect();
        Pool {
            ratings,
            activity,
            by_rating,
            sorted,
        }
    }

    /// Someone drawn by activity, and an opponent near his strength (never himself).
    fn pairing(&self, rng: &mut Rng) -> (u32, u32) {
        let total = self.activity[self.activity.len() - 1];
        let a = self
            .activity
            .partition_point(|&c| c <= rng.unit() * total)
            .min(self.activity.len() - 1) as u32;
        let target = self.ratings[a as usize] + OPPONENT_SPREAD * rng.normal();
        let mut at = self
            .sorted
            .partition_point(|&r| r < target)
            .min(self.sorted.len() - 1);
        if self.by_rating[at] == a {
            at = if at + 1 < self.sorted.len() {
                at + 1
            } else {
                at - 1
            };
        }
        (a, self.by_rating[at])
    }

    /// The result index (0 White wins, 1 draw, 2 Black wins) under the logistic model:
    /// White's expected score E = 1 / (1 + 10^((Rb − Ra)/400)); draws take
    /// `draw_rate`·4E(1−E) of the games, half from each side, so the expectation stays E.
    fn result(&self, white: u32, black: u32, draw_rate: f64, rng: &mut Rng) -> usize {
        let diff = self.ratings[black as usize] - self.ratings[white as usize];
        let e = 1.0 / (1.0 + 10f64.powf(diff / 400.0));
        let draw = draw_rate * 4.0 * e * (1.0 - e);
        let u = rng.unit();
        if u < e - draw / 2.0 {
            0
        } else if u < e + draw / 2.0 {
            1
        } else {
            2
        }
    }
}

/// The seeded generator with the draws the pool needs.
struct Rng(crate::rng::Rng);

impl Rng {
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.below(n)
    }
}

/// Per person: games, points (draws as halves), for the truth file.
#[derive(Clone, Copy, Default)]
struct Tally {
    games: u64,
    half_points: u64,
}

/// What was written.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub games: u64,
    /// White wins, draws, Black wins.
    pub results: [u64; 3],
    /// Persons who played at least once.
    pub active: u64,
}

/// Writes the collection to `out` (and the truth CSV to `truth`).
pub fn generate(
    spec: &Spec,
    sources: &Sources,
    out: &mut dyn Write,
    truth: Option<&mut dyn Write>,
) -> std::io::Result<Written> {
    let mut rng = Rng(crate::rng::Rng::new(spec.seed));
    let pool = Pool::new(spec.players, &mut rng);
    let mut tally = vec![Tally::default(); spec.players as usize];
    let mut written = Written::default();
    let weight_total: u64 = TIME_CONTROLS.iter().map(|t| t.1).sum();
    // The chain games: neighbours by rating play once, spread evenly over the run, and
    // draw, so every person belongs to one pool in which each scored against the rest both
    // ways: the maximum-likelihood ratings exist (no set of persons only won or only lost
    // against the others), as in a real pool with enough games.
    let links = u64::from(spec.players.saturating_sub(1));
    let stride = spec.games.checked_div(links).unwrap_or(0);
    let mut text = String::with_capacity(4096);
    for g in 0..spec.games {
        let chain = stride > 0 && g % stride == 0 && g / stride < links;
        let (mut white, mut black) = if chain {
            let j = (g / stride) as usize;
            (pool.by_rating[j], pool.by_rating[j + 1])
        } else {
            pool.pairing(&mut rng)
        };
        if rng.unit() < 0.5 {
            std::mem::swap(&mut white, &mut black);
        }
        let result = if chain {
            1
        } else {
            pool.result(white, black, spec.draw_rate, &mut rng)
        };
        let lent = &sources.by_result[result];
        let borrowed = &lent[rng.below(lent.len())];
        let year = FIRST_YEAR + g * YEARS / spec.games.max(1);
        let (month, day) = (1 + rng.below(12), 1 + rng.below(28));
        let mut pick = rng.below(weight_total as usize) as u64;
        let tc = TIME_CONTROLS
            .iter()
            .find(|t| {
                let hit = pick < t.1;
                pick = pick.saturating_sub(t.1);
                hit
            })
            .map_or("-", |t| t.0);
        text.clear();
        use std::fmt::Write as _;
        let _ = write!(
            text,
            "[Event \"Synthetic Open {}\"]\n[Site \"Synthetic\"]\n[Date \"{year}.{month:02}.{day:02}\"]\n\
             [Round \"{}\"]\n[White \"{}\"]\n[Black \"{}\"]\n[Result \"{}\"]\n",
            g / EVENT_GAMES + 1,
            g % EVENT_GAMES + 1,
            name(white),
            name(black),
            RESULT_TEXT[result],
        );
        for (tag, person) in [("WhiteElo", white), ("BlackElo", black)] {
            // One rating in twenty is missing, as in real files; the others are the truth
            // seen through a list's noise.
            if rng.below(20) != 0 {
                let seen = pool.ratings[person as usize] + 25.0 * rng.normal();
                let _ = writeln!(text, "[{tag} \"{}\"]", seen.round() as i64);
            }
        }
        if let Some(eco) = &borrowed.eco {
            let _ = writeln!(text, "[ECO \"{eco}\"]");
        }
        let _ = write!(text, "[TimeControl \"{tc}\"]\n\n{}\n", borrowed.movetext);
        out.write_all(text.as_bytes())?;
        written.games += 1;
        written.results[result] += 1;
        let points = [2, 1, 0][result];
        for (person, p) in [(white, points), (black, 2 - points)] {
            let t = &mut tally[person as usize];
            t.games += 1;
            t.half_points += p;
        }
    }
    written.active = tally.iter().filter(|t| t.games > 0).count() as u64;
    if let Some(csv) = truth {
        writeln!(csv, "player,true_rating,games,score")?;
        for (i, t) in tally.iter().enumerate() {
            writeln!(
                csv,
                "{},{:.1},{},{}",
                csv_field(&name(i as u32)),
                pool.ratings[i],
                t.games,
                t.half_points as f64 / 2.0
            )?;
        }
        csv.flush()?;
    }
    Ok(written)
}

/// The synthetic person's name: one spelling each, never near another's in a way the
/// identity rules would merge.
pub fn name(person: u32) -> String {
    format!("Synth{person:07}, Player")
}

fn csv_field(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(games: u64, players: u32, seed: u64) -> Spec {
        Spec {
            games,
            players,
            seed,
            draw_rate: 0.3,
        }
    }

    fn write(spec: &Spec) -> (String, String, Written) {
        let (mut pgn, mut truth) = (Vec::new(), Vec::new());
        let written = generate(spec, &Sources::builtin(), &mut pgn, Some(&mut truth)).unwrap();
        (
            String::from_utf8(pgn).unwrap(),
            String::from_utf8(truth).unwrap(),
            written,
        )
    }

    #[test]
    fn builtin_sources_are_all_kept() {
        let sources = Sources::builtin();
        assert_eq!(sources.counts(), [4, 3, 4]);
        assert_eq!(sources.skipped, 0);
    }

    #[test]
    fn writes_exact_counts_of_distinct_games_and_a_truth_row_per_person() {
        let (pgn, truth, written) = write(&spec(1000, 50, 7));
        assert_eq!(written.games, 1000);
        assert_eq!(written.results.iter().sum::<u64>(), 1000);
        assert_eq!(written.active, 50);
        let (games, _) = crate::pgn::parse_all(pgn.as_bytes());
        assert_eq!(games.len(), 1000);
        assert!(games.iter().all(|g| !g.is_rejected()));
        let keys: std::collections::HashSet<(String, String)> = games
            .iter()
            .map(|g| {
                (
                    g.tag("Event").unwrap().to_owned(),
                    g.tag("Round").unwrap().to_owned(),
                )
            })
            .collect();
        assert_eq!(keys.len(), 1000, "every game has its own Event and Round");
        let names: std::collections::HashSet<&str> = games
            .iter()
            .flat_map(|g| [g.tag("White").unwrap(), g.tag("Black").unwrap()])
            .collect();
        assert_eq!(names.len(), 50);
        let rows: Vec<&str> = truth.lines().collect();
        assert_eq!(rows[0], "player,true_rating,games,score");
        assert_eq!(rows.len(), 51);
        let games_in_truth: u64 = rows[1..]
            .iter()
            .map(|r| r.split(',').nth(3).unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(games_in_truth, 2000, "each game counted for both persons");
        // The built-in moves end as the results say.
        for g in &games {
            let result = g.tag("Result").unwrap();
            assert!(crate::pgn::export_marker(g).as_str() == result, "{result}");
        }
    }

    #[test]
    fn the_same_seed_writes_the_same_bytes_and_another_seed_does_not() {
        let a = write(&spec(300, 40, 11));
        let b = write(&spec(300, 40, 11));
        let c = write(&spec(300, 40, 12));
        assert_eq!(a, b);
        assert_ne!(a.0, c.0);
    }

    #[test]
    fn the_drawn_games_alone_connect_every_person() {
        let (pgn, _, _) = write(&spec(200, 150, 3));
        let (games, _) = crate::pgn::parse_all(pgn.as_bytes());
        let mut parent: Vec<usize> = (0..150).collect();
        fn root(p: &mut [usize], mut i: usize) -> usize {
            while p[i] != i {
                p[i] = p[p[i]];
                i = p[i];
            }
            i
        }
        let id = |n: &str| n[5..12].parse::<usize>().unwrap();
        for g in games.iter().filter(|g| g.tag("Result") == Some("1/2-1/2")) {
            let (a, b) = (id(g.tag("White").unwrap()), id(g.tag("Black").unwrap()));
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra] = rb;
        }
        let r0 = root(&mut parent, 0);
        assert!((0..150).all(|i| root(&mut parent, i) == r0));
    }

    #[test]
    fn results_follow_the_logistic_model() {
        // 20,000 games: White's points equal the model's expectation to within 1 %, the
        // stronger side scores clearly more, and about a quarter of the games are drawn.
        let (pgn, truth, w) = write(&spec(20_000, 20, 5));
        let rating: std::collections::HashMap<String, f64> = truth
            .lines()
            .skip(1)
            .map(|r| {
                let f: Vec<&str> = r.split(',').collect();
                (
                    format!("{},{}", f[0], f[1]).replace('"', ""),
                    f[2].parse().unwrap(),
                )
            })
            .collect();
        let (games, _) = crate::pgn::parse_all(pgn.as_bytes());
        let (mut expected, mut actual, mut stronger) = (0.0, 0.0, 0.0);
        for g in &games {
            let (a, b) = (
                rating[g.tag("White").unwrap()],
                rating[g.tag("Black").unwrap()],
            );
            let e = 1.0 / (1.0 + 10f64.powf((b - a) / 400.0));
            let s = match g.tag("Result").unwrap() {
                "1-0" => 1.0,
                "0-1" => 0.0,
                _ => 0.5,
            };
            expected += e;
            actual += s;
            stronger += if a >= b { s } else { 1.0 - s };
        }
        let n = games.len() as f64;
        assert!((actual - expected).abs() / n < 0.01, "{actual} {expected}");
        assert!(stronger / n > 0.6, "{}", stronger / n);
        let draws = w.results[1] as f64 / n;
        assert!((0.15..0.3).contains(&draws), "{draws}");
    }

    #[test]
    fn specs_that_cannot_be_honoured_are_refused() {
        assert_eq!(
            Spec::new(10, 12, 1, 0.3),
            Err(SpecError::NoPool {
                players: 12,
                games: 10
            })
        );
        assert_eq!(Spec::new(10, 1, 1, 0.3), Err(SpecError::TooFewPlayers));
        assert_eq!(Spec::new(10, 5, 1, 0.7), Err(SpecError::DrawRate(0.7)));
        assert_eq!(Spec::new(10, 11, 1, 0.3).map(|s| s.players), Ok(11));
    }
}
