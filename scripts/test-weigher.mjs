// A node:test reporter for `node scripts/test.mjs --weigh`: each file's time, the sum of its top-level
// tests' durations in seconds, as `seconds<TAB>file` lines (what test.mjs writes to test-weights.json).
import { relative } from 'node:path';

export default async function* weigher(source) {
  const seconds = new Map();
  for await (const { type, data } of source) {
    if ((type !== 'test:pass' && type !== 'test:fail') || data.nesting !== 0 || !data.file) continue;
    const file = relative(process.cwd(), data.file);
    seconds.set(file, (seconds.get(file) ?? 0) + (data.details?.duration_ms ?? 0) / 1000);
  }
  for (const [file, s] of seconds) yield `${s.toFixed(1)}\t${file}\n`;
}
