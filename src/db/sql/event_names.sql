-- Every stored event that has games: its id and name (the resolver matches names in Rust,
-- after normalising case and spaces).
SELECT e.id, e.name FROM events e
WHERE EXISTS (SELECT 1 FROM games g WHERE g.event_id = e.id)
ORDER BY e.id
