import { after } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../../support/chromium.ts';

/**
 * One Chromium for every page test a test process runs (the first round runs some sixty files in each
 * of its processes): a launch costs about a third of a core-second, and a run made some fifty. Each
 * caller gets a lease: the browser itself, save that `close()` closes only the contexts (and the pages'
 * own contexts) the lease opened, which is all a test sees of a browser of its own. The browser closes
 * after the process's last test (a hook on the test tree's root, registered when this module loads;
 * left open, it would keep the process alive).
 */
let browser: Promise<Browser> | undefined;

after(async () => {
  const opened = browser;
  browser = undefined;
  await (await opened?.catch(() => undefined))?.close();
});

/** A browser that failed to start or went away (it crashed) is launched anew for the next file, not handed on. */
function launch(): Promise<Browser> {
  const launched = launchChromium();
  const forget = () => {
    if (browser === launched) browser = undefined;
  };
  launched.then((b) => b.once('disconnected', forget), forget);
  return launched;
}

export async function sharedChromium(): Promise<Browser> {
  browser ??= launch();
  const real = await browser;
  const contexts = new Set<BrowserContext>();
  const track = (context: BrowserContext) => {
    contexts.add(context);
    context.once('close', () => contexts.delete(context));
    return context;
  };
  return new Proxy(real, {
    get(target, name, receiver) {
      if (name === 'newContext')
        return async (...args: Parameters<Browser['newContext']>) => track(await target.newContext(...args));
      if (name === 'newPage')
        return async (...args: Parameters<Browser['newPage']>) => {
          const page = await target.newPage(...args);
          track(page.context());
          return page;
        };
      if (name === 'close')
        return async () => {
          await Promise.all([...contexts].map((context) => context.close().catch(() => undefined)));
        };
      const value: unknown = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
