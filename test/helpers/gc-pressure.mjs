// Loaded with `--expose-gc --import` into a server under test: a full collection every 25 ms, so that
// what the server drops (prepared statements above all) is finalized while it serves, not only at exit.
if (typeof globalThis.gc !== 'function') throw new Error('gc-pressure needs node --expose-gc');
setInterval(() => globalThis.gc(), 25).unref();
