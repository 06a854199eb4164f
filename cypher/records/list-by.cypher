// Template: $$LABEL$$ as in records/insert, $$KEY$$ a field the filter names (an index serves the match).
// As records/list, for a filter with a non-null field. A null in the filter matches a field that is null (absent).
MATCH (n:$$LABEL$$ {$$KEY$$: $value})
WHERE all(k IN keys($filter) WHERE CASE WHEN $filter[k] IS NULL THEN n[k] IS NULL ELSE n[k] = $filter[k] END)
WITH n ORDER BY n.created_at, n.id
WITH collect(n.record) AS records
RETURN size(records) AS total, records[$offset..($offset + $limit)] AS records
