SHOW VECTOR INDEXES YIELD name, options
WHERE name = $name
RETURN options.indexConfig.`vector.dimensions` AS dimension
