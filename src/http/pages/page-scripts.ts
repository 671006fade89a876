import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadedOnce } from '../../loaded-once.ts';
import { bundleFile, PAGE_SCRIPTS, type PageScriptName, type PageScripts } from './page-script-files.ts';

/**
 * The pages' browser scripts (sources in src/http/pages/browser), loaded once as the pages are
 * registered (pagesPlugin awaits `loadPageScripts`), then handed out by name to the pages, which emit
 * them inline under the response's CSP nonce (or, the checkout form's, as checkout.js). A compiled
 * install (`npm run build`) has the bundles in ./browser beside this module, written by the build; run
 * from the sources, they are bundled by esbuild (page-scripts-build.ts, imported only then), which a
 * compiled install never loads. The same for every app in the process: one load serves them all.
 */
let loaded: PageScripts | undefined;

async function readOrBuild(): Promise<PageScripts> {
  const built = PAGE_SCRIPTS.map(
    (name) => [name, fileURLToPath(new URL(`./browser/${bundleFile(name)}`, import.meta.url))] as const,
  );
  if (built.every(([, path]) => existsSync(path)))
    return Object.fromEntries(built.map(([name, path]) => [name, readFileSync(path, 'utf8')])) as PageScripts;
  const { buildPageScripts } = await import('./page-scripts-build.ts');
  return buildPageScripts();
}

const readOnce = loadedOnce(readOrBuild);

export async function loadPageScripts(): Promise<void> {
  loaded = await readOnce();
}

/** A page script's bundled code; the pages are registered only once the scripts are loaded. */
export function pageScript(name: PageScriptName): string {
  if (!loaded) throw new Error('The page scripts are not loaded: await loadPageScripts() before serving pages.');
  return loaded[name];
}
