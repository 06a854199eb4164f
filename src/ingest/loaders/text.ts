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

/** JSON documents are stored pretty-printed so that chunks and line numbers follow their structure. */
export function jsonText(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch (err) {
    throw new LoadError(`the file is not valid JSON: ${(err as Error).message}`);
  }
}
