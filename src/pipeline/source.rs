//! Opening an input: a path or `-` for stdin. Compression is recognised by its magic bytes,
//! never by the file name; the raw (compressed) bytes consumed are counted so a progress bar
//! can compare them with the file size. A folder given as an input is walked for PGN files
//! first ([`expand_inputs`]), as ripgrep walks one.

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The compression formats recognised by magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Bzip2,
    Zstd,
    Xz,
}

impl Compression {
    /// Recognise a format from the first bytes of a stream (at least 6 are needed for xz).
    pub fn detect(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else {
            Compression::None
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
        }
    }
}

/// What a stream in which no PGN game was found holds, judged by its first (decompressed)
/// bytes, for the one-line error about it (never the bytes themselves: they may be binary).
pub fn describe_no_game(head: &[u8]) -> &'static str {
    const KINDS: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "a PNG image"),
        (b"SQLite format 3\0", "an SQLite database"),
        (b"%PDF-", "a PDF document"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"PK\x03\x04", "a ZIP archive (unpack it first)"),
        (b"\x7fELF", "an executable"),
    ];
    if head.is_empty() {
        return "the file is empty";
    }
    if let Some((_, kind)) = KINDS.iter().find(|(magic, _)| head.starts_with(magic)) {
        return kind;
    }
    let binary = head
        .iter()
        .any(|&b| b == 0 || (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c)));
    if binary {
        "binary data, not text"
    } else {
        "text, but no tag section or movetext"
    }
}

/// What can go wrong opening or reading an input.
#[derive(Debug)]
pub enum SourceError {
    Open { path: PathBuf, source: io::Error },
    Read { name: String, source: io::Error },
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::Open { path, source } => {
                write!(f, "cannot open {}: {source}", path.display())
            }
            SourceError::Read { name, source } => write!(f, "cannot read {name}: {source}"),
        }
    }
}

impl std::error::Error for SourceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SourceError::Open { source, .. } | SourceError::Read { source, .. } => Some(source),
        }
    }
}

/// Counts the bytes read from the underlying stream into a shared counter.
struct Counting<R> {
    inner: R,
    counter: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An opened input: decompressed bytes through `Read`, plus the count of raw bytes consumed.
pub struct Source {
    name: String,
    compression: Compression,
    size: Option<u64>,
    consumed: Arc<AtomicU64>,
    reader: Box<dyn Read + Send>,
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Source")
            .field("name", &self.name)
            .field("compression", &self.compression)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

/// The file name endings a folder's walk takes as PGN, compared without regard to case. The
/// name only chooses the files; what a file holds is still recognised by its magic bytes.
pub const PGN_SUFFIXES: &[&str] = &[".pgn", ".pgn.gz", ".pgn.zst", ".pgn.bz2", ".pgn.xz"];

/// Does a folder's walk take a file of this name?
pub fn is_pgn_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    PGN_SUFFIXES
        .iter()
        .any(|suffix| lower.len() > suffix.len() && lower.ends_with(suffix))
}

/// The inputs as given, with each folder replaced by the PGN files under it
/// ([`PGN_SUFFIXES`]), as ripgrep walks one: sorted by name within each folder (so the
/// order, and an import's resume points, never depend on the file system), hidden files
/// and folders (a name starting with `.`) and symbolic links skipped, sub-folders walked in
/// place. Each file is then an input of its own, reported on its own. A folder that cannot
/// be read, or holds no PGN file at all, stays in the list: opening it reports why.
pub fn expand_inputs(inputs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::with_capacity(inputs.len());
    for input in inputs {
        let is_dir = input.as_os_str() != "-" && input.is_dir();
        if !is_dir {
            out.push(input.clone());
            continue;
        }
        let before = out.len();
        if walk(input, &mut out).is_err() || out.len() == before {
            out.truncate(before);
            out.push(input.clone());
        }
    }
    out
}

/// Appends the PGN files under `dir` in walk order; an unreadable sub-folder is appended
/// itself, so that it is reported.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<(std::ffi::OsString, std::fs::FileType)> = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        entries.push((entry.file_name(), entry.file_type()?));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in entries {
        let text = name.to_string_lossy();
        if text.starts_with('.') || kind.is_symlink() {
            continue;
        }
        let path = dir.join(&name);
        if kind.is_dir() {
            if walk(&path, out).is_err() {
                out.push(path);
            }
        } else if kind.is_file() && is_pgn_name(&text) {
            out.push(path);
        }
    }
    Ok(())
}

