import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Environment } from '../domain/model.ts';

/**
 * The client script's two bundles (docs/decisions.md §14), as the server holds them (src/widget/load.ts
 * reads or builds them).
 */
export interface WidgetBundle {
  code: Buffer;
  /** Strong validator, quoted: `"<sha256 of code, base64url>"`. */
  etag: string;
  /** `code` gzipped, as a browser that accepts gzip is sent it (most are: 3 KB instead of 7). */
  gzip: Buffer;
  /** The gzipped copy's own validator (`"<sha256 of gzip>"`): another content coding is another representation. */
  gzipEtag: string;
}

export type WidgetBundles = Record<string, WidgetBundle>;

export const WIDGET_FILES: Readonly<Record<Environment, string>> = {
  production: 'widget.min.js',
  sandbox: 'widget.sandbox.min.js',
};

/**
 * What a customer's browser downloads, compressed (gzip), may not exceed, per bundle: each one's size when
 * this was last lowered (docs/decisions.md §29), so that it cannot creep back. Lower it when the script shrinks.
 */
// Raised by 8 and 5 bytes for `data-ts-quantity` / `tc.buy`'s quantity (docs/decisions.md §39).
export const WIDGET_GZIP_BUDGET: Readonly<Record<Environment, number>> = { production: 3169, sandbox: 3264 };

const etagOf = (bytes: Buffer) => `"${createHash('sha256').update(bytes).digest('base64url')}"`;

export function bundleOf(code: Buffer): WidgetBundle {
  const gzip = gzipSync(code);
  return { code, etag: etagOf(code), gzip, gzipEtag: etagOf(gzip) };
}
