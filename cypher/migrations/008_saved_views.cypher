// Saved views of the graph explorer: one name per user and workspace.
CREATE CONSTRAINT saved_view_id IF NOT EXISTS FOR (n:SavedView) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT saved_view_name IF NOT EXISTS FOR (n:SavedView) REQUIRE (n.workspace_id, n.owner_id, n.name) IS UNIQUE;
CREATE INDEX saved_view_workspace IF NOT EXISTS FOR (n:SavedView) ON (n.workspace_id);
