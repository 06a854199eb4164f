// Template: $$LABEL$$ as in records/insert.
MATCH (n:$$LABEL$$)
WHERE all(k IN keys($filter) WHERE CASE WHEN $filter[k] IS NULL THEN n[k] IS NULL ELSE n[k] = $filter[k] END)
RETURN count(n) AS total
