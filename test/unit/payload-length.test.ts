import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { requirePayload } from '../../src/domain/validation.ts';

describe('payload length', () => {
  test('characters are Unicode code points: 4999 emoji (9998 UTF-16 units) are accepted, 5000 refused with the count in characters', () => {
    const longest = '😀'.repeat(4999);
    assert.equal(longest.length, 9998);
    assert.equal(requirePayload(longest), longest);
    assert.throws(
      () => requirePayload('😀'.repeat(5000)),
      (err: { code?: string; message?: string }) =>
        err.code === 'PAYLOAD_TOO_LONG' && err.message === 'payload has 5000 characters; it must have fewer than 5000.',
    );
  });

  test('plain text keeps its limit: 4999 characters accepted, 5000 refused', () => {
    assert.equal(requirePayload('x'.repeat(4999)), 'x'.repeat(4999));
    assert.throws(() => requirePayload('x'.repeat(5000)), {
      code: 'PAYLOAD_TOO_LONG',
      message: 'payload has 5000 characters; it must have fewer than 5000.',
    });
    assert.throws(() => requirePayload('😀'.repeat(2500) + 'x'.repeat(2500)), { code: 'PAYLOAD_TOO_LONG' });
  });
});
