//! Which person a name is: the safe normalisation of a spelling (the only merge made without
//! a FIDE id or the user's alias file) and the identity keys of `players` (docs/IDENTITY.md).
//! Never a guess: `Carlsen,M` and `Carlsen, Magnus` stay two persons until the user says so.

use unicode_normalization::UnicodeNormalization;

/// The spelling as every safe rule sees it: Unicode NFKC (compatibility forms, composed
/// accents, non-breaking spaces), lower case, dots read as spaces (`G.K.` and `G. K.` are one
/// writing), runs of whitespace made one space, and exactly `", "` between the parts around a
/// comma (`Carlsen,Magnus`, `Carlsen , Magnus` and `Carlsen, Magnus` are one writing).
/// Letters are never dropped, added or reordered: `MagnusCarlsen` and `Carlsen M` stay apart.
pub fn normalise(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut space = false;
    for c in name.nfkc().flat_map(char::to_lowercase) {
        if c.is_whitespace() || c == '.' {
            space = true;
        } else if c == ',' {
            // Drop spaces before a comma; the comma always has one space after it.
            out.push(',');
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

/// A name that writes two or more players as one side: a consultation or pair game
/// (`Kramnik,Vladimir:Picot,Russell`, `Alekhine/Reilly`, `Anand,V / FRITZ7`, `A & B`,
/// `A + B`, `A and B`). Such a side is nobody's own game: it is never suggested as one person
/// with a member, and a surname, initials or the other name order never find it (only its
/// own spelling does).
pub fn is_pair(name: &str) -> bool {
    name.contains([':', '/', '&', '+', ';'])
        || name.split_whitespace().any(|w| {
            ["and", "und", "vs", "vs."]
                .iter()
                .any(|j| w.eq_ignore_ascii_case(j))
        })
}

/// Identity key of a person known by a FIDE id.
pub fn fide_key(fide_id: i64) -> String {
    format!("fide:{fide_id}")
}

/// Identity key of a person known by a normalised name (after aliases).
pub fn name_key(normalised: &str) -> String {
    format!("name:{normalised}")
}

/// A FIDE id tag's value, when it is one: a positive number (FIDE ids have up to 9 digits;
/// `0` and `?` mean unknown in the files seen).
pub fn parse_fide_id(value: &str) -> Option<i64> {
    let v = value.trim();
    if v.is_empty() || v.len() > 10 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse::<i64>().ok().filter(|&n| n > 0)
}

/// A name as a text table shows it: characters that would not be seen (control and format
/// characters such as U+200B, a zero-width space) escaped the way `players` shows a
/// spelling, which is Rust's `{:?}` (`\u{200b}`), and without its quotes. Two spellings
/// that look alike but differ in what cannot be seen then look different. Everything else,
/// quotes, backslashes and accents included, is shown as it is.
pub fn visible(name: &str) -> std::borrow::Cow<'_, str> {
    let debug = format!("{name:?}");
    let inner = &debug[1..debug.len() - 1];
    if inner == name {
        return std::borrow::Cow::Borrowed(name);
    }
    // Undo only the escapes `{:?}` adds to what is visible anyway: `\"` and `\\`.
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(next @ ('"' | '\\')) => out.push(next),
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    if out == name {
        std::borrow::Cow::Borrowed(name)
    } else {
        std::borrow::Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_are_escaped_as_players_shows_them() {
        assert_eq!(visible("Carlsen,\u{200b}Magnus"), "Carlsen,\\u{200b}Magnus");
        assert_eq!(visible("Tab\there"), "Tab\\there");
        assert_eq!(visible("A\u{feff}"), "A\\u{feff}");
        // What is seen stays as it is: quotes, backslashes, accents, apostrophes.
        for name in [
            "O'Brien, \"Pat\"",
            "Ljubojevi\u{107}, Ljubomir",
            "C:\\x",
            "Carlsen, Magnus",
        ] {
            assert_eq!(visible(name), name);
            assert!(matches!(visible(name), std::borrow::Cow::Borrowed(_)));
        }
    }

    /// Pairs that the safe normalisation must merge, and pairs it must keep apart.
    #[test]
    fn safe_normalisation_table() {
        let same = [
            ("Carlsen, Magnus", "Carlsen,Magnus"),
            ("Carlsen, Magnus", "carlsen, magnus"),
            ("Carlsen, Magnus", "  Carlsen ,  Magnus "),
            ("Carlsen, Magnus", "CARLSEN,MAGNUS"),
            ("Kasparov, G.K.", "Kasparov,G. K."),
            ("Kasparov, G.", "Kasparov, G"),
            ("Ding\u{a0}Liren", "Ding Liren"),
            ("Caruana,\tFabiano", "Caruana, Fabiano"),
            // Composed and decomposed accents, and a compatibility ligature.
            ("Ljubojevi\u{107}, L", "Ljubojevic\u{301}, L"),
            ("Gr\u{fc}nfeld", "Gru\u{308}nfeld"),
            ("\u{fb01}scher", "fischer"),
        ];
        for (a, b) in same {
            assert_eq!(normalise(a), normalise(b), "{a:?} vs {b:?}");
        }
        let apart = [
            ("Carlsen,M", "Carlsen, Magnus"),
            ("MagnusCarlsen", "Carlsen, Magnus"),
            ("Carlsen Magnus", "Carlsen, Magnus"),
            ("Magnus Carlsen", "Carlsen, Magnus"),
            ("Kasparov, GK", "Kasparov, G.K."),
            ("Ljubojevic, L", "Ljubojevi\u{107}, L"),
            ("Vachier-Lagrave, M", "Vachier Lagrave, M"),
            ("Polgar, J", "Polgar, Z"),
        ];
        for (a, b) in apart {
            assert_ne!(normalise(a), normalise(b), "{a:?} vs {b:?}");
        }
        assert_eq!(normalise(" Carlsen ,Magnus. "), "carlsen, magnus");
    }

    #[test]
    fn pair_and_consultation_names_are_told_from_persons() {
        for pair in [
            "Kramnik,Vladimir:Picot,Russell",
            "Nakamura,Hikaru:Hodgson,Jeremy",
            "Alekhine/Reilly",
            "Lasker,Em/Curt,C",
            "Anand,V / FRITZ7",
            "Carlsen & Caruana",
            "Kasparov + Deep Junior",
            "Smith and Jones",
        ] {
            assert!(is_pair(pair), "{pair}");
        }
        for person in [
            "Carlsen,M",
            "Vachier-Lagrave, Maxime",
            "O'Brien, Pat",
            "Anand, Viswanathan",
            "Ding Liren",
            "Andersson, Ulf",
            "Vandersen,A",
        ] {
            assert!(!is_pair(person), "{person}");
        }
    }

    #[test]
    fn fide_ids() {
        assert_eq!(parse_fide_id(" 1503014 "), Some(1503014));
        assert_eq!(parse_fide_id("0"), None);
        assert_eq!(parse_fide_id("?"), None);
        assert_eq!(parse_fide_id("-1"), None);
        assert_eq!(parse_fide_id("12345678901"), None);
        assert_eq!(fide_key(1503014), "fide:1503014");
        assert_eq!(name_key("carlsen, magnus"), "name:carlsen, magnus");
    }
}
