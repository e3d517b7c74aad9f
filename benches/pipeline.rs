//! Bench of the whole per-game work on real games: split + parse + replay (and the
//! Laws' verdict) of the Kasparov file from `$ARBITER_CORPUS/games/otb-pgnmentor/`, one
//! thread, reported in games per second; and a full `import` of it into a fresh SQLite file
//! through the parallel pipeline. Skipped when `ARBITER_CORPUS` is unset.

use arbiter::chess::SanMode;
use arbiter::db::{StoreWriter, open};
use arbiter::laws::VerdictOptions;
use arbiter::pgn::Splitter;
use arbiter::pipeline::import::ImportSink;
use arbiter::pipeline::work::{Keep, WorkOptions, process};
use arbiter::pipeline::{RunOptions, run};
use std::path::PathBuf;
use std::time::Instant;

mod harness;
use harness::Throughput;

fn input() -> Option<PathBuf> {
    Some(
        PathBuf::from(std::env::var_os("ARBITER_CORPUS")?).join("games/otb-pgnmentor/Kasparov.pgn"),
    )
}

fn main() {
    let Some(path) = input() else {
        println!("ARBITER_CORPUS not set: skipping the pipeline bench");
        return;
    };
    let data = std::fs::read(&path).expect("corpus file readable");
    let games = Splitter::new(&data[..]).count() as u64;
    let group = harness::group("pipeline").throughput(Throughput::Elements(games));
    for (name, laws) in [
        ("replay", None),
        ("replay+laws", Some(VerdictOptions::default())),
    ] {
        let options = WorkOptions {
            mode: SanMode::Lenient,
            laws,
            analysis: None,
        };
        group.bench(name, || {
            Splitter::new(&data[..])
                .map(|raw| process(raw.expect("in memory"), &options, Keep::Findings).plies)
                .sum::<usize>()
        });
    }
    // The temporary folder is made and removed outside the timed part.
    group.bench_timed("import", || {
        let dir = tempfile::tempdir().expect("temp dir");
        let start = Instant::now();
        let conn = open(&dir.path().join("bench.sqlite")).expect("database");
        let mut sink = ImportSink::new(StoreWriter::new(conn).expect("writer"), "{}".into());
        let options = RunOptions {
            inputs: vec![path.clone()],
            work: WorkOptions {
                mode: SanMode::Lenient,
                laws: Some(VerdictOptions::default()),
                analysis: None,
            },
            jobs: 0,
            progress: false,
        };
        run(&options, &mut sink, &mut |_| {}).expect("import runs");
        let stored = sink.finish().expect("import finishes").stored;
        let took = start.elapsed();
        assert_eq!(stored as u64, games, "every game stored");
        took
    });
}
