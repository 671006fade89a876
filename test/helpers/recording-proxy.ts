import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback in front of a server, keeping every byte that passes in each direction:
 * what the server received (the requests, exactly as sent, headers and bodies) and what it answered.
 * Tests point browsers and webhook senders at `url` to see everything the server was told.
 */
export interface RecordingProxy {
  url: string;
  port: number;
  /** One entry per connection, in the order they were opened. */
  connections: { toServer: Buffer[]; fromServer: Buffer[] }[];
  /** Every byte the server received, all connections. */
  toServer(): Buffer;
  /** Every byte the server sent back, all connections. */
  fromServer(): Buffer;
  /** The HTTP requests the server received, parsed from the recorded bytes, in each connection's order. */
  requests(): RecordedHttpRequest[];
  close(): Promise<void>;
}

export interface RecordedHttpRequest {
  method: string;
  target: string;
  /** The header block as received, request line included. */
  head: string;
  body: Buffer;
}

/** Splits one connection's bytes into HTTP/1.x requests (Content-Length or chunked bodies). */
export function parseRequests(bytes: Buffer): RecordedHttpRequest[] {
  const requests: RecordedHttpRequest[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end === -1) break;
    const head = bytes.subarray(at, end).toString('latin1');
    const [method = '', target = ''] = head.split('\r\n')[0]!.split(' ');
    const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(head)?.[1]?.trim();
    let pos = end + 4;
    let body: Buffer;
    if (/chunked/i.test(header('transfer-encoding') ?? '')) {
      const chunks: Buffer[] = [];
      for (;;) {
        const lineEnd = bytes.indexOf('\r\n', pos);
        if (lineEnd === -1) break;
        const size = parseInt(bytes.subarray(pos, lineEnd).toString('latin1'), 16);
        pos = lineEnd + 2;
        if (!size) {
          pos = bytes.indexOf('\r\n', pos) + 2; // trailers end with an empty line
          break;
        }
        chunks.push(bytes.subarray(pos, pos + size));
        pos += size + 2;
      }
      body = Buffer.concat(chunks);
    } else {
      const length = Number(header('content-length') ?? 0);
      body = bytes.subarray(pos, pos + length);
      pos += length;
    }
    requests.push({ method, target, head, body: Buffer.from(body) });
    at = pos;
  }
  return requests;
}

export async function startRecordingProxy(target: { host?: string; port: number }): Promise<RecordingProxy> {
  const connections: RecordingProxy['connections'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const record = { toServer: [] as Buffer[], fromServer: [] as Buffer[] };
    connections.push(record);
    const upstream = createConnection({ host: target.host ?? '127.0.0.1', port: target.port });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // A reset on one side ends the other; nothing to report.
      socket.on('error', () => (socket === client ? upstream : client).destroy());
    }
    client.on('data', (chunk: Buffer) => record.toServer.push(Buffer.from(chunk)));
    upstream.on('data', (chunk: Buffer) => record.fromServer.push(Buffer.from(chunk)));
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connections,
    toServer: () => Buffer.concat(connections.flatMap((c) => c.toServer)),
    fromServer: () => Buffer.concat(connections.flatMap((c) => c.fromServer)),
    requests: () => connections.flatMap((c) => parseRequests(Buffer.concat(c.toServer))),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
