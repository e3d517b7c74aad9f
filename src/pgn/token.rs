//! Byte-level shape checks shared by the splitter and the movetext parser: what a move token,
//! a termination marker and a token boundary look like. Shape only: legality is the rules core's.

use super::decode::is_space;
use super::model::Marker;

const fn delimiter_table() -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_delimiter_slow(b as u8);
        b += 1;
    }
    table
}

static DELIMITERS: [bool; 256] = delimiter_table();

/// Bytes that end a move token.
#[inline]
pub fn is_delimiter(b: u8) -> bool {
    DELIMITERS[b as usize]
}

const fn is_delimiter_slow(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | 0x0B
            | 0x0C
            | b'{'
            | b'}'
            | b'('
            | b')'
            | b';'
            | b'$'
            | b'!'
            | b'?'
            | b'"'
            | b'['
            | b']'
    )
}

#[inline]
fn is_file(b: u8) -> bool {
    (b'a'..=b'h').contains(&b)
}

#[inline]
fn is_rank(b: u8) -> bool {
    (b'1'..=b'8').contains(&b)
}

#[inline]
fn is_promotion_piece(b: u8) -> bool {
    matches!(
        b,
        b'Q' | b'R' | b'B' | b'N' | b'K' | b'q' | b'r' | b'b' | b'n' | b'k'
    )
}

/// Does this token have the shape of a move: SAN (`Nf3`, `exd8=Q+`, `O-O`), a loose SAN that
/// lenient replay may repair (`ed5`), long algebraic (`e2e4`, `e7e8q`) or a null move
/// (`--`, `Z0`)? Tokens like `Zq9` or `Sf3` are not.
pub fn is_move_like(token: &[u8]) -> bool {
    // Null moves and castling are the only shapes not ending on a square; they start with
    // one of these bytes, so the common move skips their comparisons.
    if matches!(token.first(), Some(b'-' | b'Z' | b'O' | b'0')) {
        if token == b"--" || token == b"Z0" {
            return true;
        }
        if matches!(strip_checks(token), b"O-O" | b"O-O-O" | b"0-0" | b"0-0-0") {
            return true;
        }
    }
    let mut t = strip_checks(token);
    if let [rest @ .., b'=', p] = t {
        if !is_promotion_piece(*p) {
            return false;
        }
        t = rest;
    } else if let [rest @ .., r, p] = t
        && is_rank(*r)
        && is_promotion_piece(*p)
    {
        t = &t[..rest.len() + 1];
    }
    if let [b'K' | b'Q' | b'R' | b'B' | b'N' | b'P', rest @ ..] = t {
        t = rest;
    }
    if t.len() < 2 || t.len() > 6 {
        return false;
    }
    let n = t.len();
    is_file(t[n - 2])
        && is_rank(t[n - 1])
        && t[..n - 2]
            .iter()
            .all(|&b| is_file(b) || is_rank(b) || matches!(b, b'x' | b':' | b'-'))
}

/// The token without its trailing check and mate signs.
#[inline]
fn strip_checks(mut t: &[u8]) -> &[u8] {
    while let [rest @ .., b'+' | b'#'] = t {
        t = rest;
    }
    t
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of every byte of `x` equal to zero; exact up to the lowest such byte.
#[inline]
pub(super) fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// High bits on bytes of `x` (eight bytes of text, little-endian) that may be delimiters:
/// every delimiter is marked, and the lowest mark is exact or a non-delimiter that the
/// caller checks. Delimiters are below `+` (0x2B), above `z`, or one of `; ? [ ]`.
#[inline]
fn maybe_delimiters(x: u64) -> u64 {
    let below = x.wrapping_sub(ONES * 0x2B) & !x & HIGHS;
    let above = (((x & !HIGHS) + ONES * (0x80 - 0x7B)) | x) & HIGHS;
    below
        | above
        | zero_bytes(x ^ (ONES * u64::from(b';')))
        | zero_bytes(x ^ (ONES * u64::from(b'?')))
        | zero_bytes(x ^ (ONES * u64::from(b'[')))
        | zero_bytes(x ^ (ONES * u64::from(b']')))
}

/// The bytes that end a tag name: whitespace, `"`, `[` and `]`.
static TAG_NAME_STOPS: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_space(b as u8) || matches!(b as u8, b'"' | b'[' | b']');
        b += 1;
    }
    table
};

