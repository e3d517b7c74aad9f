//! Where an export goes: standard output, or a file written under a temporary name in the
//! same folder and renamed over the final name only when the export succeeded, so a failure
//! part-way never leaves a truncated file behind. The file's extension picks its compression
//! (`.gz`, `.zst`, `.bz2`, `.xz`); the temporary file is created before any work starts, so
//! an unwritable path fails at once.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Compression chosen by the output file's last extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
    Bzip2,
    Xz,
}

impl Compression {
    pub fn from_path(path: &Path) -> Compression {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("gz") => Compression::Gzip,
            Some("zst") => Compression::Zstd,
            Some("bz2") => Compression::Bzip2,
            Some("xz") => Compression::Xz,
            _ => Compression::None,
        }
    }
}

/// Counts the bytes that reach the file (after compression), for the progress bar.
pub struct Counting<W> {
    inner: W,
    bytes: Arc<AtomicU64>,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A file being written under a temporary name next to its final one.
pub struct TempFile {
    temp: PathBuf,
    target: PathBuf,
    done: bool,
}

impl TempFile {
    /// Creates `.NAME.arbiter-PID.tmp` in the target's folder (fails now if it cannot be
    /// written there) and returns it open. A target that exists and is not a regular file
    /// (`-o /dev/null`, `/dev/stdout`, a named pipe) is opened and written in place:
    /// renaming a file over it would replace the device or pipe with a regular file (as
    /// root, `/dev/null` itself), and its folder is often not writable.
    pub fn create(target: &Path) -> io::Result<(TempFile, File)> {
        if std::fs::metadata(target).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(target)
                .map_err(|e| with_path(target, e))?;
            let direct = TempFile {
                temp: target.to_owned(),
                target: target.to_owned(),
                done: true,
            };
            return Ok((direct, file));
        }
        let temp = temp_name(target);
        let file = File::create(&temp).map_err(|e| with_path(target, e))?;
        Ok((
            TempFile {
                temp,
                target: target.to_owned(),
                done: false,
            },
            file,
        ))
    }

    pub fn path(&self) -> &Path {
        &self.temp
    }

    /// Renames the finished file to its final name.
    pub fn persist(mut self) -> io::Result<()> {
        if self.temp != self.target {
            std::fs::rename(&self.temp, &self.target).map_err(|e| with_path(&self.target, e))?;
        }
        self.done = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

/// The temporary name used for `target` while it is written.
pub fn temp_name(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map_or_else(|| "export".into(), |n| n.to_string_lossy().into_owned());
    target.with_file_name(format!(".{name}.arbiter-{}.tmp", std::process::id()))
}

pub fn with_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

enum Encoder {
    Plain(Box<dyn Write + Send>),
    Gzip(flate2::write::GzEncoder<Box<dyn Write + Send>>),
    Zstd(zstd::Encoder<'static, Box<dyn Write + Send>>),
    Bzip2(bzip2::write::BzEncoder<Box<dyn Write + Send>>),
    Xz(xz2::write::XzEncoder<Box<dyn Write + Send>>),
}

/// A byte stream out: standard output or a (compressed) temporary file; `finish` ends the
/// compression and renames the file.
pub struct Output {
    encoder: Option<BufWriter<Encoder>>,
    temp: Option<TempFile>,
    bytes: Arc<AtomicU64>,
}

impl Write for Encoder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Encoder::Plain(w) => w.write(buf),
            Encoder::Gzip(w) => w.write(buf),
            Encoder::Zstd(w) => w.write(buf),
            Encoder::Bzip2(w) => w.write(buf),
            Encoder::Xz(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Encoder::Plain(w) => w.flush(),
            Encoder::Gzip(w) => w.flush(),
            Encoder::Zstd(w) => w.flush(),
            Encoder::Bzip2(w) => w.flush(),
            Encoder::Xz(w) => w.flush(),
        }
    }
}

impl Encoder {
    fn finish(self) -> io::Result<()> {
        match self {
            Encoder::Plain(mut w) => w.flush(),
            Encoder::Gzip(w) => w.finish()?.flush(),
            Encoder::Zstd(w) => w.finish()?.flush(),
            Encoder::Bzip2(w) => w.finish()?.flush(),
            Encoder::Xz(w) => w.finish()?.flush(),
        }
    }
}

/// The file an output option names: None for standard output, which `-` names too (as in
/// other command-line tools).
pub fn named(path: Option<&Path>) -> Option<&Path> {
    path.filter(|p| p.as_os_str() != "-")
}

impl Output {
    /// Standard output, or `path` through a temporary file (created now); `-` is standard
    /// output.
    pub fn open(path: Option<&Path>) -> io::Result<Output> {
        let path = named(path);
        let bytes = Arc::new(AtomicU64::new(0));
        let (sink, temp, compression): (Box<dyn Write + Send>, _, _) = match path {
            None => (
                Box::new(Counting {
                    inner: io::stdout(),
                    bytes: bytes.clone(),
                }),
                None,
                Compression::None,
            ),
            Some(p) => {
                let (temp, file) = TempFile::create(p)?;
                (
                    Box::new(Counting {
                        inner: BufWriter::with_capacity(1 << 16, file),
                        bytes: bytes.clone(),
                    }),
                    Some(temp),
                    Compression::from_path(p),
                )
            }
        };
        let encoder = match compression {
            Compression::None => Encoder::Plain(sink),
            Compression::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(
                sink,
                flate2::Compression::default(),
            )),
            Compression::Zstd => Encoder::Zstd(zstd::Encoder::new(sink, 3)?),
            Compression::Bzip2 => Encoder::Bzip2(bzip2::write::BzEncoder::new(
                sink,
                bzip2::Compression::default(),
            )),
            Compression::Xz => Encoder::Xz(xz2::write::XzEncoder::new(sink, 6)),
        };
        Ok(Output {
            encoder: Some(BufWriter::with_capacity(1 << 16, encoder)),
            temp,
            bytes,
        })
    }

