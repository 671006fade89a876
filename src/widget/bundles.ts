import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Environment } from '../domain/model.ts';

/**
 * The client script's two bundles (docs/decisions.md §14), as the server holds them. A compiled
 * install (`npm run build`) has them beside this module, written by the build; run from the sources,
 * they are bundled at start by esbuild (src/widget/build.ts), which a compiled install never loads.
 */
export interface WidgetBundle {
  code: Buffer;
  /** Strong validator, quoted: `"<sha256 of code, base64url>"`. */
  etag: string;
  gzipBytes: number;
}

export type WidgetBundles = Record<string, WidgetBundle>;

export const WIDGET_FILES: Readonly<Record<Environment, string>> = {
  production: 'widget.min.js',
  sandbox: 'widget.sandbox.min.js',
};

/** What a customer's browser downloads, compressed, may not exceed this. */
export const WIDGET_GZIP_BUDGET = 4096;

export function bundleOf(code: Buffer): WidgetBundle {
  return { code, etag: `"${createHash('sha256').update(code).digest('base64url')}"`, gzipBytes: gzipSync(code).length };
}

export async function loadWidgets(): Promise<WidgetBundles> {
  const built = Object.values(WIDGET_FILES).map((file) => [file, fileURLToPath(new URL(`./${file}`, import.meta.url))] as const);
  if (built.every(([, path]) => existsSync(path))) return Object.fromEntries(built.map(([file, path]) => [file, bundleOf(readFileSync(path))]));
  const { buildWidgets } = await import('./build.ts');
  return buildWidgets();
}
