import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';
import { AREAS, refusal } from '../../support/area-imports.mjs';

/**
 * No circle in the imports of src (docs/architecture.md): a module's imports, type-only ones included,
 * never lead back to it. ESLint keeps the layers apart; this keeps the files of one layer from
 * knotting into each other (the ports once imported the records of the modules that import them).
 */
const ROOT = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|mts)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Each file's relative imports and re-exports, static and type-only, as absolute paths. */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, false);
      const targets = importedFiles
        .filter((i) => i.fileName.startsWith('.'))
        .map((i) => resolve(dirname(file), i.fileName));
      return [file, targets.filter((t) => known.has(t))];
    }),
  );
}

/** The strongly connected groups of more than one file, and files importing themselves (Tarjan). */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || graph.get(v)?.includes(v)) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('imports', () => {
  test('the finder sees a circle of type-only imports, and a re-export', () => {
    const graph = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
      ['/d.ts', ['/a.ts']],
    ]);
    assert.deepEqual(cycles(graph), [['/a.ts', '/b.ts', '/c.ts']]);
    assert.deepEqual(
      cycles(
        new Map([
          ['/a.ts', ['/b.ts']],
          ['/b.ts', []],
        ]),
      ),
      [],
    );
    const parsed = ts.preProcessFile(
      "import type { X } from './x.ts';\nexport type * from './y.ts';\nexport { z } from './z.ts';",
      true,
      false,
    );
    assert.deepEqual(
      parsed.importedFiles.map((i) => i.fileName),
      ['./x.ts', './y.ts', './z.ts'],
    );
  });

  test('src has no circle', () => {
    const files = sources(join(ROOT, 'src'));
    assert.ok(files.length > 100, `${files.length} files read`);
    const found = cycles(importGraph(files)).map((group) => group.map((f) => relative(ROOT, f)).join(' -> '));
    assert.deepEqual(found, [], `import circles:\n${found.join('\n')}`);
  });
});

describe("the domain's areas (support/area-imports.mjs)", () => {
  test('the table of allowed imports has no circle, and names only areas that exist', () => {
    const graph = new Map(Object.entries(AREAS).map(([area, may]) => [area, [...may]]));
    assert.deepEqual(cycles(graph), []);
    const folders = readdirSync(join(ROOT, 'src/domain'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== 'ports')
      .map((e) => e.name)
      .sort();
    assert.deepEqual(Object.keys(AREAS).sort(), folders);
    for (const may of Object.values(AREAS)) for (const area of may) assert.ok(area in AREAS, area);
  });

  test('the rule refuses what the table does not allow, and deep imports from outside', () => {
    const allowed = refusal('src/domain/checkout/purchases.ts', 'src/domain/billing/index.ts', false);
    assert.equal(allowed, undefined);
    assert.match(refusal('src/domain/billing/billing.ts', 'src/domain/checkout/index.ts', false)!, /not checkout/);
    assert.match(refusal('src/domain/checkout/purchases.ts', 'src/domain/billing/billing.ts', false)!, /index\.ts/);
    assert.match(refusal('src/http/app.ts', 'src/domain/billing/billing.ts', true)!, /index\.ts/);
    assert.equal(refusal('src/http/app.ts', 'src/domain/billing/index.ts', false), undefined);
    assert.match(refusal('src/domain/clock.ts', 'src/domain/money/index.ts', false)!, /kernel/);
    assert.equal(refusal('src/domain/ports/attempts.ts', 'src/domain/payments/attempt-plans.ts', true), undefined);
    assert.match(refusal('src/domain/ports/attempts.ts', 'src/domain/payments/attempt-plans.ts', false)!, /type/);
    assert.equal(refusal('src/domain/billing/billing.ts', 'src/domain/billing/proration.ts', false), undefined);
    assert.equal(refusal('src/domain/billing/billing.ts', 'src/domain/errors.ts', false), undefined);
  });
});
