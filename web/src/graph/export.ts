import type Sigma from 'sigma';
import type { EdgeAttributes, ExplorerGraph, NodeAttributes } from './model';

/** Offers `blob` as a download named `name`. */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The view as drawn, as a PNG: sigma's layers (edges, nodes, labels, highlights) composed over the page's background.
 * The WebGL layers are read in the same task as a fresh render, before their buffers are cleared.
 */
export function viewToPng(sigma: Sigma<NodeAttributes, EdgeAttributes>, background: string): Promise<Blob> {
  sigma.refresh();
  const layers = sigma.getCanvases();
  const first = Object.values(layers)[0];
  const out = document.createElement('canvas');
  out.width = first.width;
  out.height = first.height;
  const context = out.getContext('2d')!;
  context.fillStyle = background;
  context.fillRect(0, 0, out.width, out.height);
  for (const name of ['edges', 'nodes', 'labels', 'hovers', 'hoverNodes']) {
    const layer = layers[name];
    if (layer) context.drawImage(layer, 0, 0, out.width, out.height);
  }
  return new Promise((resolve, reject) => out.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('no image'))), 'image/png'));
}

type Shown = (node: string) => boolean;

const xml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/** The nodes shown and the relationships between them, as GraphML (with positions, for tools that keep them). */
export function toGraphMl(graph: ExplorerGraph, shown: Shown): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
    '  <key id="label" for="node" attr.name="label" attr.type="string"/>',
    '  <key id="type" for="node" attr.name="entity_type" attr.type="string"/>',
    '  <key id="description" for="node" attr.name="description" attr.type="string"/>',
    '  <key id="degree" for="node" attr.name="degree" attr.type="int"/>',
    '  <key id="x" for="node" attr.name="x" attr.type="double"/>',
    '  <key id="y" for="node" attr.name="y" attr.type="double"/>',
    '  <key id="relation" for="edge" attr.name="relation_type" attr.type="string"/>',
    '  <key id="weight" for="edge" attr.name="weight" attr.type="double"/>',
    '  <key id="edge_description" for="edge" attr.name="description" attr.type="string"/>',
    '  <graph id="G" edgedefault="undirected">',
  ];
  const data = (key: string, value: string | number) => `<data key="${key}">${xml(String(value))}</data>`;
  graph.forEachNode((node, a) => {
    if (!shown(node)) return;
    const fields = [data('label', a.label), data('type', a.entityType), data('description', a.description), data('degree', a.degree)];
    fields.push(data('x', a.x), data('y', a.y));
    lines.push(`    <node id="${xml(node)}">${fields.join('')}</node>`);
  });
  graph.forEachEdge((edge, a, source, target) => {
    if (!shown(source) || !shown(target)) return;
    const fields = [data('relation', a.label), data('weight', a.weight), data('edge_description', a.description)];
    lines.push(`    <edge id="${xml(edge)}" source="${xml(source)}" target="${xml(target)}">${fields.join('')}</edge>`);
  });
  lines.push('  </graph>', '</graphml>', '');
  return lines.join('\n');
}

const cell = (value: string | number) => {
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};
const row = (values: Array<string | number>) => values.map(cell).join(',');

/** The nodes shown, one CSV row each (RFC 4180). */
export function nodesCsv(graph: ExplorerGraph, shown: Shown): string {
  const rows = [row(['id', 'label', 'entity_type', 'degree', 'description', 'x', 'y'])];
  graph.forEachNode((node, a) => {
    if (shown(node)) rows.push(row([node, a.label, a.entityType, a.degree, a.description, a.x, a.y]));
  });
  return rows.join('\r\n') + '\r\n';
}

/** The relationships between the nodes shown, one CSV row each. */
export function edgesCsv(graph: ExplorerGraph, shown: Shown): string {
  const rows = [row(['id', 'source', 'target', 'relation_type', 'weight', 'description', 'keywords'])];
  graph.forEachEdge((edge, a, source, target) => {
    if (shown(source) && shown(target)) rows.push(row([edge, source, target, a.label, a.weight, a.description, a.keywords.join('; ')]));
  });
  return rows.join('\r\n') + '\r\n';
}
