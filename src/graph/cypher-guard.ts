import { ForbiddenError, InvalidInputError } from '../domain/errors';

/**
 * What an analyst's Cypher may do, checked on its tokens before Neo4j sees it (docs/api.md §4.5). The query is
 * lexed as Cypher is (strings, comments, backtick names, parameters), so a keyword hidden in a string or comment
 * counts for nothing and one split by a comment (`LOAD/**\/CSV`) or spelled in another case still counts. Then:
 * the statement starts with a reading clause; no clause that writes, loads files or URLs, switches the database
 * or administers the server appears anywhere; `CALL` names a procedure of a short read-only list; a namespaced
 * function belongs to the built-in value namespaces. A name in backticks is a name, never a keyword.
 */

type TokenKind = 'word' | 'name' | 'string' | 'number' | 'param' | 'punct';

interface Token {
  kind: TokenKind;
  /** A word or backtick name's text (without backticks), or the punctuation character. */
  text: string;
}

/** Clauses a statement may start with (after EXPLAIN, PROFILE or CYPHER options). */
const READ_STARTS = new Set(['MATCH', 'OPTIONAL', 'WITH', 'RETURN', 'UNWIND', 'CALL']);

/** Clause keywords refused wherever they stand as keywords: writes, file and URL loading, database switching, server state. */
const REFUSED_KEYWORDS = new Map<string, string>([
  ['CREATE', 'CREATE'],
  ['MERGE', 'MERGE'],
  ['DELETE', 'DELETE'],
  ['DETACH', 'DETACH DELETE'],
  ['SET', 'SET'],
  ['REMOVE', 'REMOVE'],
  ['FOREACH', 'FOREACH'],
  ['INSERT', 'INSERT'],
  ['LOAD', 'LOAD CSV'],
  ['USE', 'USE'],
  ['SHOW', 'SHOW'],
  ['TERMINATE', 'TERMINATE'],
  ['TRANSACTIONS', 'IN TRANSACTIONS'],
  ['PERIODIC', 'USING PERIODIC COMMIT'],
]);

/**
 * Administration commands, which are whole statements: refused as the first clause (as is any statement not starting
 * with a reading clause), while the words stay usable as variable names elsewhere (`MATCH (start)-->(stop)`).
 */
const ADMINISTRATION = new Set([
  'DROP',
  'ALTER',
  'GRANT',
  'DENY',
  'REVOKE',
  'START',
  'STOP',
  'RENAME',
  'ENABLE',
  'DEALLOCATE',
  'REALLOCATE',
  'DRYRUN',
]);

/** Procedures `CALL` may name: schema listings and index searches, all read-only. */
export const ALLOWED_PROCEDURES: ReadonlySet<string> = new Set([
  'db.labels',
  'db.relationshipTypes',
  'db.propertyKeys',
  'db.schema.visualization',
  'db.schema.nodeTypeProperties',
  'db.schema.relTypeProperties',
  'db.index.vector.queryNodes',
  'db.index.vector.queryRelationships',
  'db.index.fulltext.queryNodes',
  'db.index.fulltext.queryRelationships',
]);

/** Namespaces of built-in value functions (`date.truncate`, `point.distance`, `vector.similarity.cosine`, …). */
const FUNCTION_NAMESPACES = new Set(['date', 'datetime', 'localdatetime', 'localtime', 'time', 'duration', 'point', 'vector.similarity']);
const ALLOWED_FUNCTIONS = new Set(['db.nameFromElementId'.toLowerCase()]);

const invalid = (message: string) => InvalidInputError.field('query', message);

function refuse(construct: string, why = 'only reading clauses and read-only procedures are allowed'): ForbiddenError {
  return new ForbiddenError(`${construct} is refused: /graph/cypher runs read-only queries; ${why}`, { refused: construct });
}

/** Cypher's lexical structure, enough to tell keywords from names, strings and comments. */
export function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = query.length;
  while (i < n) {
    const c = query[i];
    if (/\s/u.test(c)) {
      i++;
    } else if (query.startsWith('//', i)) {
      const end = query.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (query.startsWith('/*', i)) {
      const end = query.indexOf('*/', i + 2);
      if (end < 0) throw invalid('a /* comment is not closed');
      i = end + 2;
    } else if (c === "'" || c === '"') {
      i = skipString(query, i, c);
      tokens.push({ kind: 'string', text: '' });
    } else if (c === '`') {
      const [text, next] = backtickName(query, i);
      tokens.push({ kind: 'name', text });
      i = next;
    } else if (c === '$') {
      i++;
      if (query[i] === '`') i = backtickName(query, i)[1];
      else while (i < n && /[\p{L}\p{N}_]/u.test(query[i])) i++;
      tokens.push({ kind: 'param', text: '' });
    } else if (/[\p{L}_]/u.test(c)) {
      const start = i;
      while (i < n && /[\p{L}\p{N}_]/u.test(query[i])) i++;
      tokens.push({ kind: 'word', text: query.slice(start, i) });
    } else if (/[0-9]/.test(c)) {
      const start = i;
      while (i < n && /[0-9a-zA-Z_]/.test(query[i])) i++;
      // A fraction, but not a range (`1..3`).
      if (query[i] === '.' && /[0-9]/.test(query[i + 1] ?? '')) for (i++; i < n && /[0-9a-zA-Z_]/.test(query[i]);) i++;
      tokens.push({ kind: 'number', text: query.slice(start, i) });
    } else {
      tokens.push({ kind: 'punct', text: c });
      i++;
    }
  }
  return tokens;
}

