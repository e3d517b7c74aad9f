//! The parallel driver: a reading thread splits each input into raw games and ships them in
//! batches; each rayon worker takes a whole batch; the calling thread hands the results, in
//! input order, to a `Sink`. Memory stays bounded by the few batches in flight. What the
//! user should hear of (an input not read, a rejected game) goes, in the same order, to the
//! caller's report function as a `Note`.

use super::error::{RunError, SinkError};
use super::progress::Progress;
use super::report::{Note, What};
use super::source::{self, Source, SourceError, describe_no_game};
use super::summary::Summary;
use super::work::{Keep, Processed, WorkOptions, process};
use crate::pgn::{Finding, RawGame, SplitError, Splitter};
use rayon::prelude::*;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::thread;
use std::time::Duration;

/// Games per batch, and the most bytes a batch may hold before it is sent anyway. A batch's
/// parsed games and replays (about 10 kB a game) should stay in the cache until they are
/// delivered and dropped: with 1024 games a batch they did not, and `check --jobs 1` spent
/// about a tenth more time (freeing cold move lists, touching fresh pages).
const BATCH_GAMES: usize = 256;
const BATCH_BYTES: usize = 4 << 20;
/// Games in a file's first batch; each further batch of the file doubles it, up to
/// `BATCH_GAMES`. A whole batch goes to one worker, so a file of a few hundred games sent
/// as one batch was worked on one core: with the ramp its first games are split among
/// the workers, and large files lose nothing (five more batches each).
const FIRST_BATCH_GAMES: usize = 16;

/// How often the driver, waiting for the reader, looks whether Ctrl-C was pressed.
const INTERRUPT_POLL: Duration = Duration::from_millis(100);

/// Where processed games go, one at a time, in input order, on one thread. A sink's error
/// ends the run.
pub trait Sink {
    /// A new input starts; `name` is the path as given (`-` for stdin). Says whether an
    /// earlier run's games of it are skipped.
    fn begin_file(&mut self, _name: &str, _source: &SourceInfo) -> Result<Begun, SinkError> {
        Ok(Begun::FromStart)
    }
    /// Decides, before any work is done, whether a game should be processed at all (an
    /// import that resumes skips games already committed).
    fn wants(&mut self, _name: &str, _raw: &RawGame) -> bool {
        true
    }
    /// True when `wants` reads what `begin_file` set up (an import's resume point): the
    /// driver then delivers every earlier game before a new file begins, so that file's
    /// games are only asked about after its `begin_file`. Otherwise the files' batches go to
    /// the workers one after another without waiting, and many small files use every core.
    fn wants_after_begin(&self) -> bool {
        false
    }
    /// For a sink whose `wants` reads `begin_file`: called when a file is opened, before the
    /// earlier files' games are delivered. True when the sink has set up its `wants` for the
    /// file already (an import looks its resume point up), so the workers go on into the new
    /// file without waiting for the writer; false keeps the wait.
    fn prepare_file(&mut self, _name: &str, _source: &SourceInfo) -> Result<bool, SinkError> {
        Ok(false)
    }
    /// What the workers keep of each game for `game` (by default its findings and counts;
    /// the parsed game itself is dropped on the worker).
    fn keeps(&self) -> Keep {
        Keep::Findings
    }
    fn game(&mut self, name: &str, game: &Processed) -> Result<(), SinkError>;
    /// The end of a batch: a natural point to commit.
    fn end_batch(
        &mut self,
        _name: &str,
        _last_byte: u64,
        _last_game: u64,
    ) -> Result<(), SinkError> {
        Ok(())
    }
    /// Findings that belong to no game (text after the last game), or a read error.
    fn file_findings(&mut self, _name: &str, _findings: &[Finding]) -> Result<(), SinkError> {
        Ok(())
    }
    /// The input ended; `complete` is false when it could not be read to the end.
    fn end_file(&mut self, _name: &str, _complete: bool) -> Result<(), SinkError> {
        Ok(())
    }
}

/// How an input begins in a sink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Begun {
    FromStart,
    /// An earlier, interrupted run committed the input's games up to this one: `wants`
    /// skips them.
    ResumedAfter(u64),
}

