/**
 * Large inputs made for the benches: prose naming a few people, organisations and places over and over, and PDFs
 * of that prose (pdf-lib) padded with raw image data to the size wanted, as large PDFs are.
 */
import {
  concatTransformationMatrix,
  drawObject,
  PDFDocument,
  type PDFPage,
  popGraphicsState,
  pushGraphicsState,
  StandardFonts,
} from 'pdf-lib';

const NAMES = ['Alice Johnson', 'Bob Smith', 'Carol White', 'Dana Lee', 'Evan Brown', 'Fiona Green'];
const ORGS = ['Acme Corporation', 'Globex Corporation', 'Umbrella Group', 'Initech', 'Stark Industries'];
const CITIES = ['Berlin', 'Paris', 'Madrid', 'Lisbon', 'Vienna'];

function sentence(i: number): string {
  return `${NAMES[i % NAMES.length]} of ${ORGS[(i * 7) % ORGS.length]} met ${NAMES[(i * 3 + 1) % NAMES.length]} in ${CITIES[(i * 5) % CITIES.length]} about project ${i % 997}.`;
}

/** About `bytes` of prose, a paragraph every eight sentences. */
export function proseText(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const s = sentence(i) + (i % 8 === 7 ? '\n\n' : ' ');
    parts.push(s);
    size += s.length;
  }
  return parts.join('');
}

/** Deterministic noise (xorshift32): incompressible image data. */
function noise(bytes: number, seed: number): Uint8Array {
  const out = new Uint8Array(bytes);
  const words = new Uint32Array(out.buffer, 0, bytes >> 2);
  let x = seed | 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return out;
}

/** A raw 8-bit grey image of `side` x `side` pixels drawn on the page. */
function drawNoiseImage(doc: PDFDocument, page: PDFPage, side: number, seed: number): void {
  const stream = doc.context.stream(noise(side * side, seed), {
    Type: 'XObject',
    Subtype: 'Image',
    Width: side,
    Height: side,
    ColorSpace: 'DeviceGray',
    BitsPerComponent: 8,
  });
  const name = page.node.newXObject('Im', doc.context.register(stream));
  page.pushOperators(pushGraphicsState(), concatTransformationMatrix(300, 0, 0, 300, 156, 40), drawObject(name), popGraphicsState());
}

const LINES_PER_PAGE = 45;
/** Characters of text pdf.js extracts from one page of 45 sentences (measured). */
const TEXT_PER_PAGE = 3500;
const IMAGE_SIDE = 1024;

/** Pages that carry about `textBytes` of extracted text. */
export function pagesForText(textBytes: number): number {
  return Math.max(1, Math.round(textBytes / TEXT_PER_PAGE));
}

/** A PDF of about `bytes` with `pages` pages of 45 sentences each; images fill the rest of the size. */
export async function largePdf(bytes: number, pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const all: PDFPage[] = [];
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([612, 792]);
    for (let l = 0; l < LINES_PER_PAGE; l++) page.drawText(sentence(p * LINES_PER_PAGE + l), { x: 40, y: 750 - l * 16, size: 9, font });
    all.push(page);
  }
  // Text pages cost about 2.4 KB each (compressed content streams); images fill the rest of the size.
  const images = Math.max(0, Math.floor((bytes - pages * 2400) / (IMAGE_SIDE * IMAGE_SIDE)));
  for (let i = 0; i < images; i++) drawNoiseImage(doc, all[Math.floor(((i + 0.5) * pages) / images)], IMAGE_SIDE, i + 1);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}
