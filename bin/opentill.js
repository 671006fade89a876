#!/usr/bin/env node
import { readdirSync, statSync } from 'node:fs';

// Refuse an old Node.js before loading anything that would fail on it in a less readable way.
const [major] = process.versions.node.split('.').map(Number);
if (major < 22) {
  process.stderr.write(
    `opentill needs Node.js 22 or newer; this is Node.js ${process.versions.node}.\n` +
      'Install the current LTS (24) from your package manager or nodejs.org, or see "Node.js" in the README.\n',
  );
  process.exit(1);
}

/** The compiled build (`npm run build`, run by `npm ci`), when it is newer than every source file. */
function currentBuild() {
  const src = new URL('../src/', import.meta.url);
  let built;
  try {
    built = statSync(new URL('../dist/.built', import.meta.url)).mtimeMs;
  } catch {
    return undefined;
  }
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && statSync(`${entry.parentPath}/${entry.name}`).mtimeMs > built) return undefined;
  }
  return new URL('../dist/cli/main.js', import.meta.url);
}

const build = currentBuild();
if (build) {
  await import(build.href);
} else {
  // No build, or one older than the sources (a checkout being worked on): run the TypeScript
  // sources through tsx's loader.
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
