// Vector hits found elsewhere (Qdrant), as the `id, score` rows a retrieval/*-hits statement follows.
UNWIND $found AS hit
WITH hit.id AS id, hit.score AS score
