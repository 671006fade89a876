import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions } from 'esbuild';
import type { Environment } from '../domain/model.ts';

/**
 * The client script (docs/decisions.md §14), bundled from src/widget/widget.ts once per environment. The two
 * bundles share every option but `define`, which tells the script which API it calls.
 * Run directly to see the sizes: `npm run build:widget`.
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

const ENTRY = fileURLToPath(new URL('./widget.ts', import.meta.url));

export function widgetBuildOptions(environment: Environment) {
  return {
    entryPoints: [ENTRY],
    write: false,
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2018',
    platform: 'browser',
    legalComments: 'none',
    logLevel: 'silent',
    define: { __OPENTILL_SANDBOX__: environment === 'sandbox' ? 'true' : 'false' },
  } satisfies BuildOptions;
}

async function buildOne(environment: Environment): Promise<WidgetBundle> {
  const result = await build(widgetBuildOptions(environment));
  const [output] = result.outputFiles;
  if (!output || result.outputFiles.length !== 1) throw new Error(`esbuild produced ${result.outputFiles.length} files for the ${environment} widget`);
  const code = Buffer.from(output.contents);
  return {
    code,
    etag: `"${createHash('sha256').update(code).digest('base64url')}"`,
    gzipBytes: gzipSync(code).length,
  };
}

export async function buildWidgets(): Promise<WidgetBundles> {
  const [production, sandbox] = await Promise.all([buildOne('production'), buildOne('sandbox')]);
  return { [WIDGET_FILES.production]: production, [WIDGET_FILES.sandbox]: sandbox };
}

async function main() {
  const bundles = await buildWidgets();
  let overBudget = false;
  for (const [file, bundle] of Object.entries(bundles)) {
    const over = bundle.gzipBytes > WIDGET_GZIP_BUDGET;
    overBudget ||= over;
    console.log(`${file}: ${bundle.code.length} bytes, ${bundle.gzipBytes} bytes gzipped${over ? ` (over the ${WIDGET_GZIP_BUDGET}-byte budget)` : ''}`);
  }
  if (overBudget) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
