// `npm run build` (and `prepare`, so `npm ci` builds): compiles src/ to dist/ with tsc, writes the
// client script's bundles beside the compiled widget module and the pages' browser scripts (sources in
// src/http/pages/browser, bundled by src/http/pages/page-scripts-build.ts) to dist/http/pages/browser,
// copies the data files src/ reads at run time, and stamps the build. bin/opentill.js runs dist/ only while the stamp is newer than every file
// in src/, so an edited source is never shadowed by an old build (docs/architecture.md, "Running").
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const run = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });

rmSync(dist, { recursive: true, force: true });
run([createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json']);
run(['--import', 'tsx', 'src/widget/build.ts', '--out', 'dist/widget']);
run(['--import', 'tsx', 'src/http/pages/page-scripts-build.ts', '--out', 'dist/http/pages/browser']);
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
  const to = join(dist, relative(src, join(entry.parentPath, entry.name)));
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(join(entry.parentPath, entry.name), to);
}
writeFileSync(join(dist, '.built'), `${new Date().toISOString()}\n`);
