//! The stored duplicate groups as rows (`arbiter duplicates`' listing): each member with its
//! group, kind, survival, players, date, event, length and the reason it is in the group,
//! for the groups with a member among the selected games.

use super::query::Selection;
use crate::table::{Cell, Column, Kind};
use rusqlite::Connection;
use rusqlite::types::Value;

/// Which groups to list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupKind {
    Exact,
    Variant,
    Contained,
    All,
}

impl GroupKind {
    /// The stored `duplicate_groups.kind`, as a LIKE pattern.
    fn pattern(self) -> &'static str {
        match self {
            GroupKind::All => "%",
            GroupKind::Variant => "variant",
            GroupKind::Contained => "contained",
            GroupKind::Exact => "exact",
        }
    }
}

/// One listed member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedMember {
    pub group: i64,
    pub kind: String,
    pub game: i64,
    pub survivor: bool,
    pub white: String,
    pub black: String,
    pub date: String,
    pub event: String,
    pub plies: i64,
    pub reason: String,
}

/// The columns of a member in the table formats.
pub const COLUMNS: [Column; 10] = [
    Column {
        name: "group",
        kind: Kind::Int,
        meaning: "the duplicate group's id",
    },
    Column {
        name: "kind",
        kind: Kind::Text,
        meaning: "variant (the same game, other records) or contained (a prefix)",
    },
    Column {
        name: "game",
        kind: Kind::Int,
        meaning: "the member's game id (export's id)",
    },
    Column {
        name: "survivor",
        kind: Kind::Int,
        meaning: "1 for the group's survivor, else 0",
    },
    Column {
        name: "white",
        kind: Kind::Text,
        meaning: "White as written",
    },
    Column {
        name: "black",
        kind: Kind::Text,
        meaning: "Black as written",
    },
    Column {
        name: "date",
        kind: Kind::Text,
        meaning: "the Date tag",
    },
    Column {
        name: "event",
        kind: Kind::Text,
        meaning: "the Event tag",
    },
    Column {
        name: "plies",
        kind: Kind::Int,
        meaning: "the game's length in half-moves",
    },
    Column {
        name: "reason",
        kind: Kind::Text,
        meaning: "why the record is in the group",
    },
];

impl ListedMember {
    pub fn cells(&self) -> Vec<Cell<'_>> {
        vec![
            Cell::Int(self.group),
            Cell::text(&self.kind),
            Cell::Int(self.game),
            Cell::Int(i64::from(self.survivor)),
            Cell::text(&self.white),
            Cell::text(&self.black),
            Cell::text(&self.date),
            Cell::text(&self.event),
            Cell::Int(self.plies),
            Cell::text(&self.reason),
        ]
    }
}

/// Calls `each` with every member of the groups of `kind` that have a member among the games
/// `selection` selects, group by group, the survivor first.
pub fn for_each_member<E: From<rusqlite::Error>>(
    conn: &Connection,
    selection: &Selection,
    kind: GroupKind,
    mut each: impl FnMut(ListedMember) -> Result<(), E>,
) -> Result<(), E> {
    let (from, clause, values) = selection.sql();
    let mut values = values.to_vec();
    let selected = if selection.is_everything() {
        String::new()
    } else {
        format!(
            " AND d.id IN (SELECT dm.group_id FROM {from} WHERE dm.group_id IS NOT NULL AND ({clause}))"
        )
    };
    // The kind is bound after the filter's values.
    values.push(Value::Text(kind.pattern().to_owned()));
    let list = include_str!("sql/duplicates_list.sql")
        .replace("?1", &format!("?{}", values.len()))
        .replace("/* selected */", &selected);
    let mut stmt = conn.prepare(&list)?;
    let mut rows = stmt.query(rusqlite::params_from_iter(values))?;
    while let Some(r) = rows.next()? {
        let text = |i| r.get::<_, Option<String>>(i).map(Option::unwrap_or_default);
        each(ListedMember {
            group: r.get(0)?,
            kind: r.get(1)?,
            game: r.get(2)?,
            survivor: r.get(3)?,
            white: text(4)?,
            black: text(5)?,
            date: text(6)?,
            event: text(7)?,
            plies: r.get(8)?,
            reason: r.get(9)?,
        })?;
    }
    Ok(())
}
