import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { OpenTill } from '../../packages/client/src/index.ts';
import { GENERATED_TYPES, generatedTypes } from '../../scripts/generate-client-types.ts';

/**
 * The SDK's wire types are generated from the OpenAPI document the app builds from its route schemas
 * (scripts/generate-client-types.ts): when a route's schema changes, the committed file is stale until
 * `npm run sdk:types` writes it again, and this test says so.
 */
test('the SDK types committed in packages/client/src/generated/openapi.ts are what npm run sdk:types writes now', async () => {
  const committed = readFileSync(GENERATED_TYPES, 'utf8');
  const now = await generatedTypes();
  if (committed === now) return;
  const a = committed.split('\n');
  const b = now.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  assert.fail(
    `packages/client/src/generated/openapi.ts is stale (first difference at line ${line + 1}):\n` +
      `  committed: ${a[line] ?? '(end of file)'}\n  now:       ${b[line] ?? '(end of file)'}\n` +
      'Run npm run sdk:types and commit the file (and adapt packages/client/src if a call changed).',
  );
});

/** Operations the SDK offers under other names: the spec's two operations on one path. */
const SPLIT: Record<string, string[]> = { updateTransaction: ['assignEmail', 'updatePayload'] };

test("every operation of the OpenAPI document is a method of the SDK's client, named after its operationId", () => {
  const text = readFileSync(GENERATED_TYPES, 'utf8');
  const operations = [...new Set([...text.matchAll(/operations\['(\w+)'\]/g)].map((m) => m[1]!))].sort();
  assert.ok(operations.length >= 20, `operations: ${operations.join(' ')}`);
  const methods = operations.flatMap((id) => SPLIT[id] ?? [id]);
  const missing = methods.filter((name) => typeof (OpenTill.prototype as any)[name] !== 'function');
  assert.deepEqual(missing, [], 'packages/client/src/client.ts has a method for each');
});
