import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failedRun } from '../../src/worker.ts';

// An operator reading the log must know which loop failed: a webhook outage is not a billing one.
test('a failed run names its loop', () => {
  assert.deepEqual((['billing', 'emails', 'webhooks'] as const).map(failedRun), [
    'billing run failed',
    'e-mail run failed',
    'webhook run failed',
  ]);
});
