//! The FIDE Rating Regulations' two tables, kept as data beside this file: table 8.1.2 (rating
//! difference D → expected score PD, used by the Elo system) and table 8.1.1 (score fraction p →
//! rating difference dp, used for initial ratings and performances). Source: FIDE Handbook, B.02
//! FIDE Rating Regulations (effective from 1 March 2024), tables 8.1.1 and 8.1.2; the figures are
//! the same in the 2014 regulations. The CSV files are copies of `shared/ratings/` in this project.

use std::sync::OnceLock;

const TABLE_8_1_2: &str = include_str!("fide_table_8_1_2.csv");
const TABLE_8_1_1: &str = include_str!("fide_table_8_1_1.csv");

/// PD of the higher-rated player in hundredths, for every D from 0 to 735 (736 and more: 100).
fn pd_by_difference() -> &'static [u8] {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut pd = Vec::with_capacity(737);
        for line in TABLE_8_1_2.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let lo: usize = f[0].parse().expect("table 8.1.2: D_min");
            let hundredths = (f[2].parse::<f64>().expect("table 8.1.2: PD") * 100.0).round() as u8;
            assert_eq!(lo, pd.len(), "table 8.1.2 rows are contiguous");
            let hi: usize = if f[1].is_empty() {
                lo
            } else {
                f[1].parse().expect("D_max")
            };
            pd.resize(hi + 1, hundredths);
        }
        pd
    })
}

/// Table 8.1.2: the expected score of a player whose rating exceeds the opponent's by `diff`
/// (negative: the player is the lower rated), exactly as the table gives it (hundredths).
pub fn expected_score(diff: i32) -> f64 {
    let table = pd_by_difference();
    let d = (diff.unsigned_abs() as usize).min(table.len() - 1);
    let higher = i32::from(table[d]);
    let pd = if diff >= 0 { higher } else { 100 - higher };
    f64::from(pd) / 100.0
}

/// Table 8.1.1 as published: dp for p = 0.00 ..= 1.00, indexed by hundredths.
pub fn dp_by_hundredths() -> &'static [i32] {
    static TABLE: OnceLock<Vec<i32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let table: Vec<i32> = TABLE_8_1_1
            .lines()
            .skip(1)
            .map(|line| {
                let (_, dp) = line.split_once(',').expect("table 8.1.1: two columns");
                dp.parse().expect("table 8.1.1: dp")
            })
            .collect();
        assert_eq!(table.len(), 101, "table 8.1.1 has a row per hundredth");
        table
    })
}

/// Table 8.1.1: the rating difference dp for a score fraction `p`, rounded to hundredths as the
/// regulations say (0.5 up).
pub fn rating_difference(p: f64) -> i32 {
    let hundredths = ((p.clamp(0.0, 1.0) * 100.0) + 0.5 + 1e-9).floor() as usize;
    dp_by_hundredths()[hundredths.min(100)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_8_1_2_bounds_and_symmetry() {
        assert_eq!(expected_score(0), 0.50);
        assert_eq!(expected_score(3), 0.50);
        assert_eq!(expected_score(4), 0.51);
        assert_eq!(expected_score(100), 0.64);
        assert_eq!(expected_score(-100), 0.36);
        assert_eq!(expected_score(400), 0.92);
        assert_eq!(expected_score(735), 0.99);
        assert_eq!(expected_score(736), 1.00);
        assert_eq!(expected_score(-2000), 0.00);
        for d in -800..=800 {
            let sum = expected_score(d) + expected_score(-d);
            assert!((sum - 1.0).abs() < 1e-12, "D {d}");
        }
    }

    #[test]
    fn table_8_1_1_reads_hundredths() {
        assert_eq!(rating_difference(0.5), 0);
        assert_eq!(rating_difference(4.0 / 7.0), 50);
        assert_eq!(rating_difference(6.0 / 7.0), 309);
        assert_eq!(rating_difference(0.0), -800);
        assert_eq!(rating_difference(1.0), 800);
        // 12.5 hundredths rounds up to 0.13.
        assert_eq!(rating_difference(0.125), -322);
    }
}
