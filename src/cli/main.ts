import { io } from './output.ts';
import { runCli } from './program.ts';

// The binary: the process's own environment and streams. A failed command exits at once, as a
// killed one would, without waiting for what it left open.
const code = await runCli(process.argv.slice(2), io());
if (code !== 0) process.exit(code);
