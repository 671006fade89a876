import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadedOnce } from '../loaded-once.ts';
import { bundleOf, WIDGET_FILES, type WidgetBundles } from './bundles.ts';

/**
 * The bundles the server serves. A compiled install (`npm run build`) has them beside this module,
 * written by the build; run from the sources, they are bundled at start by esbuild
 * (src/widget/build.ts, imported only then), which a compiled install never loads. The same for every
 * app in the process (the tests build hundreds): read or bundled once.
 */
export const loadWidgets: () => Promise<WidgetBundles> = loadedOnce(readOrBuild);

async function readOrBuild(): Promise<WidgetBundles> {
  const built = Object.values(WIDGET_FILES).map(
    (file) => [file, fileURLToPath(new URL(`./${file}`, import.meta.url))] as const,
  );
  if (built.every(([, path]) => existsSync(path)))
    return Object.fromEntries(built.map(([file, path]) => [file, bundleOf(readFileSync(path))]));
  const { buildWidgets } = await import('./build.ts');
  return buildWidgets();
}
