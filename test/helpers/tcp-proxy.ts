import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy of the test's own between opentill and a service it depends on (PostgreSQL, Redis,
 * SMTP), to fail that service as an operator would see it fail, without touching the machine's own:
 * - `cut()`: the service stops. Every open connection is closed and new ones are refused
 *   (ECONNREFUSED), as after a crash or while a database restarts.
 * - `drop()`: as `cut()`, but each new connection is accepted and closed at once (counted in
 *   `connections`), as a server that is shutting down or starting answers.
 * - `hold()`: the service goes silent. New connections are accepted and never answered, as a hung
 *   server or a black-holed network does.
 * - `restore()`: the service is back.
 */
export interface TcpProxy {
  port: number;
  /** Connections opened through the proxy so far. */
  connections: number;
  cut(): Promise<void>;
  drop(): Promise<void>;
  hold(): void;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let holding = false;
  let dropping = false;
  let server: Server | undefined;
  const proxy: TcpProxy = {
    port: 0,
    connections: 0,
    async cut() {
      holding = dropping = false;
      // The listener closes once its connections are gone: those are closed meanwhile. (Not with an RST:
      // a socket reset while it connects can leave a handle that never closes, and the process spinning at exit.)
      const closed = stopListening();
      for (const socket of open) socket.destroy();
      open.clear();
      await closed;
    },
    async drop() {
      await proxy.cut();
      dropping = true;
      await listen(proxy.port);
    },
    hold() {
      holding = true;
    },
    async restore() {
      holding = dropping = false;
      if (!server) await listen(proxy.port);
    },
    async close() {
      await proxy.cut();
    },
  };
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const accept = (client: Socket) => {
    proxy.connections++;
    track(client);
    if (dropping) return client.destroy();
    // Held: accepted, read and never answered.
    if (holding) return client.resume();
    // No Nagle on either leg: a chatty protocol (SMTP) would wait for delayed ACKs at every turn.
    client.setNoDelay(true);
    const upstream = connect({ port: target.port, host: target.host, noDelay: true });
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      const listening = createServer(accept);
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => {
        server = listening;
        proxy.port = (listening.address() as AddressInfo).port;
        resolve();
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      const listening = server;
      server = undefined;
      if (!listening) return resolve();
      listening.close(() => resolve());
    });
  await listen(0);
  return proxy;
}