    /// Bytes written so far (after compression).
    pub fn counter(&self) -> Arc<AtomicU64> {
        self.bytes.clone()
    }

    /// Flushes, ends the compressed stream and gives the file its final name.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(w) = self.encoder.take() {
            w.into_inner().map_err(|e| e.into_error())?.finish()?;
        }
        match self.temp.take() {
            Some(t) => t.persist(),
            None => Ok(()),
        }
    }
}

/// A stream that is ended explicitly: the output file is renamed, a borrowed stream flushed.
pub trait Finish: Write {
    fn finish_output(self) -> io::Result<()>;
}

/// Bytes kept in memory (a rendering measured or tested, not written anywhere).
impl Finish for Vec<u8> {
    fn finish_output(self) -> io::Result<()> {
        Ok(())
    }
}

impl Finish for Output {
    fn finish_output(self) -> io::Result<()> {
        self.finish()
    }
}

impl<W: Write> Finish for &mut W {
    fn finish_output(self) -> io::Result<()> {
        self.flush()
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Ctrl-C stops the export at its next write; dropping the output removes the
        // temporary file (`TempFile`), as for any export that fails part way.
        crate::interrupt::check()?;
        match &mut self.encoder {
            Some(w) => w.write(buf),
            None => Err(io::Error::other("output already finished")),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        crate::interrupt::check()?;
        match &mut self.encoder {
            Some(w) => w.write_all(buf),
            None => Err(io::Error::other("output already finished")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.encoder {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn a_named_pipe_is_written_in_place_not_replaced_by_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("out.pgn");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut text = String::new();
                File::open(&fifo)
                    .unwrap()
                    .read_to_string(&mut text)
                    .unwrap();
                text
            })
        };
        let mut out = Output::open(Some(&fifo)).unwrap();
        out.write_all(b"1. e4 e5 *\n").unwrap();
        out.finish().unwrap();
        // Checked before waiting for the reader: had the pipe been replaced by a file, the
        // reader would wait for a writer for ever.
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(reader.join().unwrap(), "1. e4 e5 *\n");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no file left"
        );
    }

    #[test]
    fn compression_by_extension_and_rename_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        for (name, magic) in [
            ("a.csv.gz", &[0x1f, 0x8b][..]),
            ("a.csv.zst", &[0x28, 0xb5, 0x2f, 0xfd][..]),
            ("a.csv.bz2", &b"BZh"[..]),
            ("a.csv.xz", &[0xfd, b'7', b'z', b'X', b'Z'][..]),
            ("a.csv", &b"hello"[..]),
        ] {
            let path = dir.path().join(name);
            let mut out = Output::open(Some(&path)).unwrap();
            out.write_all(b"hello\n").unwrap();
            // Nothing under the final name until the end.
            assert!(!path.exists(), "{name}");
            assert!(temp_name(&path).exists(), "{name}");
            out.finish().unwrap();
            assert!(!temp_name(&path).exists(), "{name}");
            let bytes = std::fs::read(&path).unwrap();
            assert!(bytes.starts_with(magic), "{name}: {bytes:?}");
            let mut text = String::new();
            crate::pipeline::source::open(&path)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            assert_eq!(text, "hello\n", "{name}");
        }
    }

    #[test]
    fn a_failed_export_leaves_no_file_and_a_bad_folder_fails_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.pgn");
        {
            let mut out = Output::open(Some(&path)).unwrap();
            out.write_all(b"partial").unwrap();
            // Dropped without finish: an error part-way.
        }
        assert!(!path.exists());
        assert!(!temp_name(&path).exists());
        let e = Output::open(Some(&dir.path().join("no/such/folder/a.pgn")))
            .err()
            .unwrap();
        assert!(e.to_string().contains("no/such/folder/a.pgn"), "{e}");
    }
}
