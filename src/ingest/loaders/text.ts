import { LoadError } from './types';

/** Text files must be UTF-8 and free of NUL bytes (a NUL means a binary file under a text name). */
export function decodeUtf8(data: Buffer): string {
  if (data.includes(0)) throw new LoadError('the file contains binary data (NUL bytes), not text');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    throw new LoadError('the file is not valid UTF-8 text');
  }
}

/** How deeply a JSON document may nest: far beyond any real document, far within what the JSON functions can walk. */
export const MAX_JSON_DEPTH = 512;

/** The deepest nesting of arrays and objects in JSON text, strings skipped; counted without parsing. */
function jsonDepth(raw: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') {
      for (i++; i < raw.length && raw[i] !== '"'; i++) if (raw[i] === '\\') i++;
    } else if (c === '[' || c === '{') deepest = Math.max(deepest, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return deepest;
}

/** JSON documents are stored pretty-printed so that chunks and line numbers follow their structure. */
export function jsonText(raw: string): string {
  if (jsonDepth(raw) > MAX_JSON_DEPTH) throw new LoadError(`the JSON nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch (err) {
    // A parser's message says where the JSON breaks; any other failure is ours, and its words are not the client's.
    if (err instanceof SyntaxError) throw new LoadError(`the file is not valid JSON: ${err.message}`);
    throw new LoadError('the file could not be read as JSON');
  }
}
