import assert from 'node:assert/strict';
import type { TestApp, TestVendor } from './test-app.ts';

/**
 * A customer's visit to their management page in the API tests: the link the vendor's server asks
 * for, the page as text, its form token, and its forms posted as a browser posts them.
 */
export function manageVisit(t: () => TestApp, v: () => TestVendor) {
  return {
    /** The page's path (under t.url) for a customer. */
    async manageLink(email: string) {
      const res = await v().api(`/v1/generate-url-to-manage-transactions/${encodeURIComponent(email)}`);
      assert.equal(res.status, 200, res.text);
      return new URL(res.json.url).pathname;
    },
    async open(path: string, headers: Record<string, string> = {}) {
      const res = await fetch(`${t().url}${path}`, { headers });
      return { status: res.status, html: await res.text(), csp: res.headers.get('content-security-policy') };
    },
    formToken: (html: string) => /name="formToken" value="([^"]+)"/.exec(html)![1]!,
    post: (path: string, fields: Record<string, string>) =>
      fetch(`${t().url}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      }),
  };
}
