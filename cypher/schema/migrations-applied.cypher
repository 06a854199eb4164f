MATCH (m:Migration)
RETURN m.version AS version, m.name AS name, m.applied_at AS applied_at
ORDER BY m.version
