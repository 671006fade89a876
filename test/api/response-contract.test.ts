import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Type, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import {
  ChangedTransaction,
  ListedTransaction,
  TransactionWithEntries,
  UpdatedTransaction,
} from '../../src/http/schemas.ts';
import { storeKinds, useTestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * The routes that answer through JSON.stringify (`stringified`, src/http/schemas.ts) are held to their
 * response schema here, strictly: every field the schema names, of its type, and no other. The
 * serializer compiled from the schema did that by construction (it wrote only the schema's fields and
 * refused a missing one); for these routes nothing else does.
 */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, strict(value)]),
  );
  if (copy.type === 'object' && copy.properties !== undefined) copy.additionalProperties = false;
  return copy;
}

function assertAnswers(schema: TSchema, body: unknown, what: string) {
  const strictSchema = strict(schema) as TSchema;
  const errors = [...Value.Errors(strictSchema, body)].map((e) => `${e.instancePath || '/'} ${e.message}`);
  assert.deepEqual(errors, [], `${what} answers its response schema, no field more or less`);
}

for (const kind of await storeKinds()) {
  describe(`answers written by JSON.stringify match their schemas (${kind})`, () => {
    let v: TestVendor;
    useTestApp(kind, {}, (_app, vendor) => (v = vendor));

    /** One transaction of each type, one refunded, all bought by the same customer. */
    async function boughtOfEachType() {
      const email = 'contract@example.com';
      const onetime = await v.product({
        type: 'ONETIME',
        prices: [
          { currency: 'USD', value: 20 },
          { currency: 'EUR', value: 18.5 },
        ],
      });
      const subscription = await v.product({
        type: 'SUBSCRIPTION',
        chargeFrequency: 'MONTHLY',
        prices: [{ currency: 'USD', value: 9 }],
      } as never);
      const vaulted = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] });
      const ids = {
        onetime: await v.buy(onetime.id, { email, country: 'DE', payload: '{"seat":1}' }),
        refunded: await v.buy(onetime.id, { email, country: 'US', postalCode: '10001' } as never),
        subscription: await v.buy(subscription.id, { email, country: 'GB' }),
        vaulted: await v.buy(vaulted.id, { email, country: 'FR' }),
      };
      const refund = await v.api(`/v1/refund-transaction/${ids.refunded}`, { method: 'POST' });
      assert.equal(refund.status, 200, refund.text);
      return { email, ids };
    }

    test('read by id, by e-mail, the feed, update-payload and assign-email', async () => {
      const { email, ids } = await boughtOfEachType();
      for (const [name, id] of Object.entries(ids)) {
        const read = await v.api(`/v1/transaction/${id}`);
        assert.equal(read.status, 200, read.text);
        assertAnswers(TransactionWithEntries, read.json, `GET /v1/transaction/{id} of the ${name} transaction`);
      }
      const refunded = await v.api(`/v1/transaction/${ids.refunded}`);
      assert.equal(refunded.json.entries.length, 2, 'the refunded transaction reads with its payment and its refund');

      const listed = await v.api(`/v1/transactions/${encodeURIComponent(email)}`);
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.json.length, 4);
      assertAnswers(Type.Array(ListedTransaction), listed.json, 'GET /v1/transactions/{email}');

      const feed = await v.api('/v1/changed-transactions');
      assert.equal(feed.status, 200, feed.text);
      assert.equal(feed.json.length, 4);
      assertAnswers(Type.Array(ChangedTransaction), feed.json, 'GET /v1/changed-transactions');

      const payload = await v.api(`/v1/transaction/${ids.subscription}`, { body: { payload: null } });
      assert.equal(payload.status, 200, payload.text);
      assertAnswers(UpdatedTransaction, payload.json, 'POST /v1/transaction/{id} with a payload');
      const assigned = await v.api(`/v1/transaction/${ids.vaulted}`, {
        body: { assignEmail: 'Signed.Up@Example.com' },
      });
      assert.equal(assigned.status, 200, assigned.text);
      assertAnswers(UpdatedTransaction, assigned.json, 'POST /v1/transaction/{id} with an e-mail');
    });

    test('the check itself refuses a field more, a field less and a field of the wrong type', async () => {
      const { ids } = await boughtOfEachType();
      const read = (await v.api(`/v1/transaction/${ids.onetime}`)).json as Record<string, unknown>;
      const { email: _left, ...less } = read;
      for (const [what, body] of [
        ['a field more', { ...read, vendorId: 'TC-VE_leaked' }],
        ['a field less', less],
        ['a wrong type', { ...read, netPrice: '18.5' }],
        ['an entry with a field more', { ...read, entries: [{ ...(read.entries as object[])[0], hashId: 'TC-BA_x' }] }],
      ] as const) {
        assert.throws(() => assertAnswers(TransactionWithEntries, body, what), assert.AssertionError, what);
      }
    });
  });
}
