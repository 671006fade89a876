// `node --import ./support/record-imports.mjs …` with RECORD_IMPORTS=<file>: writes the URL of every
// module the process resolved (import and require alike) to <file> as JSON when it exits. Tests use
// it to see which code a command ran (test/process/compiled-build.test.ts).
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const resolved = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const result = nextResolve(specifier, context);
    resolved.add(result.url);
    return result;
  },
});
process.on('exit', () => writeFileSync(process.env.RECORD_IMPORTS, JSON.stringify([...resolved])));
