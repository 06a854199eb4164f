// Template: $$LABEL$$ is an account label (Tenant, Workspace, User, ApiKey, RefreshToken, MetricsSnapshot, Settings, SavedView).
// The whole record is JSON in `record`; its non-null fields are also properties, for lookups and constraints.
CREATE (n:$$LABEL$$)
SET n = $fields, n.record = $record
