//! Commands embedded in comments (`[%clk 0:03:00]`, `[%eval #-3,20]`), parsed with nom into
//! typed values. Unknown commands, and known ones with arguments that do not parse, are
//! kept as text so nothing is lost.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_while1};
use nom::character::complete::{char, digit1, space0};
use nom::combinator::{all_consuming, opt, recognize};
use nom::sequence::{preceded, terminated};
use nom::{IResult, Parser};

use super::model::{Command, EvalScore, TimeSpan};

/// One `[%name args]` command: its name and raw arguments.
fn raw_command(input: &str) -> IResult<&str, (&str, &str)> {
    let (input, _) = tag("[%").parse(input)?;
    let (input, name) =
        take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_').parse(input)?;
    let (input, args) = terminated(take_till(|c| c == ']'), char(']')).parse(input)?;
    Ok((input, (name, args.trim())))
}

fn number(input: &str) -> IResult<&str, u64> {
    let (rest, digits) = digit1(input)?;
    match digits.parse::<u64>() {
        Ok(n) if n < 1 << 40 => Ok((rest, n)),
        _ => Err(nom::Err::Error(nom::error::Error::new(
            input,
            nom::error::ErrorKind::Digit,
        ))),
    }
}

/// `h:mm:ss`, `m:ss` or `ss`, each with an optional decimal fraction of a second.
fn duration(input: &str) -> IResult<&str, TimeSpan> {
    let (input, first) = number(input)?;
    let (input, second) = opt(preceded(char(':'), number)).parse(input)?;
    let (input, third) = opt(preceded(char(':'), number)).parse(input)?;
    let (input, fraction) = opt(preceded(char('.'), digit1)).parse(input)?;
    let seconds = match (second, third) {
        (None, _) => first,
        (Some(s), None) => first * 60 + s,
        (Some(m), Some(s)) => first * 3600 + m * 60 + s,
    };
    let mut millis = seconds * 1000;
    if let Some(f) = fraction {
        // Keep milliseconds: pad or cut the fraction to three digits.
        let mut scale = 100;
        for d in f.bytes().take(3) {
            millis += u64::from(d - b'0') * scale;
            scale /= 10;
        }
    }
    Ok((input, TimeSpan { millis }))
}

fn signed(input: &str) -> IResult<&str, &str> {
    recognize((opt(alt((char('-'), char('+')))), digit1)).parse(input)
}

fn eval_score(input: &str) -> IResult<&str, EvalScore> {
    if let Ok((rest, mate)) =
        preceded(char::<&str, nom::error::Error<&str>>('#'), signed).parse(input)
    {
        return match mate.parse::<i32>() {
            Ok(n) => Ok((rest, EvalScore::Mate(n))),
            Err(_) => Err(nom::Err::Error(nom::error::Error::new(
                input,
                nom::error::ErrorKind::Digit,
            ))),
        };
    }
    let (rest, text) = recognize((
        opt(alt((char('-'), char('+')))),
        alt((
            recognize((digit1, opt((char('.'), opt(digit1))))),
            recognize((char('.'), digit1)),
        )),
    ))
    .parse(input)?;
    match text.parse::<f64>() {
        Ok(pawns) if pawns.abs() < 1.0e6 => {
            Ok((rest, EvalScore::Centipawns((pawns * 100.0).round() as i32)))
        }
        _ => Err(nom::Err::Error(nom::error::Error::new(
            input,
            nom::error::ErrorKind::Float,
        ))),
    }
}

fn eval(input: &str) -> IResult<&str, (EvalScore, Option<u32>)> {
    let (input, score) = eval_score(input)?;
    let (input, depth) = opt(preceded((space0, char(','), space0), digit1)).parse(input)?;
    let depth = depth.and_then(|d| d.parse::<u32>().ok());
    Ok((input, (score, depth)))
}

fn typed(name: &str, args: &str) -> Option<Command> {
    match name {
        "clk" => all_consuming(duration)
            .parse(args)
            .ok()
            .map(|(_, t)| Command::Clock(t)),
        "emt" => all_consuming(duration)
            .parse(args)
            .ok()
            .map(|(_, t)| Command::Emt(t)),
        "eval" => all_consuming(eval)
            .parse(args)
            .ok()
            .map(|(_, (score, depth))| Command::Eval { score, depth }),
        _ => None,
    }
}

/// Every command in a comment's text. The flag is true when a known command (`clk`, `emt`,
/// `eval`) had arguments that did not parse; it is then kept as `Command::Other`.
pub fn parse_commands(text: &str) -> (Vec<Command>, Option<String>) {
    let mut commands = Vec::new();
    let mut bad = None;
    let mut rest = text;
    while let Some(at) = rest.find("[%") {
        rest = &rest[at..];
        match raw_command(rest) {
            Ok((after, (name, args))) => {
                let command = match typed(name, args) {
                    Some(c) => c,
                    None => {
                        if matches!(name, "clk" | "emt" | "eval") && bad.is_none() {
                            bad = Some(rest[..rest.len() - after.len()].to_owned());
                        }
                        Command::Other {
                            name: name.to_owned(),
                            args: args.to_owned(),
                        }
                    }
                };
                commands.push(command);
                rest = after;
            }
            Err(_) => rest = &rest[2..],
        }
    }
    (commands, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(millis: u64) -> TimeSpan {
        TimeSpan { millis }
    }

    #[test]
    fn clocks_and_emt() {
        let (c, bad) = parse_commands("[%clk 1:02:03] [%emt 0:00:05.5] [%clk 0:00:09.25]");
        assert_eq!(bad, None);
        assert_eq!(
            c,
            vec![
                Command::Clock(ms(3_723_000)),
                Command::Emt(ms(5_500)),
                Command::Clock(ms(9_250))
            ]
        );
        assert_eq!(
            parse_commands("[%clk 3:05]").0,
            vec![Command::Clock(ms(185_000))]
        );
    }

    #[test]
    fn evals() {
        let eval = |s: &str| parse_commands(s).0;
        assert_eq!(
            eval("[%eval 0.25]"),
            vec![Command::Eval {
                score: EvalScore::Centipawns(25),
                depth: None
            }]
        );
        assert_eq!(
            eval("[%eval -1.5,22]"),
            vec![Command::Eval {
                score: EvalScore::Centipawns(-150),
                depth: Some(22)
            }]
        );
        assert_eq!(
            eval("[%eval #-3]"),
            vec![Command::Eval {
                score: EvalScore::Mate(-3),
                depth: None
            }]
        );
        assert_eq!(
            eval("[%eval #4, 30]"),
            vec![Command::Eval {
                score: EvalScore::Mate(4),
                depth: Some(30)
            }]
        );
    }

    #[test]
    fn other_and_bad_commands_are_kept_as_text() {
        let (c, bad) = parse_commands("text [%csl Ra1,Gb2] more [%clk soon]");
        assert_eq!(
            c,
            vec![
                Command::Other {
                    name: "csl".into(),
                    args: "Ra1,Gb2".into()
                },
                Command::Other {
                    name: "clk".into(),
                    args: "soon".into()
                },
            ]
        );
        assert_eq!(bad.as_deref(), Some("[%clk soon]"));
        assert_eq!(parse_commands("[% nothing").0, vec![]);
        assert_eq!(parse_commands("[%clk 1:00").0, vec![]);
    }
}
