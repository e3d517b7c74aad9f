//! Criterion bench of the whole per-game work on real games: split + parse + replay (and the
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
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::path::PathBuf;

fn input() -> Option<PathBuf> {
    Some(
        PathBuf::from(std::env::var_os("ARBITER_CORPUS")?).join("games/otb-pgnmentor/Kasparov.pgn"),
    )
}

fn bench(c: &mut Criterion) {
    let Some(path) = input() else {
        println!("ARBITER_CORPUS not set: skipping the pipeline bench");
        return;
    };
    let data = std::fs::read(&path).expect("corpus file readable");
    let games = Splitter::new(&data[..]).count() as u64;
    let mut group = c.benchmark_group("pipeline");
    group.sample_size(10);
    group.throughput(Throughput::Elements(games));
    for (name, laws) in [
        ("replay", None),
        ("replay+laws", Some(VerdictOptions::default())),
    ] {
        let options = WorkOptions {
            mode: SanMode::Lenient,
            laws,
            analysis: None,
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                Splitter::new(&data[..])
                    .map(|raw| process(raw.expect("in memory"), &options, Keep::Findings).plies)
                    .sum::<usize>()
            })
        });
    }
    group.bench_function("import", |b| {
        b.iter_with_setup(
            || tempfile::tempdir().expect("temp dir"),
            |dir| {
                let conn = open(&dir.path().join("bench.sqlite")).expect("database");
                let mut sink =
                    ImportSink::new(StoreWriter::new(conn).expect("writer"), "{}".into());
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
                run(&options, &mut sink).expect("import runs");
                sink.finish().expect("import finishes").stored
            },
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