/// Where the tag name at the start of `rest` ends: its first whitespace, `"`, `[` or `]`.
/// Eight bytes at a time: every stop byte is below `!` or one of `" [ ]`, so the lowest mark
/// of a word is the first stop or a control byte, which the table then tells apart (a
/// byte loop cost ten instructions a byte, a tenth of the tag section's reading).
#[inline]
pub fn tag_name_len(rest: &[u8]) -> Option<usize> {
    let mut k = 0;
    while let Some(word) = rest.get(k..).and_then(|r| r.first_chunk::<8>()) {
        let x = u64::from_le_bytes(*word);
        let marks = (x.wrapping_sub(ONES * 0x21) & !x & HIGHS)
            | zero_bytes(x ^ (ONES * u64::from(b'"')))
            | zero_bytes(x ^ (ONES * u64::from(b'[')))
            | zero_bytes(x ^ (ONES * u64::from(b']')));
        if marks != 0 {
            // No byte before the mark is a stop: scan on from it.
            k += (marks.trailing_zeros() / 8) as usize;
            break;
        }
        k += 8;
    }
    rest[k..]
        .iter()
        .position(|&c| TAG_NAME_STOPS[c as usize])
        .map(|p| k + p)
}

/// The length of the token at the start of `rest`: up to its first delimiter, or all of it.
/// Eight bytes are classified at once, without a branch per byte (a token's end is
/// unpredictable, and a byte loop paid a mispredicted branch per token).
#[inline]
pub fn token_len(rest: &[u8]) -> usize {
    if let Some(head) = rest.first_chunk::<8>() {
        let marks = maybe_delimiters(u64::from_le_bytes(*head));
        if marks != 0 {
            let p = (marks.trailing_zeros() / 8) as usize;
            if is_delimiter(head[p]) {
                return p;
            }
        }
    }
    rest.iter()
        .position(|&b| is_delimiter(b))
        .unwrap_or(rest.len())
}

/// Class codes of the bytes of a common SAN token: 0 for a delimiter (which ends a token),
/// 15 for any other byte that has no place in one.
const fn san_class(b: u8) -> u8 {
    match b {
        _ if is_delimiter_slow(b) => 0,
        b'a'..=b'h' => 1,
        b'1'..=b'8' => 2,
        b'K' | b'Q' | b'R' | b'B' | b'N' => 3,
        b'x' => 4,
        b'=' => 5,
        b'+' | b'#' => 6,
        b'O' => 7,
        b'-' => 8,
        _ => 15,
    }
}

/// The usual shapes of a SAN move, as strings of class letters: `f` a file, `r` a rank,
/// `p` a piece, `x`, `=`, `+` (or `#`), `O` and `-`. Each may also end with one check sign.
const COMMON_SHAPES: [&[u8]; 14] = [
    b"fr", b"fxfr", b"fr=p", b"fxfr=p", // e4 exd5 e8=Q exd8=Q
    b"pfr", b"pxfr", b"pffr", b"prfr", // Nf3 Nxf3 Nbd7 R1e2
    b"pfxfr", b"prxfr", b"pfrfr", b"pfrxfr", // Nbxd7 R1xe2 Qh4e1 Qh4xe1
    b"O-O", b"O-O-O",
];

/// A token's class string packed four bits a byte, first byte lowest.
const fn shape_signature(shape: &[u8]) -> u32 {
    let mut sig = 0u32;
    let mut k = 0;
    while k < shape.len() {
        let b = match shape[k] {
            b'f' => b'a',
            b'r' => b'1',
            b'p' => b'N',
            other => other,
        };
        sig |= (san_class(b) as u32) << (4 * k);
        k += 1;
    }
    sig
}

/// The classes of two bytes at once: `SAN_PAIR_CLASSES[a | b << 8]` is the class of `a`
/// in the low four bits and that of `b` in the high four. Half the loads of a table by
/// byte (eight lookups were a sixth of the movetext reading); the entries real movetext
/// reaches are a few hundred.
static SAN_PAIR_CLASSES: [u8; 1 << 16] = {
    let mut table = [0u8; 1 << 16];
    let mut i = 0;
    while i < 1 << 16 {
        table[i] = san_class((i & 0xFF) as u8) | san_class((i >> 8) as u8) << 4;
        i += 1;
    }
    table
};

/// Multiplier of the perfect hash of the common signatures (found by a search; a clash
/// would stop the build, see `COMMON_SIGNATURES`).
const SHAPE_HASH: u32 = 0x740f_8863;

#[inline]
fn shape_slot(sig: u32) -> usize {
    (sig.wrapping_mul(SHAPE_HASH) >> 27) as usize
}

