import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import type { Environment } from '../domain/model.ts';
import { bundleOf, WIDGET_FILES, WIDGET_GZIP_BUDGET, type WidgetBundle, type WidgetBundles } from './bundles.ts';

/**
 * Bundles the client script (docs/decisions.md §14) from src/widget/widget.ts once per environment with
 * esbuild. The two bundles share every option but `define`, which tells the script which API it calls.
 * Run directly to see the sizes (`npm run build:widget`), or with `--out <dir>` to write them there
 * (the build step, scripts/build.mjs).
 */
export { WIDGET_FILES, WIDGET_GZIP_BUDGET, type WidgetBundle, type WidgetBundles } from './bundles.ts';

const ENTRY = fileURLToPath(new URL('./widget.ts', import.meta.url));

/** How every script opentill sends to a browser is bundled: the widget and the pages' scripts alike. */
export const BROWSER_BUNDLE = {
  write: false,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2018',
  platform: 'browser',
  legalComments: 'none',
  logLevel: 'silent',
} as const satisfies BuildOptions;

export function widgetBuildOptions(environment: Environment) {
  return {
    ...BROWSER_BUNDLE,
    entryPoints: [ENTRY],
    define: { __OPENTILL_SANDBOX__: environment === 'sandbox' ? 'true' : 'false' },
  } satisfies BuildOptions;
}

async function buildOne(environment: Environment): Promise<WidgetBundle> {
  const result = await build(widgetBuildOptions(environment));
  const [output] = result.outputFiles;
  if (!output || result.outputFiles.length !== 1)
    throw new Error(`esbuild produced ${result.outputFiles.length} files for the ${environment} widget`);
  return bundleOf(Buffer.from(output.contents));
}

export async function buildWidgets(): Promise<WidgetBundles> {
  const [production, sandbox] = await Promise.all([buildOne('production'), buildOne('sandbox')]);
  return { [WIDGET_FILES.production]: production, [WIDGET_FILES.sandbox]: sandbox };
}

async function main() {
  const bundles = await buildWidgets();
  const out = process.argv.indexOf('--out');
  if (out > 0) {
    const dir = resolve(process.argv[out + 1]!);
    mkdirSync(dir, { recursive: true });
    for (const [file, bundle] of Object.entries(bundles)) writeFileSync(join(dir, file), bundle.code);
  }
  let overBudget = false;
  for (const environment of ['production', 'sandbox'] as const) {
    const file = WIDGET_FILES[environment];
    const bundle = bundles[file]!;
    const budget = WIDGET_GZIP_BUDGET[environment];
    const over = bundle.gzip.length > budget;
    overBudget ||= over;
    console.log(
      `${file}: ${bundle.code.length} bytes, ${bundle.gzip.length} bytes gzipped (budget ${budget})${over ? ' OVER BUDGET' : ''}`,
    );
  }
  if (overBudget) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
