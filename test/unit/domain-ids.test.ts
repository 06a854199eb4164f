import { chunkId, documentOfChunk, documentsOfChunks, followingChunkId, isChunkOf, normalizeEntityId } from '../../src/domain/ids';

/** Chunk ids `{document_id}-chunk-{N}` and the documents they name (src/domain/ids.ts). */
describe('chunk and document ids', () => {
  const a = '0b7c1f1e-4a52-4c1d-9d0e-5f3c2b1a0e9d';
  const b = 'c2a1d4e3-8f7b-4e6a-a5d9-1b2c3d4e5f60';

  it('reads the document of a chunk, including ids that themselves contain "-chunk-"', () => {
    expect(documentOfChunk(chunkId(a, 7))).toBe(a);
    expect(documentOfChunk(chunkId('notes-chunk-x', 0))).toBe('notes-chunk-x');
    expect(documentOfChunk(a)).toBe(a);
  });

  it('names the chunk that follows a chunk in its document, and none for an id without an index', () => {
    expect(followingChunkId(chunkId(a, 7))).toBe(chunkId(a, 8));
    expect(followingChunkId(chunkId('notes-chunk-x', 0))).toBe(chunkId('notes-chunk-x', 1));
    expect(followingChunkId(a)).toBeNull();
    expect(followingChunkId('notes-chunk-x')).toBeNull();
  });

  it('tells whether a chunk is of a document without reading its id', () => {
    expect(isChunkOf(chunkId(a, 0), a)).toBe(true);
    expect(isChunkOf(chunkId(a, 12), b)).toBe(false);
    // A document whose id is a prefix of another's owns none of the other's chunks.
    expect(isChunkOf(chunkId(`${a}x`, 1), a)).toBe(false);
    expect(isChunkOf(chunkId('notes-chunk-x', 3), 'notes')).toBe(false);
    expect(isChunkOf(a, a)).toBe(true);
  });

  it('lists the documents of chunks once each, in order of first mention, grouped or not', () => {
    const chunks = [chunkId(a, 0), chunkId(a, 1), chunkId(b, 0), chunkId(a, 2), chunkId(b, 5)];
    expect(documentsOfChunks(chunks)).toEqual([a, b]);
    expect(documentsOfChunks([])).toEqual([]);
    expect(documentsOfChunks(Array.from({ length: 70_000 }, (_, i) => chunkId(`doc-${i}`, 0)))).toHaveLength(70_000);
  });
});

describe('entity ids', () => {
  it('are one id for the composed (NFC) and decomposed (NFD) spellings of a name', () => {
    const composed = 'Café Noir';
    expect(normalizeEntityId(composed.normalize('NFD'))).toBe(normalizeEntityId(composed));
    expect(normalizeEntityId(composed)).toBe('CAFÉ_NOIR');
  });
});