/// The signatures of the common shapes, with and without a check sign, each in its slot
/// of a perfect hash; empty slots hold 0, which no token has.
static COMMON_SIGNATURES: [u32; 32] = {
    let mut table = [0u32; 32];
    let mut k = 0;
    while k < COMMON_SHAPES.len() {
        let sig = shape_signature(COMMON_SHAPES[k]);
        let check = sig | (6 << (4 * COMMON_SHAPES[k].len()));
        let pair = [sig, check];
        let mut j = 0;
        while j < 2 {
            let slot = (pair[j].wrapping_mul(SHAPE_HASH) >> 27) as usize;
            assert!(table[slot] == 0, "the shape hash has a clash");
            table[slot] = pair[j];
            j += 1;
        }
        k += 1;
    }
    table
};

/// The move token at the start of `rest`, its length and bytes, when it has one of the usual SAN
/// shapes ([`COMMON_SHAPES`], at most seven bytes) and a delimiter follows within the
/// first eight bytes; `None` for anything else, which the general reader then handles.
/// An accepted token is one that [`token_len`] measures the same and [`is_move_like`]
/// accepts. Four independent class loads, a byte pair each ([`SAN_PAIR_CLASSES`]), give
/// both the length (the first delimiter's class is the first zero) and the shape, checked
/// by one hash probe: no branch per byte (a token's end is unpredictable) and no chain of
/// dependent loads (a byte-by-byte automaton made the next token's start wait on every
/// byte of this one). Also gives the token's bytes, zero-padded, as a little-endian `u64`.
#[inline]
pub fn common_san(rest: &[u8]) -> Option<(usize, u64)> {
    let head = rest.first_chunk::<8>()?;
    let mut classes = 0u32;
    for (k, pair) in head.chunks_exact(2).enumerate() {
        let index = usize::from(u16::from_le_bytes([pair[0], pair[1]]));
        classes |= u32::from(SAN_PAIR_CLASSES[index]) << (8 * k);
    }
    // The high bit of each zero nibble; exact up to the lowest one.
    let zeros = classes.wrapping_sub(0x1111_1111) & !classes & 0x8888_8888;
    let len = (zeros.trailing_zeros() / 4) as usize;
    if !(2..=7).contains(&len) {
        return None;
    }
    let sig = classes & ((1u32 << (4 * len)) - 1);
    let bytes = u64::from_le_bytes(*head) & ((1u64 << (8 * len)) - 1);
    (COMMON_SIGNATURES[shape_slot(sig)] == sig).then_some((len, bytes))
}

/// Where the first `"`, `\\`, LF or CR of `bytes` is: the end of a plain tag value.
/// Eight bytes at a time (a value is some fifteen bytes; a byte loop cost six instructions
/// a byte).
#[inline]
pub fn value_end(bytes: &[u8]) -> Option<usize> {
    let mut k = 0;
    while let Some(chunk) = bytes.get(k..).and_then(|rest| rest.first_chunk::<8>()) {
        let x = u64::from_le_bytes(*chunk);
        // Each term is exact up to its lowest mark, so the lowest mark of all is exact.
        let marks = zero_bytes(x ^ (ONES * u64::from(b'"')))
            | zero_bytes(x ^ (ONES * u64::from(b'\\')))
            | zero_bytes(x ^ (ONES * u64::from(b'\n')))
            | zero_bytes(x ^ (ONES * u64::from(b'\r')));
        if marks != 0 {
            return Some(k + (marks.trailing_zeros() / 8) as usize);
        }
        k += 8;
    }
    bytes[k..]
        .iter()
        .position(|&c| matches!(c, b'"' | b'\\' | b'\n' | b'\r'))
        .map(|p| k + p)
}

/// A termination marker at the start of `bytes`, followed by a delimiter or the end.
pub fn marker_at(bytes: &[u8]) -> Option<(Marker, usize)> {
    let (marker, len) = if bytes.starts_with(b"1-0") {
        (Marker::WhiteWins, 3)
    } else if bytes.starts_with(b"0-1") {
        (Marker::BlackWins, 3)
    } else if bytes.starts_with(b"1/2-1/2") {
        (Marker::Draw, 7)
    } else if bytes.starts_with(b"*") {
        (Marker::Unknown, 1)
    } else {
        return None;
    };
    match bytes.get(len) {
        None => Some((marker, len)),
        Some(&b) if is_delimiter(b) || b == b'*' => Some((marker, len)),
        _ => None,
    }
}

