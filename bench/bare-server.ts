import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The baseline: a bare node:http server answering, for each kind of request, the exact bytes, status
 * and headers opentill answered for one such request. It reads nothing and checks no credential: the
 * answer is chosen by the longest matching path prefix. Started by the benches (bench/servers.ts)
 * with BENCH_ANSWERS naming a JSON file written by `writeAnswers` (bench/load.ts); it prints
 * "listening <port>" once it listens on 127.0.0.1.
 */
export interface KeptAnswer {
  prefix: string;
  status: number;
  headers: Record<string, string>;
  bodyBase64: string;
}

const answers = (JSON.parse(readFileSync(process.env.BENCH_ANSWERS!, 'utf8')) as KeptAnswer[])
  .map((a) => {
    const body = Buffer.from(a.bodyBase64, 'base64');
    return {
      prefix: a.prefix,
      status: a.status,
      body,
      headers: { ...a.headers, 'content-length': String(body.length) },
    };
  })
  .sort((a, b) => b.prefix.length - a.prefix.length);

const server = createServer((request, response) => {
  const answer = answers.find((a) => request.url!.startsWith(a.prefix));
  if (!answer) return response.writeHead(404).end();
  // A request body left unread (a form, a JSON payload) is discarded by node:http once the answer is sent.
  response.writeHead(answer.status, answer.headers);
  response.end(answer.body);
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
