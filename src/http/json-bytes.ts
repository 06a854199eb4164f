/** Below this many characters a body is encoded in one piece: splitting it would cost more than it saves. */
const SPLIT_FROM_CHARS = 4096;

/**
 * The UTF-8 bytes of `JSON.stringify(value)`, byte for byte, made cheaply for large answers. V8 keeps a string
 * made only of Latin-1 characters at one byte per character and any other string at two; one `…` in a snippet
 * makes the whole serialised answer a two-byte string, which is slower to build, to measure and to encode. Each
 * top-level field is serialised and encoded on its own, so the large context text of a query answer stays a
 * one-byte string when its own characters allow it, and the bytes are measured and written without another pass.
 */
export function jsonBytes(value: unknown): Buffer {
  if (!isPlainObject(value)) return Buffer.from(JSON.stringify(value) ?? 'null');
  const parts: string[] = [];
  let chars = 0;
  for (const key of Object.keys(value)) {
    const json = JSON.stringify(value[key]);
    // JSON.stringify leaves out fields whose value has no JSON form (undefined, functions, symbols).
    if (json === undefined) continue;
    const name = `${parts.length === 0 ? '{' : ','}${JSON.stringify(key)}:`;
    // Kept apart from the name: joined, a large value would be copied once more before it is encoded.
    parts.push(name, json);
    chars += name.length + json.length;
  }
  if (parts.length === 0) return Buffer.from('{}');
  parts.push('}');
  if (chars < SPLIT_FROM_CHARS) return Buffer.from(parts.join(''));
  return Buffer.concat(parts.map((part) => Buffer.from(part)));
}

/** An object JSON.stringify walks field by field: no prototype of its own and no `toJSON`. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
