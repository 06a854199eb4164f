// Newest first, ties by id; the filters are optional (null or empty means "any").
MATCH (d:Document {tenant_id: $tenant_id, workspace_id: $workspace_id})
WHERE d.created_at IS NOT NULL
  AND ($status IS NULL OR d.status = $status)
  AND ($date_from IS NULL OR d.created_at >= $date_from)
  AND ($date_to IS NULL OR d.created_at <= $date_to)
  AND (size($title_terms) = 0 OR any(term IN $title_terms WHERE toLower(d.title) CONTAINS term))
WITH d ORDER BY d.created_at DESC, d.id ASC
WITH collect(d) AS matching
RETURN size(matching) AS total, [d IN matching[$offset..($offset + $limit)] | d {.*}] AS documents
