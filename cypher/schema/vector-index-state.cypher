// The state of the vector indexes (ONLINE, POPULATING, FAILED), by name: searches avoid one that is not online.
SHOW VECTOR INDEXES YIELD name, state, populationPercent
RETURN name, state, populationPercent AS percent
