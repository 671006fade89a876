import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer as netServer, type AddressInfo } from 'node:net';
import { chromium, type Browser, type Frame, type Locator, type Page } from 'playwright-core';

/** Where browser tests keep their screenshots (gitignored). */
export const ARTIFACTS = new URL('../test-artifacts/', import.meta.url).pathname;

/**
 * Whether page tests write their screenshots. They are for a person to open and judge (`npm run
 * screenshots`), and no test reads them, so `npm test` turns them off (OPENTILL_SCREENSHOTS=0): a
 * full-page capture was a sixth of the page tests' browser CPU (90.8 -> 76.2 core-s over test/browser).
 * A test file run on its own takes them.
 */
const SCREENSHOTS = process.env.OPENTILL_SCREENSHOTS !== '0';

/** A screenshot of the page (the whole page with `fullPage`) or of one element, to `path`, when screenshots are on. */
export async function screenshot(target: Page | Locator, path: string, { fullPage = false } = {}): Promise<void> {
  if (!SCREENSHOTS) return;
  if ('goto' in target) await target.screenshot({ path, fullPage });
  else await target.screenshot({ path });
}

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

/**
 * Debian's Chromium, headless, kept from reaching the network; the artifacts folder made ready.
 * `optimize`: V8's optimizing tiers on, as in a buyer's browser (the benches, which time pages); tests leave them off.
 */
export function launchChromium({ optimize = false }: { optimize?: boolean } = {}): Promise<Browser> {
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
      // The GPU's work (SwiftShader's compositing, for pictures) on a thread of the browser rather than
      // in a process of its own per launch: panel.test 29.2 and 28.9 core-s -> 27.8 and 27.9.
      '--in-process-gpu',
      // A test's page scripts live for a second or two: V8's optimizing tiers cost more CPU than they save.
      // Baseline code at most took 7-9% off the browser's CPU over seven page-test files (36.9 -> 34.2 core-s).
      ...(optimize ? [] : ['--js-flags=--max-opt=1']),
    ],
  });
}

/** The two sizes every page is looked at and screenshot in: a desktop window and a phone. */
export const SCREEN_SIZES = [
  ['desktop', { width: 1280, height: 800 }],
  ['phone', { width: 390, height: 844 }],
] as const;

/**
 * axe-core as it is put into every frame scanned; frames answer only their own page's axe (runPartial
 * needs no messages). Its minified build (`axe.source` is the readable one, 1.5 MB): putting axe into a
 * page was three quarters of a small page's scan, and 650 KB cross to the page and compile in 110 ms of
 * the 165 the readable build took.
 */
const AXE = `${readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')};axe.configure({ allowedOrigins: ['<same_origin>'] });`;

/**
 * What each scan runs: every rule but `region`, whose only check is of moderate impact, so it can never
 * be among the serious and critical findings reported, and which walks the whole page: a fifth of a
 * scan of the checkout (104 -> 82 ms).
 */
const AXE_OPTIONS = { rules: { region: { enabled: false } } };

type AxeWindow = Window & {
  axe: {
    utils: {
      getFrameContexts(context: unknown): { frameSelector: unknown; frameContext: unknown }[];
      shadowSelect(selector: unknown): Element;
    };
    runPartial(context: unknown, options: object): Promise<unknown>;
    finishRun(partials: unknown[], options: object): Promise<{ violations: Violation[] }>;
  };
  opentillAxePartial?: unknown;
};
type Violation = { id: string; impact?: string | null; nodes: { target: string[] }[] };
/** One frame's axe.runPartial result as JSON, '' for the page's own (kept in the page), null for a frame that could not be scanned. */
type Partial = string | null;

/**
 * axe.runPartial in `frame` and then, depth first, in each frame inside it: the order axe.finishRun
 * takes them in (as @axe-core/playwright does it, whose scan this replaces). The page's own result
 * stays in the page for finishRun: on the API reference it is 2.8 MB, and sending it to Node and
 * back was most of a 7-second scan. A frame's result crosses as one JSON string.
 */
async function partialsIn(frame: Frame, context: unknown, top: boolean): Promise<Partial[]> {
  // No deadline on putting axe in: @axe-core/playwright gave a frame one second and, past it, left the
  // frame out of the scan without a word (on a loaded machine, the checkout's cross-origin frame).
  await frame.evaluate(AXE);
  const inner = await frame.evaluate((c) => (window as unknown as AxeWindow).axe.utils.getFrameContexts(c), context);
  const own = frame.evaluate(
    ([c, keep, options]) =>
      (window as unknown as AxeWindow).axe.runPartial(c, options).then((result) => {
        if (!keep) return JSON.stringify(result);
        (window as unknown as AxeWindow).opentillAxePartial = result;
        return '';
      }),
    [context, top, AXE_OPTIONS] as const,
  );
  // Awaited below, after the frames inside: until then, a failure must not count as unhandled.
  own.catch(() => undefined);
  const children: Partial[] = [];
  for (const { frameSelector, frameContext } of inner)
    children.push(...(await childPartials(frame, frameSelector, frameContext)));
  return [await own, ...children];
}

/** A frame inside `parent`, scanned; [null] (one frame left out, as axe expects) when it is gone or its scan failed. */
async function childPartials(parent: Frame, selector: unknown, context: unknown): Promise<Partial[]> {
  try {
    const element = await parent.evaluateHandle(
      (s) => (window as unknown as AxeWindow).axe.utils.shadowSelect(s),
      selector,
    );
    const child = await element.asElement()?.contentFrame();
    return child ? await partialsIn(child, context, false) : [null];
  } catch {
    return [null];
  }
}

/**
 * Serious and critical findings of axe-core on the page, as `rule (impact): selectors` lines; [] when
 * there are none. finishRun runs in the scanned page itself, not in a blank page as @axe-core/playwright
 * has it: the blank page guards the results against a hostile page, every page scanned here is our own,
 * and axe put into a blank page again was two thirds of every scan's CPU.
 */
export async function seriousViolations(page: Page, options: { exclude?: string[] } = {}): Promise<string[]> {
  // The processor's frames are its own to make accessible (and here a stand-in of them): leave them out by selector.
  const context = { include: [], exclude: options.exclude ?? [] };
  const [, ...frames] = await partialsIn(page.mainFrame(), context, true);
  return page.evaluate(
    async ([frames, options]) => {
      const w = window as unknown as AxeWindow;
      const partials = [w.opentillAxePartial, ...frames.map((f) => (f === null ? null : JSON.parse(f)))];
      delete w.opentillAxePartial;
      const { violations } = await w.axe.finishRun(partials, options);
      return violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    },
    [frames, AXE_OPTIONS] as const,
  );
}
