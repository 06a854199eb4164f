MATCH (m:Migration)
RETURN max(m.version) AS latest_version, count(m) AS migrations_applied, max(m.applied_at) AS last_applied_at
