/**
 * The `handbook` corpus of the side-by-side bench: 24 sections of The Debian Administrator's Handbook (Raphaël
 * Hertzog and Roland Mas; GPL-2+ or CC-BY-SA-3.0), from Debian's `debian-handbook` package at a pinned version,
 * one document per section, across its chapters: the project, installation, packaging, APT, configuration,
 * services, network services, advanced administration, virtualisation and security.
 *
 * The package is fetched with `apt-get download` (the pinned version, or a clear error if the configured sources
 * no longer offer it), its English HTML is read with htmlparser2, and the text is cached under build/corpus/, so
 * that later runs read the cache. The questions on it are in ./handbook-questions.json.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Parser } from 'htmlparser2';

export const HANDBOOK_PACKAGE = 'debian-handbook';
export const HANDBOOK_VERSION = '11.20220922';
const HTML_DIR = 'usr/share/doc/debian-handbook/html/en-US';

/** The sections taken, by file name (without .html), in the book's order. */
export const HANDBOOK_SECTIONS = [
  'sect.foundation-documents',
  'sect.debian-internals',
  'sect.release-lifecycle',
  'sect.installation-steps',
  'sect.package-meta-information',
  'sect.manipulating-packages-with-dpkg',
  'apt',
  'sect.apt-get',
  'sect.network-config',
  'sect.config-bootloader',
  'sect.kernel-compilation',
  'unix-services',
  'sect.remote-login',
  'sect.x509-cert',
  'sect.virtual-private-network',
  'network-services',
  'sect.http-web-server',
  'sect.ldap-directory',
  'advanced-administration',
  'sect.virtualization',
  'sect.automated-installation',
  'sect.firewall-packet-filtering',
  'sect.supervision',
  'sect.selinux',
];

export interface HandbookSection {
  /** The section's file name without .html. */
  id: string;
  title: string;
  content: string;
}

/** Elements whose text is not the section's: navigation, tables of contents, index anchors. */
const SKIPPED_CLASSES = new Set(['toc', 'docnav', 'indexterm']);
const SKIPPED_IDS = new Set(['banner', 'title']);
const BLOCKS = new Set(['div', 'p', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'dt', 'dd', 'tr', 'table', 'blockquote', 'br']);

/**
 * The text of one page of the handbook's HTML: its title and body, without navigation or tables of contents,
 * paragraphs separated by a blank line, whitespace folded except in program listings.
 */
export function sectionText(html: string): { title: string; content: string } {
  const blocks: string[] = [];
  let current = '';
  let title = '';
  let inTitle = false;
  let inHead = false;
  let pre = 0;
  /** Depth of open elements inside a skipped one (0: not skipping). */
  let skipping = 0;
  const flush = () => {
    const text = pre > 0 ? current.replace(/^\n+|\s+$/g, '') : current.replace(/\s+/g, ' ').trim();
    if (text) blocks.push(text);
    current = '';
  };
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (skipping > 0) {
          skipping += 1;
          return;
        }
        if (name === 'head') inHead = true;
        if (name === 'title') inTitle = true;
        const classes = (attributes.class ?? '').split(/\s+/);
        if (classes.some((c) => SKIPPED_CLASSES.has(c)) || SKIPPED_IDS.has(attributes.id ?? '')) {
          skipping = 1;
          return;
        }
        if (BLOCKS.has(name)) flush();
        if (name === 'pre') pre += 1;
      },
      ontext(text) {
        if (inTitle) title += text;
        else if (skipping === 0 && !inHead) current += text;
      },
      onclosetag(name) {
        if (skipping > 0) {
          skipping -= 1;
          return;
        }
        if (name === 'title') inTitle = false;
        if (name === 'head') inHead = false;
        if (BLOCKS.has(name)) flush();
        if (name === 'pre') pre -= 1;
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return { title: title.replace(/\s+/g, ' ').trim(), content: blocks.join('\n\n') };
}

/** Downloads the pinned package into `dir` and unpacks it there; throws if that version cannot be had. */
function fetchPackage(dir: string): string {
  const spec = `${HANDBOOK_PACKAGE}=${HANDBOOK_VERSION}`;
  try {
    execFileSync('apt-get', ['download', spec], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(
      `cannot fetch ${spec} with apt-get download (${stderr || String(err)}): the handbook corpus is pinned to that ` +
        `version; run apt-get update, or add a Debian source that still has it`,
    );
  }
  const deb = fs.readdirSync(dir).find((f) => f.startsWith(`${HANDBOOK_PACKAGE}_`) && f.endsWith('.deb'));
  if (!deb) throw new Error(`apt-get download ${spec} left no .deb in ${dir}`);
  const root = path.join(dir, 'root');
  execFileSync('dpkg-deb', ['-x', path.join(dir, deb), root]);
  return path.join(root, HTML_DIR);
}

/** The corpus's sections, from the cache under `buildDir` or else fetched and cached there. */
export function handbookSections(buildDir: string): HandbookSection[] {
  const cache = path.join(buildDir, 'corpus', `${HANDBOOK_PACKAGE}-${HANDBOOK_VERSION}.json`);
  if (fs.existsSync(cache)) return JSON.parse(fs.readFileSync(cache, 'utf8')) as HandbookSection[];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kgrag-handbook-'));
  try {
    const html = fetchPackage(dir);
    const sections = HANDBOOK_SECTIONS.map((id) => ({ id, ...sectionText(fs.readFileSync(path.join(html, `${id}.html`), 'utf8')) }));
    fs.mkdirSync(path.dirname(cache), { recursive: true });
    fs.writeFileSync(cache, JSON.stringify(sections));
    return sections;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
