// Template: $$LABEL$$ as in records/insert, $$KEY$$ a field the filter names (an index serves the match).
// As records/count, for a filter with a non-null field.
MATCH (n:$$LABEL$$ {$$KEY$$: $value})
WHERE all(k IN keys($filter) WHERE CASE WHEN $filter[k] IS NULL THEN n[k] IS NULL ELSE n[k] = $filter[k] END)
RETURN count(n) AS total
