import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fixedClock } from '../../src/domain/clock.ts';
import { sandboxGateway } from '../../src/gateways/sandbox-gateway.ts';
import { processorWebhooks, scriptedProcessor } from '../helpers/scripted-processor.ts';
import { storeKinds, useTestApp, type TestApp, type TestVendor } from '../helpers/test-app.ts';

/**
 * A chargeback deactivates a licence key as a refund does (docs/decisions.md §6a, §40): a dispute of a
 * licensed purchase, lost, leaves its key INACTIVE to check-licence and unable to activate; the
 * instances it had stay listed.
 */
for (const kind of await storeKinds()) {
  describe(`a chargeback of a licensed purchase (${kind})`, () => {
    const clock = fixedClock(new Date('2031-09-01T12:00:00.000Z'));
    const processor = scriptedProcessor(() => clock.now());
    let t: TestApp;
    let v: TestVendor;
    useTestApp(kind, { clock, gateways: { sandbox: processor.gateway } }, (app, vendor) => {
      t = app;
      v = vendor;
      processor.use(sandboxGateway(app.services.database.kysely, () => clock.now()));
    });
    const webhooks = processorWebhooks(
      () => t.url,
      () => clock.now(),
      `evt_licence_chargeback_${kind}`,
    );

    test('the key of a disputed payment is INACTIVE and cannot activate', async () => {
      const product = await v.product({
        type: 'ONETIME',
        issuesLicences: true,
        activationLimit: 3,
        prices: [{ currency: 'USD', value: 40 }],
      });
      const id = await v.buy(product.id, { email: 'disputer@example.com' });
      const key = (await t.services.store.licences.keyOf(v.scope(), id))!;
      const activated = await v.api(`/v1/licences/${key}/activate`, { body: { instanceName: 'laptop' } });
      assert.equal(activated.status, 200, activated.text);
      const attempt = (await t.services.store.chargeAttempts.latestFor(id, 'PURCHASE'))!;
      const [payment] = await t.services.store.entries.listForTransaction(id);
      clock.advance(1000);
      await webhooks.deliver({
        kind: 'dispute',
        paymentReference: payment!.externalId!,
        attemptId: attempt.id,
        disputeReference: `dp_licence_${kind}`,
        amountMinor: 4000,
        currency: 'USD',
        outcome: 'open',
      });
      assert.deepEqual(await t.services.processorEvents.runDue(), { processed: 1, failed: 0, ignored: 0, refused: 0 });
      const checked = await v.api(`/v1/check-licence/${product.id}/${key}`);
      assert.equal(checked.json.status, 'INACTIVE');
      assert.deepEqual(checked.json.activations, { used: 1, limit: 3 });
      const refused = await v.api(`/v1/licences/${key}/activate`, { body: { instanceName: 'desktop' } });
      assert.equal(refused.status, 400);
      assert.match(refused.json.message, /inactive/);
      const read = await v.api(`/v1/licences/${key}`);
      assert.equal(read.json.status, 'INACTIVE');
      assert.deepEqual(
        read.json.instances.map((i: { instanceName: string }) => i.instanceName),
        ['laptop'],
      );
    });
  });
}
