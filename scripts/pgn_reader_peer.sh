#!/bin/sh
# Builds the pgn-reader peer: a separate program that replays every main-line move of the PGN
# files given as arguments (or stdin) with pgn-reader 0.29 + shakmaty 0.30 and prints the
# counts of games, plies and illegal moves. It is the reference `check` is timed against
# (docs/PERFORMANCE.md).
#
# pgn-reader and shakmaty are GPL-3.0: the peer is never linked into arbiter nor copied into this
# repository. This script only writes a small cargo project of our own OUTSIDE the repository
# (${XDG_CACHE_HOME:-~/.cache}/arbiter-ci/pgn-reader-peer), builds it there (release, fat LTO,
# one codegen unit, like arbiter's release profile), and the benchmarks run it as a program.
#
# Usage: scripts/pgn_reader_peer.sh          prints the path of the built binary
#        "$(scripts/pgn_reader_peer.sh)" master.pgn
set -eu

dir="${XDG_CACHE_HOME:-$HOME/.cache}/arbiter-ci/pgn-reader-peer"
mkdir -p "$dir/src"

cat >"$dir/Cargo.toml" <<'EOF'
[package]
name = "pgn-reader-peer"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
pgn-reader = "=0.29.0"
shakmaty = "=0.30.1"

[profile.release]
lto = "fat"
codegen-units = 1
panic = "abort"

[workspace]
EOF

cat >"$dir/src/main.rs" <<'EOF'
// The pgn-reader peer: replays the main line of every game with shakmaty, one thread.
// Prints `games N plies N illegal N fen_errors N` on stdout.
use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use shakmaty::{fen::Fen, CastlingMode, Chess, Position};
use std::{env, fs::File, io, ops::ControlFlow, process};

#[derive(Default)]
struct Counts {
    games: u64,
    plies: u64,
    illegal: u64,
    fen_errors: u64,
}

impl Visitor for Counts {
    type Tags = Option<Chess>;
    type Movetext = Chess;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Option<Chess>> {
        self.games += 1;
        ControlFlow::Continue(None)
    }

    fn tag(&mut self, start: &mut Option<Chess>, name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        if name == b"FEN" {
            let pos = Fen::from_ascii(value.as_bytes())
                .ok()
                .and_then(|fen| fen.into_position(CastlingMode::Chess960).ok());
            match pos {
                Some(pos) => *start = Some(pos),
                None => {
                    self.fen_errors += 1;
                    return ControlFlow::Break(());
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, start: Option<Chess>) -> ControlFlow<(), Chess> {
        ControlFlow::Continue(start.unwrap_or_default())
    }

    fn begin_variation(&mut self, _pos: &mut Chess) -> ControlFlow<(), Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn san(&mut self, pos: &mut Chess, san_plus: SanPlus) -> ControlFlow<()> {
        match san_plus.san.to_move(pos) {
            Ok(m) => {
                pos.play_unchecked(m);
                self.plies += 1;
                ControlFlow::Continue(())
            }
            Err(_) => {
                self.illegal += 1;
                ControlFlow::Break(())
            }
        }
    }

    fn end_game(&mut self, _pos: Chess) {}
}

fn read_all<R: io::Read>(input: R, counts: &mut Counts) -> io::Result<()> {
    let mut reader = Reader::new(input);
    while reader.read_game(counts)?.is_some() {}
    Ok(())
}

fn main() {
    let mut counts = Counts::default();
    let paths: Vec<String> = env::args().skip(1).collect();
    let result = if paths.is_empty() {
        read_all(io::stdin().lock(), &mut counts)
    } else {
        paths.iter().try_for_each(|path| {
            let file = File::open(path).map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?;
            read_all(file, &mut counts)
        })
    };
    if let Err(e) = result {
        eprintln!("pgn-reader-peer: {e}");
        process::exit(1);
    }
    println!(
        "games {} plies {} illegal {} fen_errors {}",
        counts.games, counts.plies, counts.illegal, counts.fen_errors
    );
}
EOF

(cd "$dir" && cargo build --release --quiet >&2)
echo "$dir/target/release/pgn-reader-peer"
