import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { sessionHash } from './panel-secrets.ts';
import type { Store } from '../ports.ts';

/** How long a message waits for the page after the redirect. */
export const FLASH_MS = 60_000;

/**
 * One-time messages of a panel session between a POST and the page its redirect opens (a new API
 * credential's secret), in the store, so that the redirect may land on any process behind the port.
 * A message is sealed (AES-256-GCM) with a key derived from the session's cookie, which the server
 * never stores: the database holds it for a minute in a form nobody can read without the browser's
 * cookie. Taking it deletes it in the same statement, so a reload, or two tabs at once, shows it once.
 */
export function panelFlashService(deps: { store: Pick<Store, 'panelFlashes'>; clock: Clock }) {
  const keyOf = (cookie: string) => createHmac('sha256', cookie).update('opentill panel flash').digest();

  return {
    async put(cookie: string, message: string): Promise<void> {
      const now = deps.clock.now();
      const hash = sessionHash(cookie);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyOf(cookie), iv).setAAD(Buffer.from(hash));
      const body = Buffer.concat([cipher.update(message, 'utf8'), cipher.final()]);
      const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
      await deps.store.panelFlashes.put(
        { sessionHash: hash, sealed, expiresAt: new Date(now.getTime() + FLASH_MS).toISOString() },
        now.toISOString(),
      );
    },

    /** The session's message, once; undefined without one, after it was taken, or after its minute. */
    async take(cookie: string | undefined): Promise<string | undefined> {
      if (!cookie) return undefined;
      const hash = sessionHash(cookie);
      const sealed = await deps.store.panelFlashes.take(hash, deps.clock.now().toISOString());
      if (!sealed) return undefined;
      const raw = Buffer.from(sealed, 'base64url');
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyOf(cookie), raw.subarray(0, 12)).setAAD(Buffer.from(hash));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}

export type PanelFlashService = ReturnType<typeof panelFlashService>;
