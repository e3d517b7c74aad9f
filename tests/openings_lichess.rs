//! Opening classification by position against lichess's own `ECO` and `Opening` tags on the
//! lichess games of the corpus (`ARBITER_CORPUS`). Prints the agreement share and the most
//! frequent disagreements; asserts the share measured (docs/IDENTITY.md explains the rest).

use arbiter::chess::SanMode;
use arbiter::identity::openings::classify;
use arbiter::pgn::{Splitter, parse_game};
use std::collections::HashMap;
use std::path::PathBuf;

fn corpus() -> Option<PathBuf> {
    std::env::var_os("ARBITER_CORPUS").map(PathBuf::from)
}

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
