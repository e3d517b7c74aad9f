-- Every stored event's id, name and site.
SELECT id, name, site FROM events
