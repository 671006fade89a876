import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * An endpoint's signing secret: `whsec_` and 32 random bytes in base64 (Standard Webhooks), shown once
 * when the endpoint is made. The store keeps it sealed (AES-256-GCM under a key derived from
 * OPENTILL_SECRET), since signing needs it back: a copy of the database alone signs nothing.
 */
export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

const keyOf = (serverSecret: string) =>
  createHash('sha256').update(`opentill webhook signing secrets\u0000${serverSecret}`).digest();

export function sealSecret(secret: string, serverSecret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(serverSecret), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${sealed.toString('base64url')}`;
}

/** The secret again; throws when it was sealed under another server secret (OPENTILL_SECRET changed). */
export function openSecret(sealed: string, serverSecret: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !data) throw new Error('not a sealed webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', keyOf(serverSecret), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
