//! The parallel driver: a reading thread splits each input into raw games and ships them in
//! batches; rayon workers process a batch; the calling thread hands the results, in input
//! order, to a `Sink`. Memory stays bounded by the few batches in flight.

use super::progress::Progress;
use super::source::{self, Source};
use super::summary::Summary;
use super::work::{Processed, WorkOptions, process};
use crate::pgn::{Finding, RawGame, Splitter};
use rayon::prelude::*;
use std::io;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, sync_channel};
use std::thread;

/// Games per batch, and the most bytes a batch may hold before it is sent anyway. A batch's
/// parsed games and replays (about 10 kB a game) should stay in the cache until they are
/// delivered and dropped: with 1024 games a batch they did not, and `check --jobs 1` spent
/// about a tenth more time (freeing cold move lists, touching fresh pages).
const BATCH_GAMES: usize = 256;
const BATCH_BYTES: usize = 4 << 20;

/// Where processed games go, one at a time, in input order, on one thread.
pub trait Sink {
    /// A new input starts; `name` is the path as given (`-` for stdin).
    fn begin_file(&mut self, _name: &str, _source: &SourceInfo) -> io::Result<()> {
        Ok(())
    }
    /// Decides, before any work is done, whether a game should be processed at all (an
    /// import that resumes skips games already committed).
    fn wants(&mut self, _name: &str, _raw: &RawGame) -> bool {
        true
    }
    fn game(&mut self, name: &str, game: &Processed) -> io::Result<()>;
    /// The end of a batch: a natural point to commit.
    fn end_batch(&mut self, _name: &str, _last_byte: u64, _last_game: u64) -> io::Result<()> {
        Ok(())
    }
    /// Findings that belong to no game (text after the last game), or a read error.
    fn file_findings(&mut self, _name: &str, _findings: &[Finding]) -> io::Result<()> {
        Ok(())
    }
    /// The input ended; `complete` is false when it could not be read to the end.
    fn end_file(&mut self, _name: &str, _complete: bool) -> io::Result<()> {
        Ok(())
    }
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

enum Message {
    Begin(String, SourceInfo),
    Batch(String, Vec<RawGame>),
    End(String, Vec<Finding>, Option<String>),
    OpenFailed(String, String),
}

/// Runs every input through the workers into the sink. I/O errors of the sink end the run;
/// an input that cannot be opened or read is reported in the summary and the run goes on.
pub fn run(options: &RunOptions, sink: &mut (dyn Sink + Send)) -> io::Result<Summary> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs)
        .build()
        .map_err(io::Error::other)?;
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
                    if tx.send(Message::OpenFailed(name, e.to_string())).is_err() {
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
            if tx.send(Message::Begin(name.clone(), info)).is_err() {
                return;
            }
            let mut splitter = Splitter::new(src);
            let mut batch = Vec::with_capacity(BATCH_GAMES);
            let mut batch_bytes = 0;
            let mut error = None;
            let base = consumed_total.load(std::sync::atomic::Ordering::Relaxed);
            for item in splitter.by_ref() {
                match item {
                    Ok(raw) => {
                        batch_bytes += raw.bytes.len();
                        batch.push(raw);
                        if batch.len() >= BATCH_GAMES || batch_bytes >= BATCH_BYTES {
                            consumed_total.store(
                                base + consumed.load(std::sync::atomic::Ordering::Relaxed),
                                std::sync::atomic::Ordering::Relaxed,
                            );
                            let full =
                                std::mem::replace(&mut batch, Vec::with_capacity(BATCH_GAMES));
                            batch_bytes = 0;
                            if tx.send(Message::Batch(name.clone(), full)).is_err() {
                                return;
                            }
                        }
                    }
                    Err(e) => {
                        error = Some(format!("{name}: {e}"));
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
            if tx.send(Message::End(name, trailing, error)).is_err() {
                return;
            }
        }
    });
    let result = drive(&rx, &pool, options, sink, &progress);
    drop(rx);
    let _ = reader.join();
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

/// Hands a processed batch to the sink, in order, and counts it.
fn deliver(
    done: Done,
    sink: &mut (dyn Sink + Send),
    summary: &mut Summary,
    progress: &Progress,
) -> io::Result<()> {
    for p in &done.processed {
        summary.games += 1;
        if p.rejected {
            summary.rejected += 1;
        } else {
            summary.accepted += 1;
        }
        summary.plies += p.replay.plies() as u64;
        summary.count_findings(&p.findings);
        sink.game(&done.name, p)?;
    }
    sink.end_batch(&done.name, done.last_byte, done.last_game)?;
    progress.games(done.processed.len() as u64);
    Ok(())
}

/// Receives batches in input order. While the workers process batch n+1, batch n is handed
/// to the sink (the database writer) on this thread, so writing overlaps the work.
fn drive(
    rx: &Receiver<Message>,
    pool: &rayon::ThreadPool,
    options: &RunOptions,
    sink: &mut (dyn Sink + Send),
    progress: &Progress,
) -> io::Result<Summary> {
    let mut summary = Summary::default();
    let mut pending: Option<Done> = None;
    for message in rx.iter() {
        if !matches!(message, Message::Batch(..))
            && let Some(done) = pending.take()
        {
            deliver(done, sink, &mut summary, progress)?;
        }
        match message {
            Message::OpenFailed(name, error) => {
                eprintln!("arbiter: {error}");
                summary.failed_files.push(name);
            }
            Message::Begin(name, info) => {
                summary.files += 1;
                sink.begin_file(&name, &info)?;
            }
            Message::Batch(name, raws) => {
                let Some(last) = raws.last() else { continue };
                let (last_byte, last_game) =
                    (last.byte_offset + last.bytes.len() as u64, last.game_number);
                let wanted: Vec<RawGame> =
                    raws.into_iter().filter(|r| sink.wants(&name, r)).collect();
                let work = options.work;
                let previous = pending.take();
                // The workers process this batch while this thread hands the previous one to
                // the sink and drops it: with `--jobs 1` the one worker only parses, replays
                // and judges.
                let mut processed = Vec::new();
                let delivered = pool.in_place_scope(|scope| {
                    let processed = &mut processed;
                    scope.spawn(move |_| {
                        *processed = wanted
                            .into_par_iter()
                            .map(|raw| process(raw, &work))
                            .collect::<Vec<_>>();
                    });
                    match previous {
                        Some(done) => deliver(done, sink, &mut summary, progress),
                        None => Ok(()),
                    }
                });
                delivered?;
                pending = Some(Done {
                    name,
                    processed,
                    last_byte,
                    last_game,
                });
            }
            Message::End(name, trailing, error) => {
                summary.count_findings(&trailing);
                sink.file_findings(&name, &trailing)?;
                let complete = error.is_none();
                if let Some(e) = error {
                    eprintln!("arbiter: {e}");
                    summary.failed_files.push(name.clone());
                }
                sink.end_file(&name, complete)?;
            }
        }
    }
    if let Some(done) = pending.take() {
        deliver(done, sink, &mut summary, progress)?;
    }
    Ok(summary)
}
