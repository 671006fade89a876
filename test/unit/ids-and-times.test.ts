import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isoString } from '../../src/domain/clock.ts';
import { newId } from '../../src/domain/ids.ts';

/** Both keep their last answer (billing stamps a batch with one instant): the kept one must never be another instant's. */
const instant = fc.integer({ min: 0, max: 4_102_444_800_000 });

test('isoString is toISOString for any sequence of instants, repeated or not', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(instant, fc.constant(1_700_000_000_000)), { maxLength: 40 }), (instants) => {
      for (const ms of instants) assert.equal(isoString(new Date(ms)), new Date(ms).toISOString());
    }),
  );
  assert.throws(
    () => isoString(new Date(Number.NaN)),
    RangeError,
    'an invalid date is refused, as toISOString refuses it',
  );
});

test("newId's time part orders IDs by their instant, whatever was asked before", () => {
  fc.assert(
    fc.property(fc.array(instant, { minLength: 2, maxLength: 40 }), (instants) => {
      const ids = instants.map((ms) => ({ ms, id: newId('entry', ms) }));
      for (const a of ids) {
        assert.match(a.id, /^TC-EN_[0-9A-HJKMNP-TV-Z]{30}$/);
        for (const b of ids)
          if (a.ms < b.ms) assert.ok(a.id.slice(0, 16) < b.id.slice(0, 16), `${a.id} sorts before ${b.id}`);
      }
      assert.equal(new Set(ids.map((x) => x.id)).size, ids.length, 'the random part tells apart IDs of one instant');
    }),
  );
});
