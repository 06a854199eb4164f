import { chunkId, normalizeEntityId, relationshipId } from '../../src/domain/ids';
import type { ChunkRecord, DocumentRecord, EntityRecord, RelationshipRecord } from '../../src/domain/types';
import { countTokens } from '../../src/llm/tokens';
import { seeded } from './random';

/**
 * The synthetic corpus of the query benchmark: documents of 10 chunks of about 1200 tokens, 0.8 entities per
 * chunk, about 1.5 relationships per chunk between entities that share one, a few very connected entities,
 * in the record shapes ingestion writes. Deterministic for a given size.
 */

export const CHUNKS_PER_DOCUMENT = 10;
const WORDS_PER_CHUNK = 850;
const ENTITIES_PER_CHUNK = 0.8;
const QUERY_COUNT = 64;

const SYLLABLES = 'ka lo mi ra ve tu sen dor bel fin gar hol jun kes lam nor pel quin ros tal ul vin wes yor zan'.split(' ');
const FILLER = [
  'the of and to in a is that for on with as by at from this was are be an which or has its were their been more',
  'also its into other such new than these most some over can many between data system results research team work',
  'project study analysis model network market report growth policy development process design performance quality',
  'service management production program',
]
  .join(' ')
  .split(' ');
const TYPES = ['PERSON', 'ORGANIZATION', 'LOCATION', 'CONCEPT', 'TECHNOLOGY', 'EVENT'];
const RELATIONS = ['WORKS_WITH', 'PART_OF', 'LOCATED_IN', 'RELATED_TO'];

/** A pronounceable, unique name for index i. */
function nameOf(i: number, type: string): string {
  const word = (n: number) => {
    let s = '';
    do {
      s += SYLLABLES[n % SYLLABLES.length];
      n = Math.floor(n / SYLLABLES.length);
    } while (n > 0);
    return s[0].toUpperCase() + s.slice(1);
  };
  const suffix: Record<string, string> = { ORGANIZATION: ' Labs', LOCATION: ' City', TECHNOLOGY: ' Engine', EVENT: ' Summit' };
  return type === 'PERSON' ? `${word(i)} ${word(i * 7 + 3)}` : `${word(i + 11)}${suffix[type] ?? ' Theory'}`;
}

export interface Corpus {
  documents: DocumentRecord[];
  chunks: ChunkRecord[];
  entities: EntityRecord[];
  relationships: RelationshipRecord[];
  queries: string[];
}

/** Documents with their chunks, as the generator gives them. */
export interface CorpusPart {
  documents: DocumentRecord[];
  chunks: ChunkRecord[];
}

/** Deterministic corpus: each document has a local cast of entities; a Zipf-ranked global cast recurs everywhere. */
export function buildCorpus(chunkCount: number): Corpus {
  const documents: DocumentRecord[] = [];
  const chunks: ChunkRecord[] = [];
  const parts = generateCorpus(chunkCount);
  for (;;) {
    const next = parts.next();
    if (next.done) return { documents, chunks, ...next.value };
    for (const d of next.value.documents) documents.push(d);
    for (const c of next.value.chunks) chunks.push(c);
  }
}

/**
 * The same corpus as it is generated: documents with their chunks, `documentsPerPart` documents at a time (so a
 * corpus of a million chunks need not be held at once), then the entities, relationships and queries they make.
 */
