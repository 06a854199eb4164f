/** A stable colour per entity type, shared by the explorer, its legend and the lists that name types. */
const KNOWN: Record<string, string> = {
  PERSON: '#4f7cff',
  ORGANIZATION: '#f2a541',
  LOCATION: '#47b881',
  CONCEPT: '#a66cff',
  EVENT: '#ef5d60',
  TECHNOLOGY: '#23b5d3',
  PRODUCT: '#e86fb4',
  DOCUMENT: '#8d99ae',
};
const EXTRA = ['#c9a227', '#6c8ead', '#b56576', '#2a9d8f', '#e76f51', '#8ab17d', '#7b6d8d', '#d4a373'];

/** Fixed for the common types, hashed for the rest. */
export function typeColor(type: string): string {
  const key = type.toUpperCase();
  if (KNOWN[key]) return KNOWN[key];
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) >>> 0;
  return EXTRA[hash % EXTRA.length];
}
