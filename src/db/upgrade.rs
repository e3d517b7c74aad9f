//! The part of a migration that SQL cannot do, run in the migration's transaction right
//! after its SQL: version 2 gives each v1 spelling its person by the safe normalisation
//! (Unicode NFKC), splits spellings by the FIDE ids of their games, and fills the new
//! `games` columns from the tags kept in `tags` and from the stored moves.

use super::encode::{decode_moves, moves_hash};
use super::persons::{PersonRules, reassign};
use crate::chess::Position;
use crate::identity::openings::classify;
use crate::identity::timecontrol::tc_class;
use rusqlite::{Connection, params};

/// Runs after `migrations/002_identity.sql`.
pub fn after_v2(conn: &Connection) -> rusqlite::Result<()> {
    // Columns copied from tags, as the writer copies them at import.
    for (column, tags) in [
        ("white_title", "'WhiteTitle'"),
        ("black_title", "'BlackTitle'"),
        ("white_fed", "'WhiteFed', 'WhiteTeam'"),
        ("black_fed", "'BlackFed', 'BlackTeam'"),
        ("time_control", "'TimeControl'"),
    ] {
        conn.execute(
            &format!(
                "UPDATE games SET {column} = (SELECT trim(value) FROM tags t \
                 WHERE t.game_id = games.id AND t.name IN ({tags}) AND trim(value) <> '' \
                 ORDER BY t.name LIKE '%Team', t.seq LIMIT 1)"
            ),
            [],
        )?;
    }
    for (column, tag) in [
        ("white_fide_id", "WhiteFideId"),
        ("black_fide_id", "BlackFideId"),
    ] {
        conn.execute(
            &format!(
                "UPDATE games SET {column} = (SELECT CAST(trim(value) AS INTEGER) FROM tags t \
                 WHERE t.game_id = games.id AND t.name = ?1 AND trim(value) GLOB '[0-9]*' \
                 AND trim(value) NOT GLOB '*[^0-9]*' AND CAST(trim(value) AS INTEGER) > 0 \
                 ORDER BY t.seq LIMIT 1)"
            ),
            [tag],
        )?;
    }
    // A spelling is a name with its FIDE id: games with an id get the (name, id) spelling.
    for side in ["white", "black"] {
        conn.execute(
            &format!(
                "INSERT OR IGNORE INTO player_names (name, fide_id, person_id) \
                 SELECT DISTINCT n.name, g.{side}_fide_id, n.person_id FROM games g \
                 JOIN player_names n ON n.id = g.{side}_id WHERE g.{side}_fide_id IS NOT NULL"
            ),
            [],
        )?;
        conn.execute(
            &format!(
                "UPDATE games SET {side}_id = (SELECT f.id FROM player_names n \
                 JOIN player_names f ON f.name = n.name AND f.fide_id = games.{side}_fide_id \
                 WHERE n.id = games.{side}_id) WHERE {side}_fide_id IS NOT NULL"
            ),
            [],
        )?;
    }
    reassign(conn, &PersonRules::default()).map_err(|e| match e {
        super::persons::PersonError::Sqlite(e) => e,
        other => rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ERROR),
            Some(other.to_string()),
        ),
    })?;
    // id, start FEN, moves, TimeControl, variant.
    type Row = (i64, Option<String>, Vec<u8>, Option<String>, String);
    let rows: Vec<Row> = {
        let mut stmt =
            conn.prepare("SELECT id, start_fen, moves, time_control, variant FROM games")?;
        stmt.query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?
        .collect::<Result<_, _>>()?
    };
    let mut update = conn.prepare(include_str!("sql/update_game_identity.sql"))?;
    for (id, start_fen, moves, time_control, variant) in rows {
        // Only games from the standard start have an opening name; their stored moves
        // decode (the import checked them), and a blob that does not is left unnamed.
        let opening = (start_fen.is_none() && variant == "standard")
            .then(|| decode_moves(&Position::new(), &moves).ok())
            .flatten()
            .and_then(|m| classify(&Position::new(), &m));
        let o = opening.as_ref();
        update.execute(params![
            id,
            &moves_hash(start_fen.as_deref(), &moves)[..],
            tc_class(time_control.as_deref()),
            o.map(|o| o.eco),
            o.map(|o| o.name),
            o.map(|o| o.family()),
            o.and_then(|o| o.variation()),
            o.map(|o| o.ply),
        ])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::db::encode::{encode_moves, moves_hash};
    use rusqlite::{Connection, params};

    /// A version-1 database as today's release writes it: `schema.sql` only, then rows.
    pub(super) fn v1_database(path: &std::path::Path) {
        let conn = Connection::open(path).unwrap();
        conn.execute_batch(include_str!("../../schema.sql"))
            .unwrap();
        conn.execute_batch(
            "INSERT INTO imports (path, head_hash, compression, started_at, settings) \
             VALUES ('a.pgn', x'00', 'none', '2026-01-01T00:00:00Z', '{}');
             INSERT INTO players (id, name) VALUES (1, 'Carlsen, Magnus'), (2, 'Carlsen,Magnus'),
                 (3, 'Carlsen,M'), (4, 'Nakamura, Hikaru');
             INSERT INTO events (id, name, site) VALUES (1, 'Ev', 'Here');",
        )
        .unwrap();
        let mut pos = crate::chess::Position::new();
        let moves: Vec<_> = ["e4", "c5", "Nf3", "d6"]
            .iter()
            .map(|t| {
                crate::chess::san::play_san(&mut pos, t, crate::chess::san::SanMode::Strict)
                    .unwrap()
                    .mv
            })
            .collect();
        let blob = encode_moves(&moves);
        for (id, white, black, result) in [(1, 1, 4, "1-0"), (2, 4, 2, "1/2-1/2"), (3, 3, 4, "0-1")]
        {
            conn.execute(
                "INSERT INTO games (id, import_id, game_number, byte_offset, line, content_hash, \
                 event_id, white_id, black_id, result, variant, ply_count, final_fen, moves) \
                 VALUES (?1, 1, ?1, 0, 1, ?2, 1, ?3, ?4, ?5, 'standard', 4, 'x', ?6)",
                params![id, vec![id as u8; 16], white, black, result, blob],
            )
            .unwrap();
        }
        conn.execute_batch(
            "INSERT INTO tags (game_id, seq, name, value) VALUES
                 (1, 0, 'WhiteFideId', '1503014'), (1, 1, 'TimeControl', '40/7200:3600'),
                 (1, 2, 'WhiteTitle', 'GM'), (2, 0, 'TimeControl', '180+2'),
                 (3, 0, 'BlackTeam', 'USA'), (3, 1, 'BlackFed', 'USA ');",
        )
        .unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 1);
    }

    #[test]
    fn version_1_database_migrates_and_keeps_its_games() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.sqlite");
        v1_database(&path);
        let conn = crate::db::open(&path).unwrap();
        let q = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(q("PRAGMA user_version"), crate::db::SCHEMA_VERSION);
        assert_eq!(q("PRAGMA foreign_keys"), 1);
        assert_eq!(q("SELECT count(*) FROM games"), 3);
        assert_eq!(q("SELECT count(*) FROM pragma_foreign_key_check"), 0);
        // The games' foreign keys now name the spellings.
        let games_sql: String = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'games'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(
            games_sql.contains("REFERENCES player_names(id)"),
            "{games_sql}"
        );
        // Four v1 spellings, one more for the FIDE id of game 1's White.
        assert_eq!(q("SELECT count(*) FROM player_names"), 5);
        let person = |name: &str, fide: Option<i64>| -> i64 {
            conn.query_row(
                "SELECT person_id FROM player_names WHERE name = ?1 AND fide_id IS ?2",
                params![name, fide],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(
            person("Carlsen, Magnus", None),
            person("Carlsen,Magnus", None)
        );
        assert_ne!(person("Carlsen,M", None), person("Carlsen,Magnus", None));
        let fide_person = person("Carlsen, Magnus", Some(1503014));
        assert_ne!(fide_person, person("Carlsen, Magnus", None));
        let key: String = conn
            .query_row(
                "SELECT key FROM players WHERE id = ?1",
                [fide_person],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(key, "fide:1503014");
        // Persons: fide:1503014, name:carlsen, magnus, name:carlsen, m, name:nakamura, hikaru.
        assert_eq!(q("SELECT count(*) FROM players"), 4);
        let g1: (
            i64,
            Option<i64>,
            Option<String>,
            Option<String>,
            Option<String>,
        ) = conn
            .query_row(
                "SELECT n.person_id, g.white_fide_id, g.white_title, g.time_control, g.tc_class \
                 FROM games g JOIN player_names n ON n.id = g.white_id WHERE g.id = 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap();
        assert_eq!(
            g1,
            (
                fide_person,
                Some(1503014),
                Some("GM".into()),
                Some("40/7200:3600".into()),
                Some("classical".into())
            )
        );
        let fed: String = conn
            .query_row("SELECT black_fed FROM games WHERE id = 3", [], |r| r.get(0))
            .unwrap();
        assert_eq!(fed, "USA");
        let tc: String = conn
            .query_row("SELECT tc_class FROM games WHERE id = 2", [], |r| r.get(0))
            .unwrap();
        assert_eq!(tc, "blitz");
        let hash: Vec<u8> = conn
            .query_row("SELECT moves_hash FROM games WHERE id = 3", [], |r| {
                r.get(0)
            })
            .unwrap();
        let blob: Vec<u8> = conn
            .query_row("SELECT moves FROM games WHERE id = 3", [], |r| r.get(0))
            .unwrap();
        assert_eq!(hash, moves_hash(None, &blob));
        let opening: (String, String, String, String, i64) = conn
            .query_row(
                "SELECT g.eco, o.name, o.family, o.variation, g.opening_ply \
                 FROM games g JOIN openings o ON o.id = g.opening_id WHERE g.id = 3",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap();
        assert_eq!(opening.0, "B50");
        assert_eq!(opening.2, "Sicilian Defense");
        assert_eq!(opening.4, 4);
        assert_eq!(opening.1, format!("{}: {}", opening.2, opening.3));
        // The view: two rows a game, scores from each side.
        assert_eq!(q("SELECT count(*) FROM player_games"), 6);
        let (score, opp): (f64, i64) = conn
            .query_row(
                "SELECT score, opponent_id FROM player_games WHERE game_id = 3 AND colour = 'black'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((score, opp), (1.0, person("Carlsen,M", None)));
        assert_eq!(
            q("SELECT CAST(sum(score) AS INTEGER) FROM player_games WHERE game_id = 2"),
            1,
            "a draw gives half a point to each side"
        );
        // Reopening applies nothing twice.
        drop(conn);
        let conn = crate::db::open(&path).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM players", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 4);
    }
}

/// Version 3 (`migrations/003_scale.sql`) is SQL only; these tests migrate a version-2
/// database as version 2's code left it.
#[cfg(test)]
mod v3_tests {
    use rusqlite::{Connection, params};

    /// Game, colour, opening, family, score: what `player_games` answers.
    type ViewRow = (i64, String, Option<String>, Option<String>, f64);

    /// A version-2 database: version 1's schema and rows, migrated by version 2's SQL and
    /// upgrade, then a game written as version 2's writer wrote one.
    pub(super) fn v2_database(path: &std::path::Path) {
        super::tests::v1_database(path);
        let conn = Connection::open(path).unwrap();
        // As open.rs runs a migration: foreign keys off while tables are rebuilt.
        conn.pragma_update(None, "foreign_keys", "OFF").unwrap();
        conn.execute_batch(&format!(
            "BEGIN;\n{}",
            include_str!("migrations/002_identity.sql")
        ))
        .unwrap();
        super::after_v2(&conn).unwrap();
        conn.execute_batch("COMMIT").unwrap();
        conn.execute(
            "INSERT INTO games (id, import_id, game_number, byte_offset, line, content_hash, \
             event_id, white_id, black_id, result, variant, ply_count, final_fen, moves, eco, \
             opening, opening_family, opening_variation, opening_ply, moves_hash) \
             SELECT 4, 1, 4, 0, 1, ?1, 1, white_id, black_id, '1-0', 'standard', 0, 'x', x'', \
             'A00', 'Polish Opening', 'Polish Opening', NULL, 1, ?2 FROM games WHERE id = 1",
            params![vec![4u8; 16], vec![9u8; 16]],
        )
        .unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 2);
    }

    #[test]
    fn version_2_database_migrates_to_3_and_answers_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v2.sqlite");
        v2_database(&path);
        // What the view answered in version 2, to compare after.
        let view = |conn: &Connection| -> Vec<ViewRow> {
            let mut stmt = conn
                .prepare(
                    "SELECT game_id, colour, opening, opening_family, score FROM player_games \
                     ORDER BY game_id, colour",
                )
                .unwrap();
            stmt.query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect()
        };
        let hashes = |conn: &Connection, sql: &str| -> Vec<(i64, Vec<u8>)> {
            let mut stmt = conn.prepare(sql).unwrap();
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let (before, hashes_before) = {
            let conn = Connection::open(&path).unwrap();
            (
                view(&conn),
                hashes(&conn, "SELECT id, content_hash FROM games ORDER BY id"),
            )
        };
        assert_eq!(before.len(), 8);
        assert!(before.contains(&(
            4,
            "white".into(),
            Some("Polish Opening".into()),
            Some("Polish Opening".into()),
            1.0
        )));
        let conn = crate::db::open(&path).unwrap();
        let q = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(q("PRAGMA user_version"), crate::db::SCHEMA_VERSION);
        assert_eq!(q("SELECT count(*) FROM pragma_foreign_key_check"), 0);
        assert_eq!(view(&conn), before);
        assert_eq!(
            hashes(
                &conn,
                "SELECT game_id, content_hash FROM game_hashes ORDER BY game_id"
            ),
            hashes_before
        );
        // Two distinct names among four games: each stored once.
        assert_eq!(q("SELECT count(*) FROM openings"), 2);
        assert_eq!(
            q("SELECT count(*) FROM games WHERE opening_id IS NOT NULL"),
            4
        );
        let gone: i64 = q("SELECT count(*) FROM pragma_table_info('games') \
             WHERE name IN ('final_fen', 'content_hash', 'opening', 'opening_family', \
             'opening_variation')");
        assert_eq!(gone, 0);
        let mut stmt = conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL \
                 AND tbl_name IN ('games', 'tags') ORDER BY name",
            )
            .unwrap();
        let indexes: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        // Version 4 drops games_eco after version 3 made it.
        assert_eq!(
            indexes,
            ["games_black", "games_date", "games_event", "games_white"]
        );
    }
}

/// Version 4 (`migrations/004_packed.sql`) rebuilds nothing: rows of versions 1 to 3 keep
/// their 2-byte moves; these tests check that they answer as before, next to packed rows.
#[cfg(test)]
mod v4_tests {
    use crate::db::duplicates::candidates;
    use crate::db::encode::{decode_moves, is_packed, pack_moves};
    use rusqlite::{Connection, params};

    /// A version-3 database: version 2's, migrated by version 3's SQL.
    fn v3_database(path: &std::path::Path) {
        super::v3_tests::v2_database(path);
        let conn = Connection::open(path).unwrap();
        conn.pragma_update(None, "foreign_keys", "OFF").unwrap();
        conn.execute_batch(&format!(
            "BEGIN;\n{}\nCOMMIT;",
            include_str!("migrations/003_scale.sql")
        ))
        .unwrap();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, 3);
    }

    /// Everything a reader sees of each game: the view's rows and the decoded moves.
    type Seen = (
        Vec<(i64, String, Option<String>, f64)>,
        Vec<(i64, Vec<u16>)>,
    );

    fn seen(conn: &Connection) -> Seen {
        let mut stmt = conn
            .prepare(
                "SELECT game_id, colour, opening, score FROM player_games ORDER BY game_id, colour",
            )
            .unwrap();
        let view = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let mut stmt = conn
            .prepare("SELECT id, moves FROM games ORDER BY id")
            .unwrap();
        let moves = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, Vec<u8>>(1)?)))
            .unwrap()
            .map(|row| {
                let (id, blob) = row.unwrap();
                let moves = decode_moves(&crate::chess::Position::new(), &blob).unwrap();
                (id, moves.iter().map(|m| m.to_u16()).collect())
            })
            .collect();
        (view, moves)
    }

    #[test]
    fn version_3_database_migrates_to_4_and_answers_the_same_next_to_packed_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v3.sqlite");
        v3_database(&path);
        let before = seen(&Connection::open(&path).unwrap());
        assert_eq!(before.0.len(), 8);
        let conn = crate::db::open(&path).unwrap();
        let q = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(q("PRAGMA user_version"), crate::db::SCHEMA_VERSION);
        assert_eq!(q("SELECT count(*) FROM pragma_foreign_key_check"), 0);
        assert_eq!(seen(&conn), before);
        assert_eq!(
            q("SELECT count(*) FROM sqlite_master WHERE name = 'games_eco'"),
            0
        );
        // Game 3 (1. e4 c5 2. Nf3 d6, version 1's 2-byte layout) stored again as version 4
        // writes it: packed, no moves_hash, under another Round so it is a variant record.
        let old: Vec<u8> = conn
            .query_row("SELECT moves FROM games WHERE id = 3", [], |r| r.get(0))
            .unwrap();
        assert!(!is_packed(&old) && old.len() == 8);
        let start = crate::chess::Position::new();
        let packed = pack_moves(&start, &decode_moves(&start, &old).unwrap()).unwrap();
        assert!(is_packed(&packed) && packed.len() < old.len(), "{packed:?}");
        conn.execute(
            "INSERT INTO games (id, import_id, game_number, byte_offset, line, event_id, \
             white_id, black_id, result, variant, ply_count, moves) \
             SELECT 5, 1, 5, 0, 1, event_id, white_id, black_id, result, variant, ply_count, ?1 \
             FROM games WHERE id = 3",
            params![packed],
        )
        .unwrap();
        let after = seen(&conn);
        assert_eq!(after.1[..before.1.len()], before.1[..]);
        assert_eq!(after.1.last(), Some(&(5, before.1[2].1.clone())));
        // Duplicate detection keys both layouts of one game alike, and no other game so.
        let keys: Vec<(i64, Vec<u8>)> = candidates(&conn)
            .unwrap()
            .into_iter()
            .map(|c| (c.id, c.moves_hash))
            .collect();
        assert_eq!(keys.len(), 5);
        let key = |id: i64| keys.iter().find(|k| k.0 == id).unwrap().1.clone();
        assert_eq!(key(5), key(3));
        assert_eq!(key(1), key(3), "games 1 to 3 have the same moves");
        assert_ne!(key(4), key(3), "game 4 has no moves");
    }
}
