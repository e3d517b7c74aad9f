//! Text from the database as it may be shown on a terminal: names and events come from PGN
//! files, and a control character in one (an escape sequence, a carriage return) must not
//! reach the terminal raw.

use std::borrow::Cow;

/// `text` with control characters escaped (`\u{1b}`, `\r`); other characters, accents
/// included, unchanged.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn control_characters_are_escaped_and_accents_kept() {
        assert_eq!(super::printable("Réti, Richard"), "Réti, Richard");
        assert_eq!(super::printable("a\u{1b}[31mb\r"), "a\\u{1b}[31mb\\r");
    }
}
