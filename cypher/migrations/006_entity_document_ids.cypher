// Entities by the documents they name (entities/of-document, relationships/of-document). document_ids is a list,
// which only a full-text index serves; the keyword analyser keeps each id one exact, case-sensitive term.
CREATE FULLTEXT INDEX entity_document_ids IF NOT EXISTS FOR (n:Entity) ON EACH [n.document_ids] OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword'}};