export function* generateCorpus(
  chunkCount: number,
  documentsPerPart = Infinity,
): Generator<CorpusPart, Pick<Corpus, 'entities' | 'relationships' | 'queries'>> {
  const random = seeded(chunkCount);
  const now = new Date('2024-01-01T00:00:00Z').getTime();
  const entityCount = Math.round(chunkCount * ENTITIES_PER_CHUNK);
  const names = Array.from({ length: entityCount }, (_, i) => {
    const type = TYPES[i % TYPES.length];
    return { name: nameOf(i, type), type };
  });
  const globalCast = Math.max(50, Math.round(entityCount * 0.1));
  const zipf = (n: number) => Math.min(n - 1, Math.floor(Math.exp(random() * Math.log(n + 1))) - 1);
  const mentions = new Map<number, string[]>();
  const pairs = new Map<string, { a: number; b: number; chunks: string[] }>();
  let part: CorpusPart = { documents: [], chunks: [] };
  let made = 0;
  const documentCount = Math.ceil(chunkCount / CHUNKS_PER_DOCUMENT);
  const localPerDocument = Math.max(1, Math.floor((entityCount - globalCast) / documentCount));

  for (let d = 0; d < documentCount; d++) {
    const id = `bench-doc-${d}`;
    const created = new Date(now + d * 3_600_000).toISOString();
    const local = Array.from(
      { length: localPerDocument },
      (_, k) => globalCast + ((d * localPerDocument + k) % (entityCount - globalCast)),
    );
    let line = 1;
    const texts: string[] = [];
    for (let c = 0; c < CHUNKS_PER_DOCUMENT && made < chunkCount; c++, made++) {
      const cid = chunkId(id, c);
      const cast = [
        ...new Set([0, 1, 2].map(() => local[Math.floor(random() * local.length)]).concat([zipf(globalCast), zipf(globalCast)])),
      ];
      for (const e of cast) {
        const list = mentions.get(e);
        if (list) list.push(cid);
        else mentions.set(e, [cid]);
      }
      for (let r = 0; r + 1 < cast.length && r < 2; r++) {
        const [a, b] = [cast[r], cast[r + 1]].sort((x, y) => x - y);
        const key = `${a}|${b}`;
        const pair = pairs.get(key) ?? { a, b, chunks: [] };
        pair.chunks.push(cid);
        pairs.set(key, pair);
      }
      const words: string[] = [];
      while (words.length < WORDS_PER_CHUNK) {
        const e = names[cast[Math.floor(random() * cast.length)]];
        words.push(e.name, 'and');
        for (let w = 0; w < 14; w++) words.push(FILLER[zipf(FILLER.length)]);
        words.push(`${SYLLABLES[Math.floor(random() * SYLLABLES.length)]}ics.\n`);
      }
      const content = words.join(' ');
      const lines = content.split('\n').length;
      texts.push(content);
      part.chunks.push({
        id: cid,
        document_id: id,
        index: c,
        content,
        tokens: countTokens(content),
        char_start: 0,
        char_end: content.length,
        start_line: line,
        end_line: line + lines - 1,
        page_start: null,
        page_end: null,
        extraction_status: 'completed',
        extraction_error: null,
        entity_ids: cast.map((e) => normalizeEntityId(names[e].name)),
        relationship_ids: [],
        llm_model: 'mock-llm',
        embedding_model: 'mock-embedding',
        created_at: created,
      });
      line += lines;
    }
    const content = texts.join('\n');
    part.documents.push({
      id,
      title: `Report ${d} on ${names[local[0]].name}`,
      status: 'completed',
      content_hash: `sha256:${d.toString(16).padStart(64, '0')}`,
      content,
      document_type: 'text',
      file_path: `reports/report-${d}.txt`,
      file_size: content.length,
      source: null,
      metadata: {},
      chunk_count: texts.length,
      entity_count: 0,
      relationship_count: 0,
      created_at: created,
      updated_at: created,
      processed_at: created,
      processing_time_ms: 0,
      error: null,
      track_id: null,
      task_id: null,
      llm_model: 'mock-llm',
      embedding_model: 'mock-embedding',
      page_count: null,
      pdf_id: null,
      options: { enable_gleaning: false, max_gleaning: 0, use_llm_summarization: false },
    });
    if (part.documents.length >= documentsPerPart) {
      yield part;
      part = { documents: [], chunks: [] };
    }
  }
  if (part.documents.length) yield part;

  const documentOf = (cid: string) => cid.replace(/-chunk-\d+$/, '');
  const at = new Date(now).toISOString();
  const entities: EntityRecord[] = [];
  for (const [e, cids] of mentions) {
    const { name, type } = names[e];
    entities.push({
      id: normalizeEntityId(name),
      name,
      entity_type: type,
      description:
        `${name} is a ${type.toLowerCase()} that appears in ${cids.length} passages about ` +
        `${FILLER[e % FILLER.length]} ${FILLER[(e * 3) % FILLER.length]} and ${SYLLABLES[e % SYLLABLES.length]}ics.`,
      source_chunk_ids: cids,
      document_ids: [...new Set(cids.map(documentOf))],
      created_at: at,
      updated_at: at,
    });
  }
  const relationships: RelationshipRecord[] = [...pairs.values()].map(({ a, b, chunks: cids }) => {
    const [id, source, target] = relationshipId(normalizeEntityId(names[a].name), normalizeEntityId(names[b].name));
    return {
      id,
      source,
      target,
      relation_type: RELATIONS[(a + b) % RELATIONS.length],
      keywords: [FILLER[(a + b) % FILLER.length], FILLER[(a * b) % FILLER.length]],
      description: `${names[a].name} and ${names[b].name} are linked through ${FILLER[(a + 2 * b) % FILLER.length]} work.`,
      weight: cids.length,
      source_chunk_ids: cids,
      document_ids: [...new Set(cids.map(documentOf))],
      created_at: at,
      updated_at: at,
    };
  });
  const queries = Array.from({ length: QUERY_COUNT }, (_, q) => question(q, entities, random, zipf));
  return { entities, relationships, queries };
}

/**
 * `count` questions about the corpus's entities: its own `queries` first, then more made the same way from
 * another seed, so that a load run can ask mostly questions it has not asked before.
 */
export function questionsAbout(corpus: Pick<Corpus, 'entities' | 'queries'>, count: number): string[] {
  const random = seeded(corpus.entities.length + 7919);
  const zipf = (n: number) => Math.min(n - 1, Math.floor(Math.exp(random() * Math.log(n + 1))) - 1);
  const own = corpus.queries.slice(0, count);
  const seen = new Set(own);
  while (own.length < count) {
    const next = question(own.length, corpus.entities, random, zipf);
    if (!seen.has(next)) own.push(next);
    seen.add(next);
  }
  return own;
}

function question(q: number, entities: EntityRecord[], random: () => number, zipf: (n: number) => number): string {
  const a = entities[Math.floor(random() * entities.length)];
  const b = entities[Math.floor(random() * entities.length)];
  return q % 2
    ? `What is the relationship between ${a.name} and ${b.name}?`
    : `How does ${a.name} influence ${FILLER[zipf(FILLER.length)]} research and development?`;
}