/// What is known about an input when it starts.
#[derive(Debug, Clone)]
pub struct SourceInfo {
    pub size: Option<u64>,
    pub compression: &'static str,
}

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub inputs: Vec<PathBuf>,
    pub work: WorkOptions,
    /// Worker threads; 0 means all cores.
    pub jobs: usize,
    pub progress: bool,
}

#[cfg(test)]
impl RunOptions {
    /// A run of parsing and replay only (no Laws, no analysis, no progress), over `inputs`
    /// on `jobs` workers: what the tests that need games to go through use.
    pub fn parse_only(inputs: Vec<PathBuf>, jobs: usize) -> RunOptions {
        RunOptions {
            inputs,
            work: WorkOptions {
                mode: crate::chess::SanMode::Lenient,
                laws: None,
                analysis: None,
            },
            jobs,
            progress: false,
        }
    }
}

enum Message {
    Batch(String, Vec<RawGame>),
    File(Event),
}

/// The caller's function that hears each note of a run, on the calling thread, in input
/// order.
pub type Report<'r> = dyn FnMut(Note<'_>) + 'r;

/// Runs every input through the workers into the sink. Errors of the sink end the run; an
/// input that cannot be opened or read is a note to `report`, is counted in the summary, and
/// the run goes on.
pub fn run(
    options: &RunOptions,
    sink: &mut (dyn Sink + Send),
    report: &mut Report<'_>,
) -> Result<Summary, RunError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs)
        .build()
        .map_err(RunError::Threads)?;
    let total_size: u64 = options
        .inputs
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok().map(|m| m.len()))
        .sum();
    let progress = Progress::new(options.progress, total_size);
    let (tx, rx) = sync_channel::<Message>(4);
    let inputs = options.inputs.clone();
    let consumed_total = progress.bytes_counter();
    let reader = thread::spawn(move || {
        for path in inputs {
            let name = path.display().to_string();
            let src: Source = match source::open(&path) {
                Ok(s) => s,
                Err(e) => {
                    if tx.send(Message::File(Event::OpenFailed(name, e))).is_err() {
                        return;
                    }
                    continue;
                }
            };
            let info = SourceInfo {
                size: src.size(),
                compression: src.compression().as_str(),
            };
            let consumed = src.consumed();
            if tx
                .send(Message::File(Event::Begin(name.clone(), info)))
                .is_err()
            {
                return;
            }
            let mut splitter = Splitter::new(src);
            let mut limit = FIRST_BATCH_GAMES;
            let mut batch = Vec::with_capacity(limit);
            let mut batch_bytes = 0;
            let mut error = None;
            let mut games = 0u64;
            let base = consumed_total.load(std::sync::atomic::Ordering::Relaxed);
            for item in splitter.by_ref() {
                match item {
                    Ok(raw) => {
                        games += 1;
                        batch_bytes += raw.bytes.len();
                        batch.push(raw);
                        if batch.len() >= limit || batch_bytes >= BATCH_BYTES {
                            consumed_total.store(
                                base + consumed.load(std::sync::atomic::Ordering::Relaxed),
                                std::sync::atomic::Ordering::Relaxed,
                            );
                            limit = (2 * limit).min(BATCH_GAMES);
                            let full = std::mem::replace(&mut batch, Vec::with_capacity(limit));
                            batch_bytes = 0;
                            if tx.send(Message::Batch(name.clone(), full)).is_err() {
                                return;
                            }
                        }
                    }
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
            consumed_total.store(
                base + consumed.load(std::sync::atomic::Ordering::Relaxed),
                std::sync::atomic::Ordering::Relaxed,
            );
            if !batch.is_empty() && tx.send(Message::Batch(name.clone(), batch)).is_err() {
                return;
            }
            let trailing = splitter.take_trailing_findings();
            let no_game =
                (games == 0 && error.is_none()).then(|| describe_no_game(splitter.head()));
            if tx
                .send(Message::File(Event::End(name, trailing, error, no_game)))
                .is_err()
            {
                return;
            }
        }
    });
    let result = drive(&rx, &pool, options, sink, report, &progress);
    drop(rx);
    // After Ctrl-C the reader may be waiting in a read (stdin): it is left to end with the
    // process. Otherwise it ends at its next send, if not already done.
    if !result.as_ref().is_ok_and(|s| s.interrupted) {
        let _ = reader.join();
    }
    let mut summary = result?;
    summary.bytes = progress.bytes();
    progress.finish();
    Ok(summary)
}

/// A processed batch waiting to be handed to the sink.
struct Done {
    name: String,
    processed: Vec<Processed>,
    last_byte: u64,
    last_game: u64,
}

/// Hands a processed batch to the sink, in order, and counts it; a rejected game is a note
/// first.
fn deliver(
    done: Done,
    to: &mut Deliver<'_, '_>,
    summary: &mut Summary,
    progress: &Progress,
) -> Result<(), SinkError> {
    let Deliver { sink, report } = to;
    for p in &done.processed {
        summary.games += 1;
        if p.rejected {
            summary.rejected += 1;
            report(Note {
                file: &done.name,
                what: What::Rejected(p),
            });
        } else {
            summary.accepted += 1;
        }
        summary.plies += p.plies as u64;
        summary.count_findings(&p.findings);
        sink.game(&done.name, p)?;
    }
    sink.end_batch(&done.name, done.last_byte, done.last_game)?;
    progress.games(done.processed.len() as u64);
    Ok(())
}

/// Batches handed to the workers and not yet delivered: one per worker and up to
/// `QUEUED_BATCHES` more. Each batch goes to one worker whole (see `process_batch`), so with
/// batches queued every worker goes from batch to batch without waiting for this thread to
/// deliver and hand out the next. Measured on the master games, `check --no-laws --jobs 2`
/// (25 interleaved runs, medians): 112 ms when the workers shared one batch at a time and
/// this thread waited for it before handing out the next; 104 ms with four batches in
/// flight, each on one worker (five: the same). The queue stays short on many cores, as
/// each batch in flight holds its raw games and, for an import, their database records
/// (when the parsed games themselves still went to this thread, about 2 MB a batch:
/// `--no-laws --jobs 16` peaked at 176 MB with two batches a worker, 164 MB with one and
/// four queued).
const QUEUED_BATCHES: usize = 4;

fn batches_in_flight(workers: usize) -> usize {
    workers + workers.min(QUEUED_BATCHES)
}

/// A file's event, delivered to the sink in input order among the batches.
enum Event {
    Begin(String, SourceInfo),
    /// The file's trailing findings, its read error, and what it holds when no game was
    /// found in it.
    End(
        String,
        Vec<Finding>,
        Option<SplitError>,
        Option<&'static str>,
    ),
    OpenFailed(String, SourceError),
}

/// Where delivered games and events go: the sink, and the caller's report of notes.
struct Deliver<'s, 'r> {
    sink: &'s mut (dyn Sink + Send),
    report: &'s mut Report<'r>,
}

/// Hands a file's event to the sink, says what the user should hear of, and counts it.
fn deliver_event(
    event: Event,
    to: &mut Deliver<'_, '_>,
    summary: &mut Summary,
) -> Result<(), SinkError> {
    let Deliver { sink, report } = to;
    match event {
        Event::OpenFailed(name, error) => {
            report(Note {
                file: &name,
                what: What::CannotOpen(&error),
            });
            summary.failed_files.push(name);
        }
        Event::Begin(name, info) => {
            summary.files += 1;
            if let Begun::ResumedAfter(after_game) = sink.begin_file(&name, &info)? {
                report(Note {
                    file: &name,
                    what: What::Resumed { after_game },
                });
            }
        }
        Event::End(name, trailing, error, no_game) => {
            summary.count_findings(&trailing);
            sink.file_findings(&name, &trailing)?;
            let complete = error.is_none();
            if let Some(e) = &error {
                report(Note {
                    file: &name,
                    what: What::ReadFailed(e),
                });
                summary.failed_files.push(name.clone());
            }
            if let Some(what) = no_game {
                report(Note {
                    file: &name,
                    what: What::NoGame(what),
                });
                summary.files_without_games.push(name.clone());
            }
            sink.end_file(&name, complete)?;
        }
    }
    Ok(())
}

/// What waits to be handed to the sink, in input order: a batch given to the workers
/// (its results once they are in), or a file's event.
enum Slot {
    Batch {
        name: String,
        last_byte: u64,
        last_game: u64,
        processed: Option<Vec<Processed>>,
    },
    Event(Event),
}

/// The batches in flight and the events between them, oldest first, and the channel the
/// batches' results come back on.
struct InFlight {
    slots: std::collections::VecDeque<Slot>,
    /// Sequence number of `slots[0]`.
    first: u64,
    results: Receiver<(u64, Option<Vec<Processed>>)>,
}

impl InFlight {
    /// Queues a slot; returns its sequence number.
    fn push(&mut self, slot: Slot) -> u64 {
        self.slots.push_back(slot);
        self.first + self.slots.len() as u64 - 1
    }

    /// Batches given to the workers and not yet delivered (a handful: counted, not kept).
    fn batches(&self) -> usize {
        self.slots
            .iter()
            .filter(|s| matches!(s, Slot::Batch { .. }))
            .count()
    }

    /// Takes one batch's results off the channel into its slot.
    fn receive(&mut self) -> Result<(), RunError> {
        // Every batch in `slots` sends its results, or `None` when a worker panicked; the
        // channel closes before that only when a worker died without unwinding.
        let (seq, processed) = self.results.recv().map_err(|_| RunError::WorkerPanicked)?;
        let processed = processed.ok_or(RunError::WorkerPanicked)?;
        if let Some(Slot::Batch { processed: p, .. }) =
            self.slots.get_mut((seq - self.first) as usize)
        {
            *p = Some(processed);
        }
        Ok(())
    }

    /// Delivers, in order, the events and finished batches at the front, and waits for
    /// the workers until at most `keep` batches are left in flight.
    fn settle(
        &mut self,
        keep: usize,
        to: &mut Deliver<'_, '_>,
        summary: &mut Summary,
        progress: &Progress,
    ) -> Result<(), RunError> {
        loop {
            match self.slots.front() {
                None => return Ok(()),
                Some(Slot::Batch {
                    processed: None, ..
                }) => {
                    if self.batches() <= keep {
                        return Ok(());
                    }
                    self.receive()?;
                    continue;
                }
                Some(_) => {}
            }
            let Some(slot) = self.slots.pop_front() else {
                return Ok(());
            };
            self.first += 1;
            match slot {
                Slot::Event(event) => deliver_event(event, to, summary)?,
                Slot::Batch {
                    name,
                    last_byte,
                    last_game,
                    processed,
                } => {
                    let done = Done {
                        name,
                        processed: processed.unwrap_or_default(),
                        last_byte,
                        last_game,
                    };
                    deliver(done, to, summary, progress)?;
                }
            }
        }
    }
}

/// Processes one batch, keeping input order. Parsing, replaying and the Laws take some
/// microseconds a game, so the batch stays on the worker that took it: splitting it among
/// the workers cost `check --jobs 2` about 3 % (the master games, with and without the
/// Laws), and the other workers are busy with the next batches anyway. The search takes
/// milliseconds a game, so with `analysis` the workers share the batch: a file of one batch
/// would otherwise be analysed on one core.
fn process_batch(raws: Vec<RawGame>, work: &WorkOptions, keep: Keep) -> Vec<Processed> {
    if work.analysis.is_some() {
        raws.into_par_iter()
            .map(|raw| process(raw, work, keep))
            .collect()
    } else {
        raws.into_iter()
            .map(|raw| process(raw, work, keep))
            .collect()
    }
}

/// Receives batches in input order and hands each to the workers; delivers the results to
/// the sink (the database writer) on this thread, in input order, while the workers go on
/// with the next batches, so writing overlaps the work.
fn drive(
    rx: &Receiver<Message>,
    pool: &rayon::ThreadPool,
    options: &RunOptions,
    sink: &mut (dyn Sink + Send),
    report: &mut Report<'_>,
    progress: &Progress,
) -> Result<Summary, RunError> {
    let mut summary = Summary::default();
    let work = options.work;
    let in_flight = batches_in_flight(pool.current_num_threads());
    let (results_tx, results) = std::sync::mpsc::channel();
    let mut flight = InFlight {
        slots: std::collections::VecDeque::new(),
        first: 0,
        results,
    };
    let barrier = sink.wants_after_begin();
    let keep = sink.keeps();
    let mut to = Deliver { sink, report };
    // The scope waits for every spawned batch, also when the sink fails part way.
    pool.in_place_scope(|scope| -> Result<(), RunError> {
        loop {
            // Ctrl-C (when the command catches it, `interrupt::install`) stops the reading
            // here: what was handed to the workers is still delivered below.
            let message = match rx.recv_timeout(INTERRUPT_POLL) {
                _ if crate::interrupt::requested() => {
                    summary.interrupted = true;
                    break;
                }
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let event = match message {
                Message::Batch(name, raws) => {
                    let Some(last) = raws.last() else { continue };
                    let (last_byte, last_game) =
                        (last.byte_offset + last.bytes.len() as u64, last.game_number);
                    let wanted: Vec<RawGame> = raws
                        .into_iter()
                        .filter(|r| to.sink.wants(&name, r))
                        .collect();
                    let seq = flight.push(Slot::Batch {
                        name,
                        last_byte,
                        last_game,
                        processed: None,
                    });
                    let tx = results_tx.clone();
                    scope.spawn(move |_| {
                        // A panic is caught so that this thread, waiting for the batch, hears
                        // of it (the panic hook has printed it) instead of waiting forever.
                        let processed = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            process_batch(wanted, &work, keep)
                        }))
                        .ok();
                        // The receiver is gone only when the run already ended in an error.
                        let _ = tx.send((seq, processed));
                    });
                    flight.settle(in_flight - 1, &mut to, &mut summary, progress)?;
                    continue;
                }
                Message::File(event) => event,
            };
            let prepared = match &event {
                Event::Begin(name, info) if barrier => to.sink.prepare_file(name, info)?,
                _ => true,
            };
            if barrier && !prepared {
                // The sink's `wants` depends on `begin_file`: everything before is
                // delivered first.
                flight.settle(0, &mut to, &mut summary, progress)?;
            }
            flight.push(Slot::Event(event));
            flight.settle(in_flight - 1, &mut to, &mut summary, progress)?;
        }
        flight.settle(0, &mut to, &mut summary, progress)
    })?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Records what the driver hands over, in the order it does.
    #[derive(Default)]
    struct Recorder {
        events: Vec<String>,
        games: Vec<(String, u64, usize)>,
        /// The last game number of each batch, by file.
        batch_ends: Vec<(String, u64)>,
        /// Whether `wants` is said to depend on `begin_file` (as the import's does).
        barrier: bool,
        /// `begin_file`, the first `wants` of each file and `end_file`, as called.
        calls: Vec<String>,
    }

    impl Sink for Recorder {
        fn begin_file(&mut self, name: &str, _source: &SourceInfo) -> Result<Begun, SinkError> {
            self.events.push(format!("begin {name}"));
            self.calls.push(format!("begin {name}"));
            Ok(Begun::FromStart)
        }
        fn wants_after_begin(&self) -> bool {
            self.barrier
        }
        fn wants(&mut self, name: &str, _raw: &RawGame) -> bool {
            let call = format!("wants {name}");
            if !self.calls.contains(&call) {
                self.calls.push(call);
            }
            true
        }
        fn game(&mut self, name: &str, game: &Processed) -> Result<(), SinkError> {
            let marker = format!("games {name}");
            if self.events.last() != Some(&marker) {
                self.events.push(marker);
            }
            self.games
                .push((name.to_owned(), game.game_number, game.plies));
            Ok(())
        }
        fn end_batch(
            &mut self,
            name: &str,
            _last_byte: u64,
            last_game: u64,
        ) -> Result<(), SinkError> {
            self.batch_ends.push((name.to_owned(), last_game));
            Ok(())
        }
        fn end_file(&mut self, name: &str, complete: bool) -> Result<(), SinkError> {
            self.events.push(format!("end {name} {complete}"));
            self.calls.push(format!("end {name}"));
            Ok(())
        }
    }

    /// Games numbered in their Event tag, each with as many plies as its number modulo 5
    /// (so that a game delivered out of place would show).
    fn write_games(path: &Path, count: usize) {
        let moves = [
            "",
            "1. Nf3",
            "1. Nf3 Nf6",
            "1. Nf3 Nf6 2. Ng1",
            "1. Nf3 Nf6 2. Ng1 Ng8",
        ];
        let text: String = (1..=count)
            .map(|i| format!("[Event \"{i}\"]\n\n{} *\n\n", moves[i % 5]))
            .collect();
        std::fs::write(path, text).unwrap();
    }

    /// More batches than are ever in flight, over two files and a missing one, with one
    /// worker and with two: every game arrives once, in input order, inside its file's
    /// begin and end.
    #[test]
    fn batches_are_delivered_in_input_order() {
        let dir = tempfile::tempdir().unwrap();
        let counts = [
            (dir.path().join("a.pgn"), 5 * BATCH_GAMES + 17),
            (dir.path().join("b.pgn"), BATCH_GAMES / 2),
        ];
        for (path, count) in &counts {
            write_games(path, *count);
        }
        // One worker (two batches in flight) and two (four in flight, each on one worker,
        // so they may finish out of order).
        assert_eq!(
            [1, 2, 4, 16].map(batches_in_flight),
            [2, 4, 8, 20],
            "one batch a worker and at most four queued"
        );
        for jobs in [1, 2] {
            check_run_order(&counts, jobs, &dir.path().join("missing.pgn"));
        }
    }

    /// Many small files, a missing one among them: the workers take the next files'
    /// batches without waiting for the earlier files to be delivered, and the sink still
    /// sees every file's begin, games and end in input order. Each file's batches grow
    /// from `FIRST_BATCH_GAMES` games, doubling up to `BATCH_GAMES`.
    #[test]
    fn many_small_files_keep_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let sizes = [1, 40, 7, 100, 16, 17, 3, 60, 2, 33, 9, 25];
        let mut inputs = Vec::new();
        for (k, &count) in sizes.iter().enumerate() {
            let path = dir.path().join(format!("f{k:02}.pgn"));
            write_games(&path, count);
            inputs.push(path);
            if k == 5 {
                inputs.push(dir.path().join("missing.pgn"));
            }
        }
        for (jobs, barrier) in [(1, false), (2, false), (2, true)] {
            let options = RunOptions::parse_only(inputs.clone(), jobs);
            let mut sink = Recorder {
                barrier,
                ..Recorder::default()
            };
            let summary = run(&options, &mut sink, &mut |_| {}).unwrap();
            let total: usize = sizes.iter().sum();
            assert_eq!(summary.games, total as u64);
            assert_eq!((summary.files, summary.failed_files.len()), (12, 1));
            let names: Vec<String> = inputs
                .iter()
                .filter(|p| p.exists())
                .map(|p| p.display().to_string())
                .collect();
            let events: Vec<String> = names
                .iter()
                .flat_map(|n| {
                    [
                        format!("begin {n}"),
                        format!("games {n}"),
                        format!("end {n} true"),
                    ]
                })
                .collect();
            assert_eq!(sink.events, events, "jobs {jobs}");
            let games: Vec<(String, u64, usize)> = names
                .iter()
                .zip(sizes)
                .flat_map(|(n, count)| {
                    (1..=count as u64).map(move |i| (n.clone(), i, i as usize % 5))
                })
                .collect();
            assert_eq!(sink.games, games, "jobs {jobs}");
            // Batches of 16, 32, 64... games: the file of 100 ends its batches at games
            // 16, 48 and 100; the file of 17 at 16 and 17.
            let ends = |n: &str| -> Vec<u64> {
                sink.batch_ends
                    .iter()
                    .filter(|(name, _)| name == n)
                    .map(|&(_, last)| last)
                    .collect()
            };
            assert_eq!(ends(&names[3]), [16, 48, 100]);
            assert_eq!(ends(&names[5]), [16, 17]);
            assert_eq!(ends(&names[0]), [1]);
            if barrier {
                // A sink whose `wants` reads `begin_file` is asked about a file's games
                // only between that file's begin and end.
                let calls: Vec<String> = names
                    .iter()
                    .flat_map(|n| {
                        [
                            format!("begin {n}"),
                            format!("wants {n}"),
                            format!("end {n}"),
                        ]
                    })
                    .collect();
                assert_eq!(sink.calls, calls);
            }
        }
    }

    fn check_run_order(counts: &[(PathBuf, usize); 2], jobs: usize, missing: &Path) {
        let (a, b) = (&counts[0].0, &counts[1].0);
        let options = RunOptions::parse_only(vec![a.clone(), missing.to_owned(), b.clone()], jobs);
        let mut sink = Recorder::default();
        let summary = run(&options, &mut sink, &mut |_| {}).unwrap();
        let total = counts[0].1 + counts[1].1;
        assert_eq!(
            (summary.games, summary.accepted),
            (total as u64, total as u64)
        );
        assert_eq!(summary.failed_files, [missing.display().to_string()]);
        let (na, nb) = (a.display().to_string(), b.display().to_string());
        assert_eq!(
            sink.events,
            [
                format!("begin {na}"),
                format!("games {na}"),
                format!("end {na} true"),
                format!("begin {nb}"),
                format!("games {nb}"),
                format!("end {nb} true")
            ]
        );
        let expected: Vec<(String, u64, usize)> = counts
            .iter()
            .flat_map(|(path, count)| {
                let name = path.display().to_string();
                (1..=*count as u64).map(move |i| (name.clone(), i, i as usize % 5))
            })
            .collect();
        assert_eq!(sink.games, expected);
    }

    /// What a run has to say comes back as notes, in input order, each naming its input: a
    /// file that cannot be opened, a rejected game, a file without a game. Nothing is
    /// printed by the library.
    #[test]
    fn notes_come_back_in_input_order_naming_their_file() {
        use crate::pgn::Severity;
        let dir = tempfile::tempdir().unwrap();
        let path = |n: &str| dir.path().join(n);
        let (missing, good, rejects, empty) = (
            path("missing.pgn"),
            path("good.pgn"),
            path("rejects.pgn"),
            path("empty.pgn"),
        );
        write_games(&good, 40);
        std::fs::write(
            &rejects,
            "[Event \"1\"]\n\n1. e4 e5 *\n\n[Event \"2\"]\n\n1. e4 Ke7 *\n",
        )
        .unwrap();
        std::fs::write(&empty, "").unwrap();
        let inputs = vec![missing.clone(), good, rejects.clone(), empty.clone()];
        let name = |p: &Path| p.display().to_string();
        for jobs in [1, 2] {
            let mut notes = Vec::new();
            let summary = run(
                &RunOptions::parse_only(inputs.clone(), jobs),
                &mut Recorder::default(),
                &mut |n: Note<'_>| notes.push((n.file.to_owned(), n.severity(), n.to_string())),
            )
            .unwrap();
            assert_eq!(notes.len(), 3, "{notes:?}");
            assert_eq!(
                notes[0],
                (
                    name(&missing),
                    Severity::Error,
                    format!(
                        "cannot open {}: No such file or directory (os error 2)",
                        name(&missing)
                    )
                )
            );
            let (file, severity, text) = &notes[1];
            assert_eq!((file, *severity), (&name(&rejects), Severity::Error));
            assert!(
                text.starts_with(&format!("{}: game 2, line 7, column 7", name(&rejects)))
                    && text.contains("[move.illegal]"),
                "{text}"
            );
            assert_eq!(
                notes[2],
                (
                    name(&empty),
                    Severity::Error,
                    format!("{}: no PGN game found (the file is empty)", name(&empty))
                )
            );
            assert_eq!(summary.failed_files, [name(&missing)]);
            assert_eq!(summary.files_without_games, [name(&empty)]);
            assert_eq!((summary.games, summary.rejected), (42, 1));
        }
    }
}
