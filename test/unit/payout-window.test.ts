import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statementWindow } from '../../src/domain/books/payout-statement.ts';

/**
 * A statement's window (docs/decisions.md §22): up to the end of the day asked for, at most just after
 * now; payments once the hold is over; and along a chain it only moves forward.
 */
const now = new Date('2034-06-15T12:00:00.000Z');

test('the window ends at the end of the day asked for, or just after now if that is sooner', () => {
  assert.deepEqual(statementWindow(now, '2034-06-10', 14), {
    until: '2034-06-11T00:00:00.000Z',
    heldFrom: '2034-06-01T12:00:00.000Z',
  });
  assert.equal(statementWindow(now, '2034-06-20', 14).until, '2034-06-15T12:00:00.001Z');
  assert.equal(statementWindow(now, '2034-06-15', 0).heldFrom, now.toISOString());
});

test('after a statement: a day before its end is refused; the day it ended on is not', () => {
  const last = { currency: 'EUR', until: '2034-06-12T08:00:00.000Z', heldFrom: '2034-05-29T08:00:00.000Z' };
  assert.throws(() => statementWindow(now, '2034-06-11', 14, last), {
    code: 'INVALID_INPUT',
    message: /EUR statement covers entries up to 2034-06-12T08:00:00.000Z; give 2034-06-12 or a later day/,
  });
  assert.equal(statementWindow(now, '2034-06-12', 14, last).until, '2034-06-13T00:00:00.000Z');
});

test('a clock that stepped back or a longer hold is held at the last statement’s lines', () => {
  const last = { currency: 'USD', until: '2034-06-15T12:00:05.000Z', heldFrom: '2034-06-05T12:00:00.000Z' };
  // Five seconds earlier than the last statement's "now", and a hold of 14 days where it was 10.
  assert.deepEqual(statementWindow(now, '2034-06-15', 14, last), {
    until: '2034-06-15T12:00:05.000Z',
    heldFrom: '2034-06-05T12:00:00.000Z',
  });
});