/// The termination markers, as written.
const MARKERS: [(&[u8], Marker); 4] = [
    (b"1-0", Marker::WhiteWins),
    (b"0-1", Marker::BlackWins),
    (b"1/2-1/2", Marker::Draw),
    (b"*", Marker::Unknown),
];

/// Does the (trimmed) text end with a termination marker standing as its own token, or
/// glued to the last move ([`glued_marker`])?
pub fn ends_with_marker(text: &[u8]) -> bool {
    for (m, _) in MARKERS {
        if let Some(before) = text.strip_suffix(m) {
            return match before.last() {
                None => true,
                Some(&b) if is_delimiter(b) || b == b'.' => true,
                Some(_) => {
                    let start = before
                        .iter()
                        .rposition(|&b| is_delimiter(b) || b == b'.')
                        .map_or(0, |p| p + 1);
                    is_move_like(&before[start..])
                }
            };
        }
    }
    false
}

/// A token that is a move with a termination marker written against it (`h6*`, `e41-0`,
/// `Qxf7#1-0`): the move's length and the marker. kokopu reads these as the move and the
/// marker; a token that is a move by itself never is one.
pub fn glued_marker(token: &[u8]) -> Option<(usize, Marker)> {
    MARKERS.iter().find_map(|&(m, marker)| {
        let before = token.strip_suffix(m)?;
        (!before.is_empty() && is_move_like(before)).then_some((before.len(), marker))
    })
}

/// Does a tag line (starting at its `[`) leave a quoted value open at its end: an odd
/// number of quotes? The splitter and the parser then take the next line as the rest of
/// the value when [`closes_tag`] says it ends the tag (a value broken over two lines).
pub fn tag_value_open(line: &[u8]) -> bool {
    memchr::memchr_iter(b'"', line).count() % 2 == 1
}

/// Is this line (not a tag line itself) the end of a tag whose value was broken over the
/// line end: does it end with `"]`, blanks aside?
pub fn closes_tag(line: &[u8]) -> bool {
    let mut end = line.len();
    while end > 0 && is_space(line[end - 1]) {
        end -= 1;
    }
    let line = &line[..end];
    line.ends_with(b"\"]") && line.first().is_some_and(|&b| b != b'[')
}

/// Could a line starting with this text begin a game with no tags? A move number
/// (`1.`, `12...`), a move, a marker, or a comment.
pub fn starts_movetext(line: &[u8], allow_comment: bool) -> bool {
    let first = match line.first() {
        Some(&b) => b,
        None => return false,
    };
    if allow_comment && (first == b'{' || first == b';') {
        return true;
    }
    let end = line
        .iter()
        .position(|&b| is_delimiter(b) || b == b'.')
        .unwrap_or(line.len());
    let word = &line[..end];
    if first.is_ascii_digit() {
        if word.iter().all(u8::is_ascii_digit) && line.get(end) == Some(&b'.') {
            return true;
        }
        return marker_at(line).is_some() || is_move_like(word);
    }
    marker_at(line).is_some() || (!word.is_empty() && is_move_like(word))
}

/// Where a brace comment's text ends: the first `}` not escaped as `\}`. The PGN standard
/// has no escapes in comments, but some writers escape a brace there; a `}` right after a
/// backslash is read as part of the text (the comment keeps `}`), so the comment does not
/// end early and the rest of the game is not misread. A comment whose text really ends in
/// a backslash (`{C:\}`) therefore runs on: rare, and reported as unterminated if never
/// closed.
pub fn comment_end(text: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'}', text).find(|&i| i == 0 || text[i - 1] != b'\\')
}

/// Informant-style evaluation and annotation symbols written as words, each read as its
/// standard NAG (PGN standard 10, and the common extensions ChessBase writes: 140 with the
/// idea, 142 better is, 145 editorial comment, 146 novelty). Zugzwang is $22 whichever side
/// is in it (the symbol does not say).
pub const ANNOTATION_SYMBOLS: &[(&str, u8)] = &[
    ("=", 10),
    ("inf", 13),
    ("\u{221e}", 13),
    ("+/=", 14),
    ("\u{2a72}", 14),
    ("=/+", 15),
    ("\u{2a71}", 15),
    ("+/-", 16),
    ("\u{b1}", 16),
    ("-/+", 17),
    ("\u{2213}", 17),
    ("+-", 18),
    ("+--", 18),
    ("-+", 19),
    ("--+", 19),
    ("\u{25a1}", 7),
    ("\u{2a00}", 22),
    ("\u{2299}", 22),
    ("\u{27f3}", 32),
    ("\u{2191}", 36),
    ("\u{2192}", 40),
    ("=/\u{221e}", 44),
    ("=/inf", 44),
    ("\u{21c6}", 132),
    ("\u{2295}", 138),
    ("\u{2206}", 140),
    ("\u{25b3}", 140),
    ("\u{2313}", 142),
    ("RR", 145),
    ("N", 146),
];

