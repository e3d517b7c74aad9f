//! Byte-level shape checks shared by the splitter and the movetext parser: what a move token,
//! a termination marker and a token boundary look like. Shape only: legality is the rules core's.

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
fn zero_bytes(x: u64) -> u64 {
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

/// Does the (trimmed) text end with a termination marker standing as its own token?
pub fn ends_with_marker(text: &[u8]) -> bool {
    for m in [&b"1-0"[..], b"0-1", b"1/2-1/2", b"*"] {
        if let Some(before) = text.strip_suffix(m) {
            return match before.last() {
                None => true,
                Some(&b) => is_delimiter(b) || b == b'.',
            };
        }
    }
    false
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

    #[test]
    fn markers() {
        assert_eq!(marker_at(b"1-0"), Some((Marker::WhiteWins, 3)));
        assert_eq!(marker_at(b"1/2-1/2 "), Some((Marker::Draw, 7)));
        assert_eq!(marker_at(b"*"), Some((Marker::Unknown, 1)));
        assert_eq!(marker_at(b"1-0x"), None);
        assert!(ends_with_marker(b"56.Kc1 1/2-1/2"));
        assert!(ends_with_marker(b"*"));
        assert!(!ends_with_marker(b"Kc11-0"));
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
