import { mkdirSync } from 'node:fs';
import { createServer as netServer, type AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';

/** Where browser tests keep their screenshots (gitignored). */
export const ARTIFACTS = new URL('../test-artifacts/', import.meta.url).pathname;

/** A port nobody listens on yet, so a test app can know its own URL before it starts. */
export const freePort = () =>
  new Promise<number>((done) => {
    const probe = netServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => done(port));
    });
  });

/** Debian's Chromium, headless, kept from reaching the network; the artifacts folder made ready. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