/// The NAG an annotation symbol token stands for, if it is one.
pub fn annotation_symbol_nag(token: &[u8]) -> Option<u8> {
    ANNOTATION_SYMBOLS
        .iter()
        .find(|(symbol, _)| symbol.as_bytes() == token)
        .map(|&(_, nag)| nag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_shapes() {
        for ok in [
            "e4", "Nf3", "exd5", "ed5", "Nbd7", "R1e2", "Qh4xe1", "exd8=Q+", "b8Q", "O-O",
            "O-O-O#", "0-0", "e2e4", "e7e8q", "--", "Z0", "Kxe2", "Pe4", "e4+", "Qxf7#",
        ] {
            assert!(is_move_like(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "Zq9", "Sf3", "e9", "i4", "N", "", "Nf3x", "hello", "1-0", "e8=X", "O-O-O-O",
        ] {
            assert!(!is_move_like(bad.as_bytes()), "{bad}");
        }
    }

    #[test]
    fn token_lengths_match_a_byte_scan() {
        let mut texts: Vec<Vec<u8>> = [
            &b"Nf3 Nc6"[..],
            b"exd8=Q+)",
            b"Nbd7",
            b"abcdefghijkl",
            b"e4",
            b"",
            b"Kxe2{x}",
            b"a;b",
            b"a?b!",
            b"Qh4xe1[%",
            b"\x80\xffe4 x",
            b"e4\x01\x02 x",
            b"zz{z}zzzzz",
        ]
        .iter()
        .map(|t| t.to_vec())
        .collect();
        for b in 0..=255u8 {
            for at in 0..10 {
                let mut t = b"abcdefghij".to_vec();
                t[at] = b;
                texts.push(t);
            }
        }
        for t in &texts {
            let slow = t.iter().position(|&b| is_delimiter(b)).unwrap_or(t.len());
            assert_eq!(token_len(t), slow, "{t:?}");
        }
    }

    /// Tag names measured a word at a time end where a byte-by-byte scan ends them: every
    /// byte value at each of the first twenty places, and a second stop or control byte
    /// after it.
    #[test]
    fn tag_name_lengths_match_a_byte_scan() {
        let slow = |t: &[u8]| t.iter().position(|&c| TAG_NAME_STOPS[c as usize]);
        let mut texts: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"Event \"x\"]".to_vec(),
            b"WhiteElo \"2700\"]".to_vec(),
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZ".to_vec(),
            b"Eve\x01nt \"x\"".to_vec(),
        ];
        for b in 0..=255u8 {
            for at in 0..20 {
                for then in [b' ', 0x01, b']', b'x'] {
                    let mut t = b"abcdefghijklmnopqrstuvwxyz".to_vec();
                    t[at] = b;
                    t[at + 1] = then;
                    t.truncate(at + 2 + (b as usize % 7));
                    texts.push(t);
                }
            }
        }
        for t in &texts {
            assert_eq!(tag_name_len(t), slow(t), "{t:?}");
        }
    }

    fn common_san_len_of(text: &[u8]) -> Option<usize> {
        common_san(text).map(|(len, _)| len)
    }

    /// Every token the common-SAN reader accepts is measured by `token_len` the same and
    /// is move-like: checked for all strings of up to five bytes over the bytes it reads
    /// (and seven over its own), each followed by a delimiter or by filler.
    #[test]
    fn common_san_agrees_with_the_general_reader() {
        let mut accepted = 0;
        let mut word = Vec::new();
        for (alphabet, longest) in [(&b"ah18xN=+O-Q #{Z0P."[..], 5), (b"ah18xN=+O-", 7)] {
            let n = alphabet.len();
            for len in 0..=longest {
                for mut code in 0..n.pow(len) {
                    word.clear();
                    for _ in 0..len {
                        word.push(alphabet[code % n]);
                        code /= n;
                    }
                    let head = word.len();
                    for tail in [&b" abcdefgh"[..], b"abcdefgh"] {
                        word.truncate(head);
                        word.extend_from_slice(tail);
                        if let Some((k, bytes)) = common_san(&word) {
                            assert_eq!(bytes.to_le_bytes()[..k], word[..k]);
                            assert!(bytes.to_le_bytes()[k..].iter().all(|&b| b == 0));
                            accepted += 1;
                            let shown = String::from_utf8_lossy(&word);
                            assert_eq!(token_len(&word), k, "{shown:?}");
                            assert!(is_move_like(&word[..k]), "{shown:?}");
                            assert!(k >= 2);
                        }
                    }
                }
            }
        }
        assert!(accepted > 1000);
        for ok in [
            "e4", "exd5", "e8=Q+", "Nf3", "Nbd7", "R1e2", "Qh4xe1+", "O-O", "O-O-O+", "Kxe2",
        ] {
            for tail in [" xxxxxxx", "{xxxxxx", ")xxxxxxx"] {
                let text = format!("{ok}{tail}");
                assert_eq!(common_san_len_of(text.as_bytes()), Some(ok.len()), "{ok}");
            }
        }
        for other in [
            "--", "Z0", "e2e4", "Pe4", "ed5", "e8Q", "0-0", "O-O-O-O", "Nf3x", "Sf3", "e4++",
        ] {
            let text = format!("{other} xxxxxxx");
            assert_eq!(common_san_len_of(text.as_bytes()), None, "{other}");
        }
        // Fewer than eight bytes: left to the general reader.
        assert_eq!(common_san_len_of(b"e4 1-0"), None);
        assert_eq!(common_san_len_of(b"Qxf7# 1-0"), Some(5));
        for delimiter in [" ", "{", "(", ")", "$", "!", "?", ";", "\n"] {
            let text = format!("{delimiter}e4 e5 Nf3");
            assert_eq!(common_san_len_of(text.as_bytes()), None);
        }
    }

    #[test]
    fn value_ends_match_a_byte_scan() {
        let stops = [b'"', b'\\', b'\n', b'\r', b'a', 0, 0x80, 0xA2, 0x22 ^ 0x80];
        for len in 0..20 {
            for at in 0..=len {
                for &stop in &stops {
                    for &before in &stops {
                        let mut t = vec![b'x'; len];
                        if at < len {
                            t[at] = stop;
                        }
                        if at > 0 {
                            t[at - 1] = before;
                        }
                        let slow = t
                            .iter()
                            .position(|&c| matches!(c, b'"' | b'\\' | b'\n' | b'\r'));
                        assert_eq!(value_end(&t), slow, "{t:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn markers() {
        assert_eq!(marker_at(b"1-0"), Some((Marker::WhiteWins, 3)));
        assert_eq!(marker_at(b"1/2-1/2 "), Some((Marker::Draw, 7)));
        assert_eq!(marker_at(b"*"), Some((Marker::Unknown, 1)));
        assert_eq!(marker_at(b"1-0x"), None);
        assert!(ends_with_marker(b"56.Kc1 1/2-1/2"));
        assert!(ends_with_marker(b"*"));
        // A marker glued to the last move ends the game too (kokopu reads it so).
        assert!(ends_with_marker(b"Kc11-0"));
        assert!(ends_with_marker(b"1... h6*"));
        assert!(!ends_with_marker(b"Rd1-0"));
        assert_eq!(glued_marker(b"h6*"), Some((2, Marker::Unknown)));
        assert_eq!(glued_marker(b"Qxf7#1-0"), Some((5, Marker::WhiteWins)));
        assert_eq!(glued_marker(b"e41/2-1/2"), Some((2, Marker::Draw)));
        assert_eq!(glued_marker(b"O-O0-1"), Some((3, Marker::BlackWins)));
        assert_eq!(glued_marker(b"1-0"), None);
        assert_eq!(glued_marker(b"Rd1-0"), None);
        assert_eq!(glued_marker(b"x*"), None);
        assert!(!ends_with_marker(b"1/2-1/2----"));
    }

    #[test]
    fn movetext_starts() {
        assert!(starts_movetext(b"1.e4 e5", false));
        assert!(starts_movetext(b"12... Nf6", false));
        assert!(starts_movetext(b"e4 e5", false));
        assert!(starts_movetext(b"*", false));
        assert!(starts_movetext(b"{c} 1. e4", true));
        assert!(!starts_movetext(b"{c} 1. e4", false));
        assert!(!starts_movetext(b"1999 was a year", false));
        assert!(!starts_movetext(b"Garbage here", false));
        assert!(!starts_movetext(b"a nice game", false));
    }
}