function skipString(query: string, start: number, quote: string): number {
  for (let i = start + 1; i < query.length; i++) {
    if (query[i] === '\\') i++;
    else if (query[i] === quote) return i + 1;
  }
  throw invalid('a string literal is not closed');
}

function backtickName(query: string, start: number): [string, number] {
  let text = '';
  for (let i = start + 1; i < query.length; i++) {
    if (query[i] !== '`') text += query[i];
    else if (query[i + 1] === '`') {
      text += '`';
      i++;
    } else return [text, i + 1];
  }
  throw invalid('a `backtick` name is not closed');
}

const isPunct = (t: Token | undefined, text: string) => t?.kind === 'punct' && t.text === text;
const isWord = (t: Token | undefined, text: string) => t?.kind === 'word' && t.text.toUpperCase() === text;

/**
 * Whether the word at `i` stands where a keyword can: not a property key (`n.set`), a label or type (`:Create`,
 * `:A|Set`), or a map key (`{load: 1}`), which are names.
 */
function isKeywordAt(tokens: Token[], i: number): boolean {
  if (tokens[i].kind !== 'word') return false;
  const before = tokens[i - 1];
  if (before?.kind === 'punct' && ['.', ':', '|', '&', '!'].includes(before.text)) return false;
  return !isPunct(tokens[i + 1], ':');
}

/** A dotted name from `i` (`db.index.vector.queryNodes`, `` `dbms`.listConfig ``): its text and the index after it. */
function dottedName(tokens: Token[], i: number): [string, number] {
  const parts: string[] = [];
  while (tokens[i]?.kind === 'word' || tokens[i]?.kind === 'name') {
    parts.push(tokens[i].text);
    if (!isPunct(tokens[i + 1], '.')) return [parts.join('.'), i + 1];
    i += 2;
  }
  return [parts.join('.'), i];
}

const isClauseWord = (text: string) => {
  const word = text.toUpperCase();
  return READ_STARTS.has(word) || REFUSED_KEYWORDS.has(word) || ADMINISTRATION.has(word);
};

/** Skips EXPLAIN, PROFILE and `CYPHER <options>`: the index of the first clause. */
function firstClause(tokens: Token[]): number {
  let i = 0;
  for (;;) {
    if (isWord(tokens[i], 'EXPLAIN') || isWord(tokens[i], 'PROFILE')) i++;
    else if (isWord(tokens[i], 'CYPHER')) {
      i++;
      // Options (`runtime=slotted`) and a version (`CYPHER 5`) run up to the first clause keyword.
      while (tokens[i] && !(isKeywordAt(tokens, i) && isClauseWord(tokens[i].text) && !isPunct(tokens[i + 1], '='))) i++;
    } else return i;
  }
}

function checkCall(tokens: Token[], i: number): void {
  const next = tokens[i + 1];
  // `CALL { … }` and `CALL (x) { … }`: a subquery, whose clauses are checked like any others.
  if (isPunct(next, '{') || isPunct(next, '(')) return;
  const [name] = dottedName(tokens, i + 1);
  if (!name) throw invalid('CALL names no procedure');
  if (ALLOWED_PROCEDURES.has(name)) return;
  const namespace = name.split('.')[0].toLowerCase();
  const why =
    namespace === 'dbms' || namespace === 'db'
      ? 'dbms.* and administrative db.* procedures are not available here'
      : 'only the read-only procedures listed in docs/api.md §4.5 may be called';
  throw refuse(`CALL ${name}`, why);
}

function checkFunction(tokens: Token[], i: number): number {
  const [name, after] = dottedName(tokens, i);
  if (!isPunct(tokens[after], '(') || !name.includes('.')) return after;
  const lower = name.toLowerCase();
  const namespace = lower.slice(0, lower.lastIndexOf('.'));
  if (FUNCTION_NAMESPACES.has(namespace) || ALLOWED_FUNCTIONS.has(lower)) return after;
  throw refuse(`the function ${name}`, 'only built-in functions may be called');
}

/** Throws a 403 ForbiddenError naming the refused construct, or a 422 for text that is not Cypher at all. */
export function checkReadOnlyCypher(query: string): void {
  const tokens = tokenize(query);
  const semicolon = tokens.findIndex((t) => isPunct(t, ';'));
  if (semicolon >= 0 && semicolon < tokens.length - 1) throw refuse('more than one statement', 'send one statement per request');
  const start = firstClause(tokens);
  const first = tokens[start];
  if (!first) throw invalid('the query has no clause');
  if (first.kind !== 'word' || !READ_STARTS.has(first.text.toUpperCase())) {
    const word = first.kind === 'word' ? first.text.toUpperCase() : first.text;
    const why = ADMINISTRATION.has(word)
      ? 'administration commands are not available here'
      : 'a query starts with MATCH, OPTIONAL MATCH, WITH, RETURN, UNWIND or CALL';
    throw refuse(REFUSED_KEYWORDS.get(word) ?? word, why);
  }
  for (let i = start; i < tokens.length;) {
    const token = tokens[i];
    if (!isKeywordAt(tokens, i)) {
      i = token.kind === 'word' || token.kind === 'name' ? checkFunction(tokens, i) : i + 1;
      continue;
    }
    const word = token.text.toUpperCase();
    const refused = REFUSED_KEYWORDS.get(word);
    if (refused) throw refuse(refused);
    if (word === 'CALL') {
      checkCall(tokens, i);
      i = dottedName(tokens, i + 1)[1];
      continue;
    }
    i = checkFunction(tokens, i);
  }
}
