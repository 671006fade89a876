import { existsSync, mkdirSync } from 'node:fs';
import { createServer as netServer, type AddressInfo } from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';

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

/**
 * Debian's headless shell of Chromium (package chromium-headless-shell), else its full browser (package
 * chromium). The shell is the build Playwright itself runs headless: the same Blink, without the desktop
 * browser around it, and it took 40% less CPU over the page tests (94 core-s against 57 for one file).
 */
const EXECUTABLE = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path));

/** Debian's Chromium, headless, kept from reaching the network; the artifacts folder made ready. */
export function launchChromium(): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  if (!EXECUTABLE) throw new Error('Chromium is missing: apt-get install chromium-headless-shell (or chromium)');
  return chromium.launch({
    executablePath: EXECUTABLE,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** The two sizes every page is looked at and screenshot in: a desktop window and a phone. */
export const SCREEN_SIZES = [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const;

/**
 * @axe-core/playwright's scan, finished in the scanned page rather than in a blank page of its own:
 * the blank page, with axe's 650 kB injected into it again, was two thirds of every scan's CPU (170
 * against 60 ms a scan). Each frame is still scanned by axe inside it; the blank page guards the
 * results against a hostile page, and every page scanned here is our own.
 */
function finishInPage(builder: AxeBuilder, page: Page): AxeBuilder {
  const options = () => (builder as unknown as { option: unknown }).option;
  waitForFrames(builder);
  (builder as unknown as { finishRun: (partials: unknown) => Promise<unknown> }).finishRun = (partials) =>
    page.evaluate(
      ([partials, options]) =>
        (window as unknown as { axe: { finishRun(p: unknown, o: unknown): Promise<unknown> } }).axe.finishRun(
          partials,
          options,
        ),
      [partials, options()] as const,
    );
  return builder;
}

/**
 * @axe-core/playwright gives putting axe into a frame one second and, past it, scans the page without
 * that frame and says nothing: on a loaded machine a cross-origin frame (its own renderer, 650 kB to
 * compile) took longer, and its findings were silently missing. Here a frame takes as long as it takes.
 */
function waitForFrames(builder: AxeBuilder): void {
  const axe = builder as unknown as {
    script(): string;
    axeConfigure(): Promise<string>;
    inject(frames: Frame[], shouldThrow?: boolean): Promise<void>;
  };
  axe.inject = async (frames, shouldThrow) => {
    for (const frame of frames) {
      try {
        await frame.evaluate(axe.script());
        await frame.evaluate(await axe.axeConfigure());
      } catch (error) {
        if (shouldThrow) throw error;
      }
    }
  };
}

/** Serious and critical findings of axe-core on the page, as `rule (impact): selectors` lines; [] when there are none. */
export async function seriousViolations(page: Page, options: { exclude?: string[] } = {}): Promise<string[]> {
  let builder = finishInPage(new AxeBuilder({ page } as never), page);
  // The processor's frames are its own to make accessible (and here a stand-in of them): leave them out by selector.
  for (const selector of options.exclude ?? []) builder = builder.exclude(selector);
  const { violations } = await builder.analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
