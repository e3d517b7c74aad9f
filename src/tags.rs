//! A game's tags as plain data: the pairs in file order, held in one string. The PGN reader
//! fills it (`pgn::parser`) and the store reads it (`db::record`); it sits apart from both so
//! that the store never depends on the PGN syntax layer.

use std::fmt;

/// A game's tag pairs in file order, all held in one string: two allocations per game
/// instead of two per tag (the reader's allocations were a tenth of its time). Names may
/// repeat; lookups take the first. Equality compares the pairs, not how they are stored.
#[derive(Clone, Default)]
pub struct Tags {
    text: String,
    /// Per tag: where its name starts and ends and where its value starts and ends in
    /// `text`. Text may lie between them (`Name "value` is copied in one piece).
    spans: Vec<[usize; 4]>,
}

impl Tags {
    pub fn new() -> Tags {
        Tags::default()
    }

    /// Room for `tags` tags of `bytes` bytes of text in all.
    pub fn with_capacity(tags: usize, bytes: usize) -> Tags {
        Tags {
            text: String::with_capacity(bytes),
            spans: Vec::with_capacity(tags),
        }
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn push(&mut self, name: &str, value: &str) {
        let name_start = self.text.len();
        self.text.push_str(name);
        let name_end = self.text.len();
        self.text.push_str(value);
        self.spans
            .push([name_start, name_end, name_end, self.text.len()]);
    }

    /// Append a tag from the text of a plain tag line without its brackets and closing
    /// quote, `Name "value`: the name is its first `name_len` bytes, the value what
    /// follows the space and the quote. One copy per tag.
    #[inline]
    pub(crate) fn push_plain(&mut self, line: &str, name_len: usize) {
        let start = self.text.len();
        self.text.push_str(line);
        self.spans.push([
            start,
            start + name_len,
            (start + name_len + 2).min(self.text.len()),
            self.text.len(),
        ]);
    }

    /// Append a tag whose name and value `name` and `value` write into the text (the
    /// reader decodes file bytes straight into it); true when either returned true.
    #[inline]
    pub(crate) fn push_with(
        &mut self,
        name: impl FnOnce(&mut String) -> bool,
        value: impl FnOnce(&mut String) -> bool,
    ) -> bool {
        let name_start = self.text.len();
        let lossy_name = name(&mut self.text);
        let name_end = self.text.len();
        let lossy_value = value(&mut self.text);
        self.spans
            .push([name_start, name_end, name_end, self.text.len()]);
        lossy_name || lossy_value
    }

    /// The `k`-th tag's name and value.
    pub fn get(&self, k: usize) -> Option<(&str, &str)> {
        Some(pair(&self.text, self.spans.get(k)?))
    }

    /// The value of the first tag with this name. The names' lengths are compared first,
    /// from the spans: most tags are passed over without touching their text.
    pub fn value(&self, name: &str) -> Option<&str> {
        let k = self.position(&self.spans, name)?;
        Some(pair(&self.text, &self.spans[k]).1)
    }

    /// Where the first of `spans` named `name` is.
    #[inline]
    fn position(&self, spans: &[[usize; 4]], name: &str) -> Option<usize> {
        let text = self.text.as_bytes();
        spans.iter().position(|s| {
            s[1] - s[0] == name.len() && text.get(s[0]..s[1]) == Some(name.as_bytes())
        })
    }

    /// Is one of the first `end` tags named `name`?
    pub(crate) fn has_name_before(&self, end: usize, name: &str) -> bool {
        let spans = &self.spans[..end.min(self.spans.len())];
        self.position(spans, name).is_some()
    }

    /// The length in bytes of the `k`-th tag's name (0 past the end), read from its span.
    #[inline]
    pub(crate) fn name_len(&self, k: usize) -> usize {
        self.spans.get(k).map_or(0, |s| s[1] - s[0])
    }

    /// The `k`-th tag's name as bytes (empty past the end): no text made of it.
    #[inline]
    pub(crate) fn name_bytes(&self, k: usize) -> &[u8] {
        self.spans
            .get(k)
            .and_then(|s| self.text.as_bytes().get(s[0]..s[1]))
            .unwrap_or(&[])
    }

    /// The `k`-th tag's value (empty past the end).
    pub(crate) fn value_at(&self, k: usize) -> &str {
        self.get(k).map_or("", |(_, v)| v)
    }

    pub fn iter(&self) -> TagIter<'_> {
        TagIter {
            text: &self.text,
            spans: self.spans.iter(),
        }
    }

    /// Owned pairs, for records that keep them apart from the game.
    pub fn to_vec(&self) -> Vec<(String, String)> {
        self.iter()
            .map(|(n, v)| (n.to_owned(), v.to_owned()))
            .collect()
    }
}

/// The name and value a span points at. Every boundary was recorded between pushed
/// strings or at ASCII bytes of one, so these never fail.
#[inline]
fn pair<'a>(text: &'a str, span: &[usize; 4]) -> (&'a str, &'a str) {
    (
        text.get(span[0]..span[1]).unwrap_or(""),
        text.get(span[2]..span[3]).unwrap_or(""),
    )
}

impl PartialEq for Tags {
    fn eq(&self, other: &Tags) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Tags {}

impl fmt::Debug for Tags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<N: AsRef<str>, V: AsRef<str>> FromIterator<(N, V)> for Tags {
    fn from_iter<I: IntoIterator<Item = (N, V)>>(iter: I) -> Tags {
        let mut tags = Tags::new();
        for (n, v) in iter {
            tags.push(n.as_ref(), v.as_ref());
        }
        tags
    }
}

impl From<Vec<(String, String)>> for Tags {
    fn from(pairs: Vec<(String, String)>) -> Tags {
        pairs.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a Tags {
    type Item = (&'a str, &'a str);
    type IntoIter = TagIter<'a>;

    fn into_iter(self) -> TagIter<'a> {
        self.iter()
    }
}

/// The tags of a [`Tags`], in order, as (name, value).
#[derive(Clone, Debug)]
pub struct TagIter<'a> {
    text: &'a str,
    spans: std::slice::Iter<'a, [usize; 4]>,
}

impl<'a> Iterator for TagIter<'a> {
    type Item = (&'a str, &'a str);

    #[inline]
    fn next(&mut self) -> Option<(&'a str, &'a str)> {
        Some(pair(self.text, self.spans.next()?))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.spans.size_hint()
    }
}

impl ExactSizeIterator for TagIter<'_> {}
