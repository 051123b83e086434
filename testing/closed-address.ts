import { createServer, type Server } from 'node:net';

/**
 * An address where nothing listens, held for the test that needs one: a server of this process
 * binds 127.0.0.1 on a port of its own choosing (port 0) and keeps it, and the address handed out
 * is 127.0.0.2 on that port. A connection there is refused (loopback, nothing bound to it), and no
 * other process can take the port meanwhile (binding 0.0.0.0 or 127.0.0.1 on it fails with
 * EADDRINUSE): unlike a port found free and released, nothing can start listening there by chance.
 */
export interface ClosedAddress {
  readonly host: string;
  readonly port: number;
  /** `http://127.0.0.2:<port>` */
  readonly url: string;
  release(): Promise<void>;
}

export async function closedAddress(): Promise<ClosedAddress> {
  // Connections to the held socket itself are never made (the address given is another), but
  // anything that arrives is closed at once.
  const holder: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address() as { port: number };
  return {
    host: '127.0.0.2',
    port,
    url: `http://127.0.0.2:${port}`,
    release: () => new Promise<void>((resolve) => holder.close(() => resolve())),
  };
}
