//! The class of a game's time control from its TimeControl tag (PGN standard §9.6.1 forms:
//! `base+increment`, `moves/seconds` periods joined by `:`, `*seconds` sandglass, `-` none,
//! `?` unknown), by the expected duration of a 40-move game, as lichess and FIDE's
//! rapid/blitz boundaries put it: under 3 minutes bullet, under 10 blitz (FIDE Appendix B:
//! 10 minutes or less), under 60 rapid (Appendix A), else classical; a day or more per
//! period is correspondence.

/// Every class `tc_class` returns (the values of `games.tc_class`).
pub const CLASSES: [&str; 6] = [
    "classical",
    "rapid",
    "blitz",
    "bullet",
    "correspondence",
    "unknown",
];

/// `classical`, `rapid`, `blitz`, `bullet`, `correspondence` or `unknown`.
pub fn tc_class(tag: Option<&str>) -> &'static str {
    let Some(tag) = tag.map(str::trim).filter(|t| !t.is_empty()) else {
        return "unknown";
    };
    let Some(first) = tag.split(':').next() else {
        return "unknown";
    };
    // The first period decides: `40/7200` is 7200 s for 40 moves; `5400+30` is 5400 s plus
    // 30 s a move; `*180` is a sandglass of 180 s.
    let seconds = if let Some((moves, secs)) = first.split_once('/') {
        let (secs, inc) = secs.split_once('+').unwrap_or((secs, "0"));
        let (Ok(moves), Ok(secs), Ok(inc)) = (
            moves.trim().parse::<u64>(),
            secs.trim().parse::<u64>(),
            inc.trim().parse::<u64>(),
        ) else {
            return "unknown";
        };
        if secs >= 86_400 {
            return "correspondence";
        }
        if moves == 0 {
            return "unknown";
        }
        secs * 40 / moves + 40 * inc
    } else {
        let first = first.trim_start_matches('*');
        let (base, inc) = match first.split_once('+') {
            Some((b, i)) => (b, i),
            None => (first, "0"),
        };
        let (Ok(base), Ok(inc)) = (base.trim().parse::<u64>(), inc.trim().parse::<u64>()) else {
            return "unknown";
        };
        if base >= 86_400 || inc >= 86_400 {
            return "correspondence";
        }
        base + 40 * inc
    };
    match seconds {
        0 => "unknown",
        1..180 => "bullet",
        180..600 => "blitz",
        600..3600 => "rapid",
        _ => "classical",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        for (tag, class) in [
            ("60+0", "bullet"),
            ("120+1", "bullet"),
            ("180+0", "blitz"),
            ("180+2", "blitz"),
            ("300+3", "blitz"),
            ("600+0", "rapid"),
            ("900+10", "rapid"),
            ("1800+0", "rapid"),
            ("5400+30", "classical"),
            ("40/7200:3600", "classical"),
            ("40/5400+30:1800+30", "classical"),
            ("1/259200", "correspondence"),
            ("*180", "blitz"),
            ("-", "unknown"),
            ("?", "unknown"),
            ("", "unknown"),
            ("abc", "unknown"),
        ] {
            assert_eq!(tc_class(Some(tag)), class, "{tag}");
        }
        assert_eq!(tc_class(None), "unknown");
    }
}
