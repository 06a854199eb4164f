/** Prints rows as a Markdown table, columns padded to their widest cell. */
export function table(rows: Array<Record<string, string | number>>): void {
  const keys = Object.keys(rows[0]);
  const width = keys.map((k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(width[i])).join(' | ')} |`;
  console.log(line(keys));
  console.log(line(width.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(keys.map((k) => String(r[k]))));
}
