import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import vm from 'node:vm';
import { buildWidgets, WIDGET_FILES, type WidgetBundles } from '../../src/widget/build.ts';

/**
 * The client script and the buyer's language (docs/decisions.md §33), in a bare page: `tc.buy`'s `locale`
 * reaches the checkout's start like a prefill, and the overlay takes the server's name for it. What a
 * button's data-ts-locale does in a real page is the same code path as any data-ts prefill.
 */

interface Element {
  tag: string;
  attributes: Record<string, string>;
  title?: string;
  children: Element[];
}

function loadScript(code: Buffer, answer: object) {
  const bodies: Record<string, unknown>[] = [];
  const added: Element[] = [];
  const assigned: string[] = [];
  const noop = () => {};
  const element = (tag: string): Element & Record<string, unknown> => {
    const el: Element & Record<string, unknown> = {
      tag,
      attributes: {},
      children: [],
      style: {},
      setAttribute: (name: string, value: string) => (el.attributes[name] = value),
      appendChild: (child: Element) => el.children.push(child),
      focus: noop,
      remove: noop,
      contains: () => true,
    };
    return el;
  };
  const page: Record<string, unknown> = {
    document: {
      currentScript: { src: 'https://pay.example/latest/widget.min.js', getAttribute: () => null },
      documentElement: { hasAttribute: () => false, querySelectorAll: () => [], style: {} },
      body: { appendChild: (el: Element) => added.push(el) },
      querySelector: () => null,
      createElement: element,
      addEventListener: noop,
      removeEventListener: noop,
      activeElement: null,
    },
    MutationObserver: class {
      observe() {}
    },
    URL,
    URLSearchParams,
    console,
    setTimeout: () => 0,
    clearTimeout: noop,
    addEventListener: noop,
    removeEventListener: noop,
    location: {
      href: 'https://vendor.example/',
      origin: 'https://vendor.example',
      assign: (u: unknown) => assigned.push(String(u)),
    },
    fetch: async (_url: string, init?: RequestInit) => {
      bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
      return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
    },
  };
  page.window = page;
  vm.runInNewContext(code.toString('utf8'), page);
  return { tc: page.tc as { buy(id: string, options?: object): Promise<void> }, bodies, added, assigned };
}

describe("the client script in the buyer's language", () => {
  let bundles: WidgetBundles;
  before(async () => {
    bundles = await buildWidgets();
  });
  const code = () => bundles[WIDGET_FILES.production]!;

  test("tc.buy's locale goes to the checkout's start with the prefill; without one, none is sent", async () => {
    const answer = { url: 'https://pay.example/payment/product/p1?locale=de', label: 'Kasse' };
    const german = loadScript(code().code, answer);
    await german.tc.buy('p1', { locale: 'de', email: 'a@example.com', redirect: true });
    assert.deepEqual(german.bodies, [{ productId: 'p1', email: 'a@example.com', locale: 'de' }]);
    assert.deepEqual(german.assigned, [answer.url]);
    const plain = loadScript(code().code, answer);
    await plain.tc.buy('p1', { redirect: true });
    assert.deepEqual(plain.bodies, [{ productId: 'p1' }]);
  });

  test("the overlay and its frame are named in the server's words for the buyer's language", async () => {
    const { tc, added } = loadScript(code().code, { url: 'https://pay.example/payment/product/p1', label: 'الدفع' });
    await tc.buy('p1', { locale: 'ar' });
    const [overlay] = added;
    assert.equal(overlay?.attributes['aria-label'], 'الدفع');
    assert.equal(overlay?.children[0]?.title, 'الدفع');
  });
});
