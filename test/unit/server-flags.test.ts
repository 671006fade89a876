import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { promisify } from 'node:util';

/**
 * Node's flags for a server (docs/decisions.md §43): the `opentill` command's first line
 * (`#!/usr/bin/env -S node <flags>`) and `npm start` give the same ones, and they cap V8's young
 * generation, which a server otherwise grows to 2 x 32 MB during its start and keeps.
 */
const run = promisify(execFile);
const root = new URL('../../', import.meta.url);
const commandFlags = () => readFileSync(new URL('bin/opentill.js', root), 'utf8').split('\n')[0]!.split(/\s+/).slice(3);

test('the opentill command and npm start run Node with the same flags', () => {
  const start = (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  assert.match(readFileSync(new URL('bin/opentill.js', root), 'utf8'), /^#!\/usr\/bin\/env -S node /);
  assert.deepEqual(commandFlags(), ['--max-semi-space-size=8']);
  assert.equal(start, `node ${commandFlags().join(' ')} bin/opentill.js serve`);
});

test("with those flags, a process that allocates a lot keeps V8's young generation near 16 MB (Node's own grows to 64)", async () => {
  const script = `
    const v8 = require('node:v8');
    const kept = [];
    for (let i = 0; i < 2e6; i++) { kept.push({ i, text: 'x' + i }); if (kept.length > 2e5) kept.splice(0, 1e5); }
    const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
    console.log(space.space_size);
  `;
  const { stdout } = await run(process.execPath, [...commandFlags(), '-e', script]);
  assert.ok(Number(stdout) <= 24 * 2 ** 20, `young generation: ${stdout.trim()} bytes`);
});
