import { PDFDocument, StandardFonts } from 'pdf-lib';
import { chunkText } from '../../src/ingest/chunk/chunker';
import { documentTypeOf, loadDocumentFile, LoadError, SUPPORTED_EXTENSIONS } from '../../src/ingest/loaders';
import { OFF_LOOP_MIN_CHARS } from '../../src/ingest/offload/chunk';
import { WorkerCpuPool } from '../../src/ingest/offload/worker-pool';

async function pdfOf(pages: string[][]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage();
    lines.forEach((line, i) => page.drawText(line, { x: 50, y: 750 - i * 16, font, size: 11 }));
  }
  return Buffer.from(await doc.save());
}

const PAGES = [
  ['Alpha page one introduces Alice Smith.', 'She works at Acme Corporation.'],
  ['Beta page two describes the Graph Engine.', 'It stores entities and relationships.'],
  ['Gamma page three closes with Berlin.', 'The end of the report.'],
];

const cpu = new WorkerCpuPool();
afterAll(() => cpu.close());

describe('loadDocumentFile: PDF', () => {
  let report: Awaited<ReturnType<typeof loadDocumentFile>>;
  beforeAll(async () => {
    report = await loadDocumentFile(cpu, 'report.pdf', await pdfOf(PAGES));
  });

  test('extracts the text of every page and records which characters belong to which page', () => {
    expect(report.document_type).toBe('pdf');
    expect(report.page_count).toBe(3);
    expect(report.pages).toHaveLength(3);
    report.pages!.forEach((range, i) => {
      expect(range.page).toBe(i + 1);
      const pageText = report.text.slice(range.char_start, range.char_end);
      expect(pageText).toContain(PAGES[i][0]);
      expect(pageText).toContain(PAGES[i][1]);
      for (const other of PAGES.filter((_, j) => j !== i)) expect(pageText).not.toContain(other[0]);
    });
  });

  test('gives each chunk the pages its text comes from', () => {
    const chunks = chunkText(report.text, { chunkTokens: 12, overlapTokens: 0, pages: report.pages });
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) {
      PAGES.forEach((lines, i) => {
        if (lines.some((line) => chunk.content.includes(line))) {
          expect(chunk.page_start).toBeLessThanOrEqual(i + 1);
          expect(chunk.page_end).toBeGreaterThanOrEqual(i + 1);
        }
      });
      const single = report.pages!.find((p) => p.char_start <= chunk.char_start && chunk.char_end <= p.char_end);
      if (single) expect([chunk.page_start, chunk.page_end]).toEqual([single.page, single.page]);
    }
    expect(chunks[0].page_start).toBe(1);
    expect(chunks[chunks.length - 1].page_end).toBe(3);
    expect(chunks.some((c) => c.page_start === 1 && c.page_end === 2)).toBe(true);
  });

  test('refuses a corrupt PDF with a LoadError', async () => {
    const valid = await pdfOf(PAGES);
    await expect(loadDocumentFile(cpu, 'broken.pdf', Buffer.from('%PDF-1.7\nthis is not a pdf body'))).rejects.toThrow(LoadError);
    await expect(loadDocumentFile(cpu, 'cut.pdf', valid.subarray(0, 200))).rejects.toThrow(LoadError);
  });

  test('refuses a file named .pdf that is not a PDF', async () => {
    await expect(loadDocumentFile(cpu, 'fake.pdf', Buffer.from('hello world'))).rejects.toThrow('not a PDF file');
  });

  test('refuses a PDF without extractable text', async () => {
    await expect(loadDocumentFile(cpu, 'blank.pdf', await pdfOf([[]]))).rejects.toThrow('no extractable text');
  });
});

