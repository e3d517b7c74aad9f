//! Turning the bytes of tag values and comments into text: UTF-8 when they are, otherwise
//! Windows-1252 (the encoding of most old PGN files), which the caller reports as a finding.

/// Code points of Windows-1252 bytes 0x80..=0x9F. The five undefined bytes map to the C1
/// control with the same value, as the WHATWG encoding standard does.
const CP1252_HIGH: [char; 32] = [
    '\u{20AC}', '\u{0081}', '\u{201A}', '\u{0192}', '\u{201E}', '\u{2026}', '\u{2020}', '\u{2021}',
    '\u{02C6}', '\u{2030}', '\u{0160}', '\u{2039}', '\u{0152}', '\u{008D}', '\u{017D}', '\u{008F}',
    '\u{0090}', '\u{2018}', '\u{2019}', '\u{201C}', '\u{201D}', '\u{2022}', '\u{2013}', '\u{2014}',
    '\u{02DC}', '\u{2122}', '\u{0161}', '\u{203A}', '\u{0153}', '\u{009D}', '\u{017E}', '\u{0178}',
];

fn cp1252_char(b: u8) -> char {
    match b {
        0x80..=0x9F => CP1252_HIGH[(b - 0x80) as usize],
        _ => b as char,
    }
}

/// Decode text; the flag says whether it was not UTF-8 (and so read as Windows-1252).
pub fn decode(bytes: &[u8]) -> (String, bool) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_owned(), false),
        Err(_) => (bytes.iter().map(|&b| cp1252_char(b)).collect(), true),
    }
}

/// Decode text onto the end of `out`; true when it was not UTF-8 (read as Windows-1252).
pub fn decode_into(bytes: &[u8], out: &mut String) -> bool {
    match std::str::from_utf8(bytes) {
        Ok(s) => {
            out.push_str(s);
            false
        }
        Err(_) => {
            out.extend(bytes.iter().map(|&b| cp1252_char(b)));
            true
        }
    }
}

/// Decode and collapse every whitespace run to one space, trimming both ends.
pub fn decode_collapsed(bytes: &[u8]) -> (String, bool) {
    let trimmed = trim(bytes);
    let needs_collapse = trimmed
        .windows(2)
        .any(|w| is_space(w[0]) && (is_space(w[1]) || w[0] != b' '))
        || trimmed.iter().any(|&b| is_space(b) && b != b' ');
    if !needs_collapse {
        return decode(trimmed);
    }
    let mut out = Vec::with_capacity(trimmed.len());
    let mut in_space = false;
    for &b in trimmed {
        if is_space(b) {
            in_space = true;
        } else {
            if in_space {
                out.push(b' ');
                in_space = false;
            }
            out.push(b);
        }
    }
    decode(&out)
}

#[inline]
pub const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)
}

pub fn trim(mut bytes: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = bytes {
        if is_space(*first) {
            bytes = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = bytes {
        if is_space(*last) {
            bytes = rest;
        } else {
            break;
        }
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_kept() {
        assert_eq!(decode("Café".as_bytes()), ("Café".to_owned(), false));
    }

    #[test]
    fn latin1_and_cp1252_bytes_are_decoded() {
        assert_eq!(decode(b"Caf\xe9 \x80"), ("Café €".to_owned(), true));
    }

    #[test]
    fn whitespace_is_collapsed() {
        assert_eq!(decode_collapsed(b"  a \n\t b  c ").0, "a b c");
        assert_eq!(decode_collapsed(b"a b").0, "a b");
        assert_eq!(decode_collapsed(b"a\nb").0, "a b");
        assert_eq!(decode_collapsed(b"   ").0, "");
    }
}
