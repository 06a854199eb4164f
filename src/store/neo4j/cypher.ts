import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** `cypher/` at the repository root, both from src/store/neo4j and from dist/store/neo4j. */
export const CYPHER_DIR = path.resolve(__dirname, '../../../cypher');

/** Labels, relationship types and index names spliced into templates: letters, digits, underscores. */
const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const PLACEHOLDER = /\$\$([A-Z_]+)\$\$/g;

const texts = new Map<string, string>();

/** The text of `cypher/<name>.cypher`, read once. */
export function cypherText(name: string): string {
  let text = texts.get(name);
  if (text === undefined) {
    if (!/^[a-z0-9-]+(\/[a-z0-9-]+)*$/.test(name)) throw new Error(`invalid cypher file name '${name}'`);
    text = readFileSync(path.join(CYPHER_DIR, `${name}.cypher`), 'utf8').trim();
    texts.set(name, text);
  }
  return text;
}

/** True when the value can be spliced into a query as a label or relationship type. */
export function isIdentifier(value: string): boolean {
  return IDENTIFIER.test(value);
}

/**
 * A query whose `$$NAME$$` placeholders are replaced by identifiers. Cypher cannot take labels or relationship
 * types as parameters, so this is the one place text enters a query: only values that pass `isIdentifier`.
 */
export function cypherTemplate(name: string, identifiers: Record<string, string>): string {
  const text = cypherText(name);
  return text.replace(PLACEHOLDER, (_, key: string) => {
    const value = identifiers[key];
    if (value === undefined) throw new Error(`cypher template ${name} needs an identifier for $$${key}$$`);
    if (!isIdentifier(value)) throw new Error(`'${value}' is not a valid Cypher identifier for $$${key}$$`);
    return value;
  });
}

export interface Migration {
  version: number;
  name: string;
  /** Statements in file order; schema statements each run in their own transaction. */
  statements: string[];
}

/** `cypher/migrations/NNN_name.cypher`, ordered by version. */
export function loadMigrations(dir = path.join(CYPHER_DIR, 'migrations')): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    const match = /^(\d{3})_([a-z0-9_]+)\.cypher$/.exec(file);
    if (!match) continue;
    const text = readFileSync(path.join(dir, file), 'utf8');
    migrations.push({ version: Number(match[1]), name: match[2], statements: splitStatements(text) });
  }
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i].version === migrations[i - 1].version) {
      throw new Error(`two migrations share version ${migrations[i].version}`);
    }
  }
  return migrations;
}

/** Statements end with `;` at the end of a line; `//` comment lines are dropped. */
export function splitStatements(text: string): string[] {
  const lines = text.split('\n').filter((line) => !line.trim().startsWith('//'));
  return lines
    .join('\n')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