describe('loadDocumentFile: text, markdown and JSON', () => {
  test('reads UTF-8 text and markdown as they are', async () => {
    const text = 'Grüße aus Köln 😀\r\nSecond line';
    await expect(loadDocumentFile(cpu, 'a.txt', Buffer.from(text))).resolves.toEqual({
      text,
      document_type: 'text',
      page_count: null,
      pages: null,
    });
    const md = await loadDocumentFile(cpu, 'README.MD', Buffer.from('# Title\n\nBody'));
    expect(md.document_type).toBe('markdown');
    expect(md.text).toBe('# Title\n\nBody');
  });

  test('pretty-prints JSON with two-space indentation', async () => {
    const loaded = await loadDocumentFile(cpu, 'data.json', Buffer.from('{"name":"Alice","tags":["a","b"]}'));
    expect(loaded.document_type).toBe('json');
    expect(loaded.text).toBe('{\n  "name": "Alice",\n  "tags": [\n    "a",\n    "b"\n  ]\n}');
  });

  test('refuses invalid JSON with a LoadError naming the problem', async () => {
    await expect(loadDocumentFile(cpu, 'data.json', Buffer.from('{"name": '))).rejects.toThrow(/not valid JSON/);
  });

  test('refuses empty and whitespace-only files', async () => {
    for (const [name, body] of [
      ['empty.txt', ''],
      ['blank.md', '  \n\t\n'],
      ['blank.json', '   '],
    ]) {
      await expect(loadDocumentFile(cpu, name, Buffer.from(body))).rejects.toThrow('file is empty');
    }
  });

  test('refuses binary content and invalid UTF-8', async () => {
    await expect(loadDocumentFile(cpu, 'bin.txt', Buffer.from([0x41, 0x00, 0x42]))).rejects.toThrow(/binary data/);
    await expect(loadDocumentFile(cpu, 'latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]))).rejects.toThrow(/not valid UTF-8/);
  });

  test('refuses unsupported extensions', async () => {
    await expect(loadDocumentFile(cpu, 'notes.docx', Buffer.from('x'))).rejects.toThrow(/unsupported file type '.docx'/);
  });
});

describe('supported types', () => {
  test('maps extensions to document types, MIME types and the documented size limits', () => {
    expect(documentTypeOf('a.PDF')).toBe('pdf');
    expect(documentTypeOf('a.txt')).toBe('text');
    expect(documentTypeOf('a.md')).toBe('markdown');
    expect(documentTypeOf('a.json')).toBe('json');
    expect(documentTypeOf('a.csv')).toBeNull();
    expect(SUPPORTED_EXTENSIONS['.pdf']).toMatchObject({ mime_type: 'application/pdf', max_bytes: 50 * 1024 * 1024 });
    expect(SUPPORTED_EXTENSIONS['.txt']).toMatchObject({ mime_type: 'text/plain', max_bytes: 10 * 1024 * 1024 });
    expect(SUPPORTED_EXTENSIONS['.md']).toMatchObject({ mime_type: 'text/markdown', max_bytes: 10 * 1024 * 1024 });
    expect(SUPPORTED_EXTENSIONS['.json']).toMatchObject({ mime_type: 'application/json', max_bytes: 10 * 1024 * 1024 });
  });
});

describe('loadDocumentFile with files decoded in a worker thread', () => {
  const records = Array.from({ length: 4000 }, (_, i) => ({ id: i, name: `Person ${i}`, city: ['Berlin', 'Paris', 'Kraków'][i % 3] }));

  it('gives the same text as decoding on the event loop', async () => {
    const json = Buffer.from(JSON.stringify(records));
    expect(json.length).toBeGreaterThan(OFF_LOOP_MIN_CHARS);
    expect((await loadDocumentFile(cpu, 'people.json', json)).text).toBe(JSON.stringify(records, null, 2));
    const text = Buffer.from(records.map((r) => `${r.name} lives in ${r.city}.`).join('\n'));
    expect((await loadDocumentFile(cpu, 'people.txt', text)).text).toBe(text.toString('utf8'));
  });

  it('refuses a large invalid file with the same load errors', async () => {
    const broken = Buffer.from(`${JSON.stringify(records)}}`);
    await expect(loadDocumentFile(cpu, 'people.json', broken)).rejects.toThrow(LoadError);
    await expect(loadDocumentFile(cpu, 'people.json', broken)).rejects.toThrow(/not valid JSON/);
    const binary = Buffer.alloc(OFF_LOOP_MIN_CHARS * 2, 0x41);
    binary[OFF_LOOP_MIN_CHARS] = 0;
    await expect(loadDocumentFile(cpu, 'blob.txt', binary)).rejects.toThrow(/binary data/);
    const latin1 = Buffer.alloc(OFF_LOOP_MIN_CHARS * 2, 0x41);
    latin1[10] = 0xe9;
    await expect(loadDocumentFile(cpu, 'latin1.txt', latin1)).rejects.toThrow(/not valid UTF-8/);
  });
});
