import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { bundleFile, PAGE_SCRIPTS, type PageScriptName, type PageScripts } from './page-script-files.ts';
import { BROWSER_BUNDLE } from '../../widget/build.ts';

/**
 * Bundles the pages' browser scripts (src/http/pages/browser/<name>.ts) with esbuild, as the client
 * script is bundled (src/widget/build.ts): one minified IIFE each, for the pages to emit under their
 * CSP nonce. Run directly to see the sizes, or with `--out <dir>` to write them there (the build step,
 * scripts/build.mjs).
 */
export function pageScriptBuildOptions(name: PageScriptName) {
  return {
    ...BROWSER_BUNDLE,
    entryPoints: [fileURLToPath(new URL(`./browser/${name}.ts`, import.meta.url))],
  } satisfies BuildOptions;
}

async function buildOne(name: PageScriptName): Promise<string> {
  const result = await build(pageScriptBuildOptions(name));
  const [output] = result.outputFiles;
  if (!output || result.outputFiles.length !== 1)
    throw new Error(`esbuild produced ${result.outputFiles.length} files for the page script ${name}`);
  return output.text;
}

export async function buildPageScripts(): Promise<PageScripts> {
  const codes = await Promise.all(PAGE_SCRIPTS.map(buildOne));
  return Object.fromEntries(PAGE_SCRIPTS.map((name, i) => [name, codes[i]!])) as Record<PageScriptName, string>;
}

async function main() {
  const scripts = await buildPageScripts();
  const out = process.argv.indexOf('--out');
  if (out > 0) {
    const dir = resolve(process.argv[out + 1]!);
    mkdirSync(dir, { recursive: true });
    for (const name of PAGE_SCRIPTS) writeFileSync(join(dir, bundleFile(name)), scripts[name]);
  }
  for (const name of PAGE_SCRIPTS) console.log(`${bundleFile(name)}: ${Buffer.byteLength(scripts[name])} bytes`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
