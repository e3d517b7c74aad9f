//! The lines of a position file (perft, EPD and label suites): numbered from 1, trimmed of
//! whitespace and of the NUL bytes some published suites pad their lines with, blank lines
//! and `#` comments left out. Every suite reader goes through here, so each reports a bad
//! line by the same number an editor shows.

/// `(line number, trimmed text)` of every line that carries something.
pub fn suite_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            (
                i + 1,
                line.trim_matches(|c: char| c.is_whitespace() || c == '\0'),
            )
        })
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_padding_and_trailing_whitespace_are_trimmed() {
        let text = "# comment\n\nK7/8 w ;D1 3\0\0\r\n  \0\nepd x \t\n";
        let lines: Vec<_> = suite_lines(text).collect();
        assert_eq!(lines, [(3, "K7/8 w ;D1 3"), (5, "epd x")]);
    }
}
