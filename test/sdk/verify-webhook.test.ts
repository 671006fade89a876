import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { describe, test } from 'node:test';
import { build } from 'esbuild';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../packages/client/src/index.ts';

/**
 * The SDK's verifyWebhook against the Standard Webhooks reference library (the npm package
 * standardwebhooks, which no one here wrote): what it signs, ours accepts; what it refuses (another
 * secret, a changed body, an old or future timestamp), ours refuses too. Then the same checks with the
 * SDK bundled and run where only Web Crypto exists, as on an edge runtime: no node:crypto, no Buffer.
 */
const secret = `whsec_${randomBytes(24).toString('base64')}`;
const otherSecret = `whsec_${randomBytes(24).toString('base64')}`;
const reference = new Webhook(secret);
const body = JSON.stringify({ type: 'transaction.new', data: { id: 'TC-TR_1', productName: 'Café ✓ 日本' } });
const nowSeconds = () => Math.floor(Date.now() / 1000);

function signed(options: { at?: number; id?: string; payload?: string; by?: Webhook } = {}) {
  const { at = nowSeconds(), id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', payload = body, by = reference } = options;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(at),
    'webhook-signature': by.sign(id, new Date(at * 1000), payload),
  };
}

type Verdict = 'accepted' | string;
const theirs = (payload: string, headers: Record<string, string>, key = secret): Verdict => {
  try {
    new Webhook(key).verify(payload, headers);
    return 'accepted';
  } catch (error) {
    return (error as Error).name;
  }
};
const ours = async (payload: string | Uint8Array, headers: Record<string, string>, key = secret): Promise<Verdict> => {
  try {
    await verifyWebhook(payload, headers, key);
    return 'accepted';
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    return error.reason;
  }
};

const CASES: Array<{
  name: string;
  payload?: string;
  headers: () => Record<string, string>;
  key?: string;
  reason: Verdict;
}> = [
  { name: 'signed by the reference library', headers: () => signed(), reason: 'accepted' },
  { name: 'another secret', headers: () => signed(), key: otherSecret, reason: 'NO_MATCHING_SIGNATURE' },
  {
    name: 'a body changed by one character',
    payload: body.replace('TC-TR_1', 'TC-TR_2'),
    headers: () => signed(),
    reason: 'NO_MATCHING_SIGNATURE',
  },
  {
    name: 'another webhook-id',
    headers: () => ({ ...signed(), 'webhook-id': 'msg_other' }),
    reason: 'NO_MATCHING_SIGNATURE',
  },
  {
    name: 'a timestamp six minutes old',
    headers: () => signed({ at: nowSeconds() - 360 }),
    reason: 'TIMESTAMP_TOO_OLD',
  },
  {
    name: 'a timestamp six minutes ahead',
    headers: () => signed({ at: nowSeconds() + 360 }),
    reason: 'TIMESTAMP_TOO_NEW',
  },
  {
    name: 'the timestamp moved after signing',
    headers: () => ({ ...signed(), 'webhook-timestamp': String(nowSeconds() - 1) }),
    reason: 'NO_MATCHING_SIGNATURE',
  },
  {
    name: 'several signatures, the matching one last (a rotated secret)',
    headers: () => {
      const old = signed({ by: new Webhook(otherSecret) });
      return { ...old, 'webhook-signature': `v2,abc ${old['webhook-signature']} ${signed()['webhook-signature']}` };
    },
    reason: 'accepted',
  },
  {
    name: 'a signature under another version tag',
    headers: () => ({ ...signed(), 'webhook-signature': signed()['webhook-signature'].replace('v1,', 'v2,') }),
    reason: 'NO_MATCHING_SIGNATURE',
  },
  {
    name: 'no signature header',
    headers: () => {
      const { 'webhook-signature': _, ...rest } = signed();
      return rest;
    },
    reason: 'MISSING_HEADERS',
  },
];

describe('verifyWebhook agrees with the standardwebhooks package', () => {
  for (const c of CASES) {
    test(`${c.name}: ${c.reason === 'accepted' ? 'accepted' : `refused (${c.reason})`} by both`, async () => {
      const headers = c.headers();
      const payload = c.payload ?? body;
      const verdict = theirs(payload, headers, c.key);
      assert.equal(verdict === 'accepted', c.reason === 'accepted', `standardwebhooks: ${verdict}`);
      assert.equal(await ours(payload, headers, c.key), c.reason);
    });
  }

  test('the body as bytes, with headers as Headers or as Node spells them, returns the parsed event', async () => {
    const headers = signed();
    const bytes = new TextEncoder().encode(body);
    assert.deepEqual(await verifyWebhook(bytes, new Headers(headers), secret), JSON.parse(body));
    const capitalised = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    assert.deepEqual(await verifyWebhook(bytes.buffer, capitalised, secret), JSON.parse(body));
    const changed = Uint8Array.from(bytes);
    changed[changed.length - 5]! ^= 1;
    assert.equal(await ours(changed, headers), 'NO_MATCHING_SIGNATURE');
  });

  test('the secret is the base64 after whsec_: its text as the key verifies nothing, and the tolerance is an option', async () => {
    const raw = secret.slice('whsec_'.length);
    assert.equal(await ours(body, signed(), raw), 'accepted', 'without the prefix: the same key');
    const textKey = `whsec_${Buffer.from(secret).toString('base64')}`;
    assert.equal(await ours(body, signed(), textKey), 'NO_MATCHING_SIGNATURE');
    assert.equal(await ours(body, signed(), 'whsec_'), 'INVALID_SECRET');
    const old = signed({ at: nowSeconds() - 3600 });
    await assert.doesNotReject(verifyWebhook(body, old, secret, { toleranceSeconds: 7200 }));
    await assert.rejects(verifyWebhook(body, signed(), secret, { now: Date.now() + 301_000 }), /too old/);
  });
});

describe('verifyWebhook where only Web Crypto exists (an edge runtime)', () => {
  test('the SDK bundles without a single node: import and verifies inside a context with no node:crypto, Buffer or process', async () => {
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL('../../packages/client/src/index.ts', import.meta.url))],
      bundle: true,
      write: false,
      platform: 'neutral',
      format: 'iife',
      globalName: 'OpenTillClient',
      metafile: true,
      logLevel: 'silent',
    });
    const imports = Object.values(bundle.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
    assert.deepEqual(
      imports.filter((path) => path.startsWith('node:') || !path.includes('packages/client/src')),
      [],
    );
    const edge = vm.createContext({ crypto: globalThis.crypto, TextEncoder, TextDecoder, atob });
    vm.runInContext(bundle.outputFiles[0]!.text, edge);
    assert.equal(
      vm.runInContext('typeof process + typeof Buffer + typeof require', edge),
      'undefinedundefinedundefined',
    );
    const verify = (payload: string, headers: Record<string, string>, key: string) =>
      (vm.runInContext('OpenTillClient.verifyWebhook', edge) as typeof verifyWebhook)(payload, headers, key).then(
        (event) => (event as { type: string }).type,
        (error: Error & { reason: string }) => error.reason,
      );
    assert.equal(await verify(body, signed(), secret), 'transaction.new');
    assert.equal(await verify(body, signed(), otherSecret), 'NO_MATCHING_SIGNATURE');
    assert.equal(await verify(`${body} `, signed(), secret), 'NO_MATCHING_SIGNATURE');
    assert.equal(await verify(body, signed({ at: nowSeconds() - 400 }), secret), 'TIMESTAMP_TOO_OLD');
  });
});
