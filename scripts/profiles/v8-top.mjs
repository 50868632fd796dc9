// Prints a V8 .cpuprofile (node --cpu-prof) by self time per function, top N, and the
// inclusive share of the functions whose name matches PATTERN:
//   node scripts/profiles/v8-top.mjs FILE.cpuprofile [N] [PATTERN]
import { readFileSync } from 'node:fs';
const [file, n = '25', pat] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map(x => [x.id, x]));
const self = new Map(); let total = 0;
const parent = new Map();
for (const x of p.nodes) for (const c of x.children || []) parent.set(c, x.id);
const hits = new Map();
for (let i = 0; i < p.samples.length; i++) { const d = p.timeDeltas[i] || 0; hits.set(p.samples[i], (hits.get(p.samples[i]) || 0) + d); total += d; }
const name = x => `${x.callFrame.functionName || '(anon)'} ${x.callFrame.url.replace(/.*node_modules\//, '').replace(/^file:\/\/.*\//, '')}:${x.callFrame.lineNumber + 1}`;
for (const [id, d] of hits) { const k = name(byId.get(id)); self.set(k, (self.get(k) || 0) + d); }
const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, +n);
console.log(`total sampled ${(total / 1e6).toFixed(2)} s`);
for (const [k, d] of top) console.log(`${(100 * d / total).toFixed(1).padStart(5)}%  ${k}`);
if (pat) { // inclusive: samples with a frame matching pat on their stack
  const re = new RegExp(pat); const inc = new Map();
  for (const [id, d] of hits) { const seen = new Set(); for (let c = id; c !== undefined; c = parent.get(c)) { const k = name(byId.get(c)); if (re.test(k) && !seen.has(k)) { seen.add(k); inc.set(k, (inc.get(k) || 0) + d); } } }
  console.log('--- inclusive, matching', pat);
  for (const [k, d] of [...inc].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${(100 * d / total).toFixed(1).padStart(5)}%  ${k}`);
}
