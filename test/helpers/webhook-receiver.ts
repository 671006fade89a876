import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One POST the receiver got, with whether its signature verified under the secret it was given. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  path: string;
  /** What the receiver answered (null: it hung until the sender gave up). */
  answered: number | null;
  /** The place of its answer among all answers (answers may come in another order than requests). */
  order: number;
  verified: boolean;
}

/** How the receiver answers a request: a status after an optional delay, or never (`hang`). */
export type Answer = { status: number; delayMs?: number; location?: string } | 'hang';

/**
 * A webhook receiver on loopback for the tests: it records every POST, verifies each signature with
 * the standardwebhooks package (a library no one here wrote), and answers as `answer` says: fail,
 * hang, take its time (so concurrent deliveries finish out of order), or redirect.
 */
export async function startReceiver(answer: (got: Received, n: number) => Answer = () => ({ status: 200 })) {
  const received: Received[] = [];
  const state = { secret: '', answer };
  const hanging = new Set<() => void>();
  let answers = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      let verified: boolean;
      try {
        if (state.secret) new Webhook(state.secret).verify(body, req.headers as Record<string, string>);
        verified = state.secret !== '';
      } catch {
        verified = false;
      }
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const got: Received = {
        headers: req.headers,
        body,
        json,
        path: req.url ?? '',
        answered: null,
        order: -1,
        verified,
      };
      const n = received.push(got) - 1;
      const what = state.answer(got, n);
      if (what === 'hang') {
        const end = () => res.destroy();
        hanging.add(end);
        res.on('close', () => hanging.delete(end));
        return;
      }
      const respond = () => {
        got.answered = what.status;
        got.order = answers++;
        res.writeHead(what.status, what.location ? { location: what.location } : {}).end('ok');
      };
      if (what.delayMs) setTimeout(respond, what.delayMs);
      else respond();
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    /** Accepted deliveries (a 2xx answer), in the order they were answered. */
    accepted: () =>
      received
        .filter((r) => r.answered !== null && r.answered >= 200 && r.answered < 300)
        .sort((a, b) => a.order - b.order),
    useSecret(secret: string) {
      state.secret = secret;
    },
    answerWith(fn: (got: Received, n: number) => Answer) {
      state.answer = fn;
    },
    async close() {
      for (const end of hanging) end();
      server.closeAllConnections();
      await new Promise<void>((closed) => server.close(() => closed()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
