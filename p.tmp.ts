import { MockLlm } from './src/llm/mock';
const words = ['Alice Smith', 'works', 'with', 'Bob Jones', 'at', 'Acme Corp', 'in', 'Paris', 'and', 'the', 'Knowledge Graph', 'uses', 'Python', 'data', 'NASA', 'model'];
let s = ''; let i = 0; while (s.length < 5000) { s += words[(i * 7) % words.length] + (i % 11 === 10 ? '. ' : ' '); i++; }
(async () => {
  const llm = new MockLlm();
  const t0 = Date.now();
  for (let k = 0; k < 200; k++) await llm.complete([{ role: 'user', content: `---TEXT---\n${s}${k}` }], { task: 'extract' });
  console.log('200 extracts of', s.length, 'chars:', Date.now() - t0, 'ms');
  const t1 = Date.now();
  await llm.complete([{ role: 'user', content: 'x'.repeat(200000) + ' Aaaa'.repeat(20000) }], { task: 'extract' });
  console.log('pathological', Date.now() - t1, 'ms');
})();
