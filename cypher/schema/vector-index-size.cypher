// Template: $$LABEL$$ as in vectors/upsert. The size of the kind's vector index: its vectors in every workspace,
// a count only (no workspace's data), to size how many candidates one workspace's search asks the index for.
MATCH (v:$$LABEL$$)
RETURN count(v) AS total
