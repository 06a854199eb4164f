export { loadConfig, type LoadConfigOptions } from './load';
export { ConfigError } from './errors';
export { loadCatalog, findCatalogFile, parseCatalogToml, buildCatalog, builtInCatalog } from './catalog';
export type * from './types';
