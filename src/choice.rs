//! A closed set of named values a user picks one of by name (an output format, a sort order,
//! a kind of claim): the library names its values here, and the command line alone turns the
//! names into a flag's possible values (`cli::choice`), so no library type carries the
//! command-line parser's derive.

pub trait Choice: Copy + Send + Sync + 'static {
    /// Every value, in the order help lists them.
    const ALL: &'static [Self];
    /// The name a flag takes and the docs use.
    fn name(self) -> &'static str;
    /// One line of help for the value; empty for none.
    fn help(self) -> &'static str {
        ""
    }
}

/// The value of `T` named `name` exactly.
pub fn named<T: Choice>(name: &str) -> Option<T> {
    T::ALL.iter().copied().find(|v| v.name() == name)
}
