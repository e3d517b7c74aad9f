//! Opening classification by position against lichess's own `ECO` and `Opening` tags on the
//! lichess games of the corpus (`ARBITER_CORPUS`). Prints the agreement share and the most
//! frequent disagreements; asserts the share measured (docs/IDENTITY.md explains the rest).

use arbiter::chess::SanMode;
use arbiter::identity::openings::classify;
use arbiter::pgn::{Splitter, parse_game};
use std::collections::HashMap;

use crate::common;
use common::corpus;

/// (games with both tags, ECO equal, ECO and name equal, disagreements by (ours, theirs)).
fn agreement(file: &str) -> (u64, u64, u64, HashMap<(String, String), u64>) {
    let path = corpus().unwrap().join("games/lichess").join(file);
    let data = std::fs::read(&path).unwrap();
    let (mut games, mut eco, mut both) = (0, 0, 0);
    let mut differ = HashMap::new();
    for raw in Splitter::new(&data[..]) {
        let game = parse_game(&raw.unwrap());
        let (Some(tag_eco), Some(tag_name)) = (game.tag("ECO"), game.tag("Opening")) else {
            continue;
        };
        let (tag_eco, tag_name) = (tag_eco.to_owned(), tag_name.to_owned());
        let replay = arbiter::game::replay(&game, SanMode::Lenient);
        games += 1;
        let ours = classify(&replay.start, &replay.moves);
        let (our_eco, our_name) = ours.map_or(("?", "?"), |o| (o.eco, o.name));
        if our_eco == tag_eco {
            eco += 1;
            if our_name == tag_name {
                both += 1;
                continue;
            }
        }
        *differ
            .entry((
                format!("{our_eco} {our_name}"),
                format!("{tag_eco} {tag_name}"),
            ))
            .or_insert(0) += 1;
    }
    (games, eco, both, differ)
}

#[test]
fn lichess_tags_agree_with_classification_by_position() {
    if corpus().is_none() {
        println!("ARBITER_CORPUS not set: skipping");
        return;
    }
    // Floors a little under the shares measured (docs/IDENTITY.md): the names in the files
    // are lichess's of their day; the data built in is newer and renamed some openings.
    for (file, eco_floor, floor) in [
        ("lichess_2021-10_first999.pgn", 0.95, 0.82),
        ("lichess_db_1000k.pgn", 0.99, 0.96),
    ] {
        let (games, eco, both, differ) = agreement(file);
        let share = both as f64 / games as f64;
        println!(
            "{file}: {games} games, ECO equal {eco} ({:.1} %), ECO and name equal {both} ({:.1} %)",
            100.0 * eco as f64 / games as f64,
            100.0 * share
        );
        let mut differ: Vec<_> = differ.into_iter().collect();
        differ.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for ((ours, theirs), n) in differ.iter().take(12) {
            println!("  {n:5}  ours {ours:?}  lichess {theirs:?}");
        }
        assert!(games > 0, "{file}: {games}");
        let eco_share = eco as f64 / games as f64;
        assert!(
            eco_share >= eco_floor,
            "{file}: {eco_share:.3} < {eco_floor}"
        );
        assert!(share >= floor, "{file}: {share:.3} < {floor}");
    }
}

/// The cost of classification beside the replay it rides on, on the master games: prints
/// the medians of interleaved runs (parse + replay, then the same plus `classify`). A
/// measurement, not a timed assertion: run with `--release --ignored --nocapture`.
#[test]
#[ignore]
fn classification_cost_on_master_games() {
    let Some(dir) = corpus().map(|c| c.join("games/otb-pgnmentor")) else {
        return;
    };
    let mut data = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        data.extend(std::fs::read(f).unwrap());
    }
    let games: Vec<_> = Splitter::new(&data[..])
        .map(|r| parse_game(&r.unwrap()))
        .collect();
    let _ = arbiter::identity::openings::Book::get();
    let (mut plain, mut with) = (Vec::new(), Vec::new());
    for _ in 0..9 {
        for classify_too in [false, true] {
            let t = std::time::Instant::now();
            let mut named = 0u64;
            for g in &games {
                let r = arbiter::game::replay(g, SanMode::Lenient);
                if classify_too && classify(&r.start, &r.moves).is_some() {
                    named += 1;
                }
            }
            let ms = t.elapsed().as_secs_f64() * 1e3;
            if classify_too {
                with.push(ms);
                assert!(named > 40_000, "{named}");
            } else {
                plain.push(ms);
            }
        }
    }
    plain.sort_by(f64::total_cmp);
    with.sort_by(f64::total_cmp);
    let (p, w) = (plain[plain.len() / 2], with[with.len() / 2]);
    println!(
        "{} games: replay {p:.1} ms, replay + classify {w:.1} ms: classification {:.1} ms ({:.1} % of the replay)",
        games.len(),
        w - p,
        100.0 * (w - p) / p
    );
}
