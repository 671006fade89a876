import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

/**
 * The API reference's document (/openapi.json, what /docs shows and the SDK's types come from): every
 * operation named by a stable operationId, every answer described, every field of every schema (errors
 * included) and every parameter with a description and an example; opentill's own operations marked.
 * And the page's server picker: production first, the sandbox first when opened from a sandbox link.
 * Not store-facing: one store.
 */
type Schema = Record<string, any>;

/** Every field below a schema without a description or an example, as `where.field`. */
function undocumented(schema: Schema | undefined, where: string, out: string[] = []): string[] {
  if (!schema || typeof schema !== 'object') return out;
  for (const [name, field] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    if (!field.description) out.push(`${where}.${name} (description)`);
    if (field.examples === undefined && field.example === undefined) out.push(`${where}.${name} (example)`);
    undocumented(field, `${where}.${name}`, out);
  }
  if (schema.items) undocumented(schema.items, `${where}[]`, out);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    (schema[key] ?? []).forEach((part: Schema, i: number) => undocumented(part, `${where}<${i}>`, out));
  return out;
}

const operationsOf = (doc: Schema) =>
  Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, path, op })),
  );

/** The servers the page's Scalar configuration offers, in order. */
const pickerOf = (page: string) => {
  const servers = /"servers": (\[[^\]]*\])/.exec(page)?.[1];
  assert.ok(servers, 'the page configures the server picker');
  return (JSON.parse(servers) as { url: string; description: string }[]).map((s) => s.url);
};

describe('the API reference', () => {
  let t: TestApp;
  let doc: Schema;
  before(async () => {
    t = await startTestApp('sqlite');
    doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Schema;
  });
  after(() => t?.close());

  test('every operation has its own operationId, and the product API is marked as opentill’s own', () => {
    const ids = operationsOf(doc).map(({ name, op }) => {
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, name);
      return op.operationId as string;
    });
    assert.equal(new Set(ids).size, ids.length, ids.join(', '));
    for (const id of ['listProducts', 'readProduct', 'createProduct', 'updateProduct', 'archiveProduct'])
      assert.ok(ids.includes(id), id);
    for (const { name, path, op } of operationsOf(doc))
      if (path.startsWith('/v1/products')) assert.equal(op['x-opentill-extension'], true, name);
  });

  test('every answer, errors included, has a real description', () => {
    const missing = operationsOf(doc).flatMap(({ name, op }) =>
      Object.entries(op.responses as Record<string, Schema>)
        .filter(([, response]) => !response.description || response.description === 'Default Response')
        .map(([status]) => `${name} ${status}`),
    );
    assert.deepEqual(missing, []);
    const notFound = doc.paths['/v1/products/{productId}'].get.responses['404'];
    assert.match(notFound.description, /NOT_FOUND/);
  });

  test('every field of every request and answer, errors included, and every parameter has a description and an example', () => {
    const missing = operationsOf(doc).flatMap(({ name, op }) => [
      ...Object.entries(op.responses as Record<string, Schema>).flatMap(([status, response]) =>
        Object.values((response.content ?? {}) as Record<string, Schema>).flatMap((c) =>
          undocumented(c.schema, `${name} ${status}`),
        ),
      ),
      ...Object.values((op.requestBody?.content ?? {}) as Record<string, Schema>).flatMap((c) =>
        undocumented(c.schema, `${name} body`),
      ),
      ...((op.parameters ?? []) as Schema[])
        .filter((p) => !p.description || (p.example === undefined && p.examples === undefined))
        .map((p) => `${name} parameter ${p.name}`),
    ]);
    assert.deepEqual(missing, []);
    const error = doc.paths['/v1/products'].post.responses['400'].content['application/json'].schema;
    assert.ok(error.properties.error.examples.length > 0);
  });

  test('the document says which credential goes to which server', () => {
    assert.match(doc.info.description, /sandbox credential works only at the sandbox server/);
    assert.deepEqual(
      (doc.servers as { description: string }[]).map((s) => s.description.split(':')[0]),
      ['Production', 'Sandbox'],
    );
  });

  test('the server picker offers production first, and the sandbox first from a sandbox link', async () => {
    const page = async (path: string) => {
      const res = await fetch(`${t.url}${path}`);
      assert.equal(res.status, 200, path);
      return res.text();
    };
    assert.deepEqual(pickerOf(await page('/docs/')), [t.config.baseUrl, t.config.sandboxUrl]);
    assert.deepEqual(pickerOf(await page('/docs/?env=sandbox')), [t.config.sandboxUrl, t.config.baseUrl]);
    assert.match(await page('/docs/?env=sandbox'), /Sandbox: your sandbox credential/);

    const sandboxLink = await fetch(`${t.url}/sandbox/docs`, { redirect: 'manual' });
    assert.equal(sandboxLink.status, 302);
    assert.equal(sandboxLink.headers.get('location'), '/docs/?env=sandbox');
    const withQuery = await fetch(`${t.url}/docs?env=sandbox`, { redirect: 'manual' });
    assert.equal(withQuery.headers.get('location'), '/docs/?env=sandbox');
  });
});