/// Open a path, or stdin when the path is `-`.
pub fn open(path: &Path) -> Result<Source, SourceError> {
    if path.as_os_str() == "-" {
        return Source::from_reader("-", None, io::stdin());
    }
    let file = File::open(path).map_err(|source| SourceError::Open {
        path: path.to_owned(),
        source,
    })?;
    let metadata = file.metadata().ok();
    if metadata.as_ref().is_some_and(|m| m.is_dir()) {
        // Only a folder whose walk found nothing gets here (`expand_inputs`).
        return Err(SourceError::Open {
            path: path.to_owned(),
            source: io::Error::other(format!(
                "a folder holding no PGN file (names ending in {})",
                PGN_SUFFIXES.join(", ")
            )),
        });
    }
    let size = metadata.map(|m| m.len());
    Source::from_reader(&path.display().to_string(), size, file)
}

impl Source {
    /// Wrap any reader; `name` is used in error messages, `size` is the raw size if known.
    pub fn from_reader<R: Read + Send + 'static>(
        name: &str,
        size: Option<u64>,
        reader: R,
    ) -> Result<Source, SourceError> {
        let consumed = Arc::new(AtomicU64::new(0));
        let mut counting = Counting {
            inner: reader,
            counter: Arc::clone(&consumed),
        };
        // Read the magic bytes ourselves (a pipe may deliver them in pieces), then put them
        // back in front of the rest of the stream.
        let mut head = [0u8; 6];
        let mut filled = 0;
        while filled < head.len() {
            match counting.read(&mut head[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(SourceError::Read {
                        name: name.to_owned(),
                        source,
                    });
                }
            }
        }
        let compression = Compression::detect(&head[..filled]);
        let raw = io::Cursor::new(head[..filled].to_vec()).chain(counting);
        let reader: Box<dyn Read + Send> = match compression {
            Compression::None => Box::new(raw),
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(raw)),
            Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(raw)),
            Compression::Zstd => {
                Box::new(zstd::stream::read::Decoder::new(raw).map_err(|source| {
                    SourceError::Read {
                        name: name.to_owned(),
                        source,
                    }
                })?)
            }
            Compression::Xz => Box::new(xz2::read::XzDecoder::new_multi_decoder(raw)),
        };
        Ok(Source {
            name: name.to_owned(),
            compression,
            size,
            consumed,
            reader,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// Size of the raw input in bytes, when it is a regular file.
    pub fn size(&self) -> Option<u64> {
        self.size
    }

    /// The shared count of raw (compressed) bytes consumed so far, for a progress bar.
    pub fn consumed(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.consumed)
    }
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = b"[Event \"x\"]\n\n1. e4 e5 *\n";

    fn read_all(source: &mut Source) -> Vec<u8> {
        let mut out = Vec::new();
        source.read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn plain_text_passes_through() {
        let mut s = Source::from_reader("t", None, io::Cursor::new(TEXT.to_vec())).unwrap();
        assert_eq!(s.compression(), Compression::None);
        assert_eq!(read_all(&mut s), TEXT);
        assert_eq!(s.consumed().load(Ordering::Relaxed), TEXT.len() as u64);
    }

    #[test]
    fn short_input_is_not_mistaken_for_compression() {
        let mut s = Source::from_reader("t", None, io::Cursor::new(b"*".to_vec())).unwrap();
        assert_eq!(s.compression(), Compression::None);
        assert_eq!(read_all(&mut s), b"*");
        let mut s = Source::from_reader("t", None, io::Cursor::new(Vec::new())).unwrap();
        assert_eq!(read_all(&mut s), b"");
    }

    #[test]
    fn gzip_is_detected_and_members_concatenated() {
        let mut data = Vec::new();
        for _ in 0..2 {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(TEXT).unwrap();
            data.extend(enc.finish().unwrap());
        }
        let len = data.len() as u64;
        let mut s = Source::from_reader("t.gz", None, io::Cursor::new(data)).unwrap();
        assert_eq!(s.compression(), Compression::Gzip);
        assert_eq!(read_all(&mut s), [TEXT, TEXT].concat());
        assert_eq!(s.consumed().load(Ordering::Relaxed), len);
    }

    #[test]
    fn bzip2_is_detected() {
        let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        enc.write_all(TEXT).unwrap();
        let data = enc.finish().unwrap();
        let mut s = Source::from_reader("t", None, io::Cursor::new(data)).unwrap();
        assert_eq!(s.compression(), Compression::Bzip2);
        assert_eq!(read_all(&mut s), TEXT);
    }

    #[test]
    fn zstd_is_detected() {
        let data = zstd::encode_all(TEXT, 1).unwrap();
        let mut s = Source::from_reader("t", None, io::Cursor::new(data)).unwrap();
        assert_eq!(s.compression(), Compression::Zstd);
        assert_eq!(read_all(&mut s), TEXT);
    }

    #[test]
    fn xz_is_detected() {
        let mut enc = xz2::write::XzEncoder::new(Vec::new(), 1);
        enc.write_all(TEXT).unwrap();
        let data = enc.finish().unwrap();
        let mut s = Source::from_reader("t", None, io::Cursor::new(data)).unwrap();
        assert_eq!(s.compression(), Compression::Xz);
        assert_eq!(read_all(&mut s), TEXT);
    }

    #[test]
    fn corrupt_gzip_is_a_read_error_not_a_panic() {
        let data = vec![0x1f, 0x8b, 0, 1, 2, 3, 4, 5, 6, 7];
        let mut s = Source::from_reader("t", None, io::Cursor::new(data)).unwrap();
        let mut out = Vec::new();
        assert!(s.read_to_end(&mut out).is_err());
    }

    #[test]
    fn a_folder_is_walked_for_pgn_files_in_sorted_order_skipping_hidden_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for name in [
            "b.pgn",
            "a.PGN",
            "c.pgn.gz",
            "d.pgn.zst",
            "e.pgn.bz2",
            "f.pgn.xz",
            "notes.txt",
            "g.gz",
            ".hidden.pgn",
            "sub/z.pgn",
            "sub/.x/y.pgn",
            ".git/h.pgn",
            "empty/readme",
        ] {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, TEXT).unwrap();
        }
        let expanded = expand_inputs(&[PathBuf::from("-"), root.to_owned()]);
        let names: Vec<String> = expanded
            .iter()
            .map(|p| match p.strip_prefix(root) {
                Ok(rel) => rel.display().to_string(),
                Err(_) => p.display().to_string(),
            })
            .collect();
        assert_eq!(
            names,
            [
                "-",
                "a.PGN",
                "b.pgn",
                "c.pgn.gz",
                "d.pgn.zst",
                "e.pgn.bz2",
                "f.pgn.xz",
                "sub/z.pgn"
            ]
        );
    }

    #[test]
    fn a_folder_without_pgn_files_stays_an_input_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        let expanded = expand_inputs(&[dir.path().to_owned()]);
        assert_eq!(expanded, [dir.path().to_owned()]);
        let err = open(dir.path()).unwrap_err().to_string();
        assert!(err.contains("a folder holding no PGN file"), "{err}");
        assert!(!err.contains("Is a directory"), "{err}");
    }

    #[test]
    fn missing_file_is_an_open_error() {
        let err = open(Path::new("/nonexistent/arbiter.pgn")).unwrap_err();
        assert!(matches!(err, SourceError::Open { .. }));
        assert!(
            err.to_string()
                .starts_with("cannot open /nonexistent/arbiter.pgn")
        );
    }
}
