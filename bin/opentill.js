#!/usr/bin/env node
// Refuse an old Node.js before loading anything that would fail on it in a less readable way.
const [major] = process.versions.node.split('.').map(Number);
if (major < 22) {
  process.stderr.write(
    `opentill needs Node.js 22 or newer; this is Node.js ${process.versions.node}.\n` +
      'Install the current LTS (24) from your package manager or nodejs.org, or see "Node.js" in the README.\n',
  );
  process.exit(1);
}
// Runs the TypeScript sources directly through tsx's loader: no build step to forget.
const { register } = await import('tsx/esm/api');
register();
await import('../src/cli/main.ts');
