import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The baseline: a bare node:http server that answers every request with the exact bytes and
 * content-type opentill answered for one transaction. It ignores the path and the credential.
 * Started by bench/transaction-read.ts with BENCH_BODY_BASE64 and BENCH_CONTENT_TYPE; it prints
 * "listening <port>" once it listens on 127.0.0.1.
 */
const body = Buffer.from(process.env.BENCH_BODY_BASE64 ?? '', 'base64');
const contentType = process.env.BENCH_CONTENT_TYPE ?? 'application/json; charset=utf-8';
const headers = { 'content-type': contentType, 'content-length': String(body.length) };

const server = createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
});
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
