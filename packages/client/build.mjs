// Builds the package into dist/: ESM JavaScript and .d.ts files, one per source file, by the TypeScript
// of the repository's root install (the package itself has no dependencies of any kind). Its tsconfig
// has no Node types and the DOM library: code reaching for Node's own API does not compile.
//   node packages/client/build.mjs [--out <dir>]     (npm run sdk:build at the root)
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const at = process.argv.indexOf('--out');
const dist = at > 0 ? resolve(process.argv[at + 1]) : join(here, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', here, '--outDir', dist], { stdio: 'inherit' });
// TypeScript rewrites the relative `.ts` imports of the JavaScript it emits, not those of the .d.ts files.
for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.d.ts')) continue;
  const text = readFileSync(join(dist, file), 'utf8');
  writeFileSync(join(dist, file), text.replace(/(from\s+'\.{1,2}\/[^']+)\.ts'/g, "$1.js'"));
}
console.log(`built ${dist}`);
