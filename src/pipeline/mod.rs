//! Moving games through the program: sources of bytes (files, stdin, decompression,
//! progress counting), the parallel driver that keeps input order, the per-game work on the
//! workers, and the sinks that write results (findings, quarantine, summary). Nothing here
//! prints: notes (`report`) and errors (`error`) come back to the caller.

pub mod analyse;
pub mod error;
pub mod import;
pub mod parquet_positions;
pub mod parquet_sink;
pub mod progress;
pub mod record;
pub mod report;
pub mod run;
pub mod sinks;
pub mod source;
pub mod summary;
pub mod work;

pub use error::{RunError, SinkError};
pub use report::{Note, What};
pub use run::{Begun, Report, RunOptions, Sink, SourceInfo, run};
pub use summary::Summary;
pub use work::{Keep, Processed, WorkOptions};
