//! The flag parser of a library's named values (`crate::choice`): clap lists exactly the
//! values offered, with their help, in `--help` and in the error for any other value.

use crate::choice::{Choice, named};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// A parser of the values `offered` (a command may offer some of a type's values only).
pub fn parser<T: Choice>(offered: &'static [T]) -> impl TypedValueParser<Value = T> {
    let values = offered.iter().map(|v| {
        let p = PossibleValue::new(v.name());
        if v.help().is_empty() {
            p
        } else {
            p.help(v.help())
        }
    });
    PossibleValuesParser::new(values).map(|name| {
        named::<T>(&name).expect("clap passes on only the names offered, each a value's name")
    })
}

/// A parser of every value of `T`.
pub fn every<T: Choice>() -> impl TypedValueParser<Value = T> {
    parser(T::ALL)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::format::Format;

    #[test]
    fn a_parser_takes_the_offered_names_and_refuses_the_others() {
        let cmd = clap::Command::new("t").arg(
            clap::Arg::new("format")
                .long("format")
                .value_parser(parser(&[Format::Csv, Format::Jsonl])),
        );
        let m = cmd
            .clone()
            .try_get_matches_from(["t", "--format", "jsonl"])
            .unwrap();
        assert_eq!(m.get_one::<Format>("format"), Some(&Format::Jsonl));
        let e = cmd
            .try_get_matches_from(["t", "--format", "pgn"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("[possible values: csv, jsonl]"), "{e}");
    }
}
