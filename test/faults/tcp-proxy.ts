import { connect, createServer, type AddressInfo, type Socket } from "node:net";

export interface TcpProxyStats {
  /** Bytes written to the target, and read from it and passed on to clients. */
  toTarget: number;
  fromTarget: number;
  /** Connections opened to the target. */
  dialed: number;
}

export interface TcpProxy {
  port: number;
  /** `base` with its host and port replaced by the proxy's, e.g. `proxy.url(cluster.url)`. */
  url: (base: string) => string;
  /**
   * Stops forwarding both ways without closing anything: sockets are paused and what they already
   * read is held; new connections are accepted but not dialed through. Like a stalled server whose
   * kernel still ACKs: keepalive probes succeed, nothing is ever answered.
   */
  freeze: () => void;
  /** Delivers everything held, in order, dials the connections that arrived while frozen, resumes. */
  thaw: () => void;
  readonly frozen: boolean;
  /** Client connections currently open. */
  connections: () => number;
  stats: () => TcpProxyStats;
  /** Destroys every connection and stops listening. */
  close: () => Promise<void>;
}

interface Link {
  client: Socket;
  upstream?: Socket;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let frozen = false;
  const links = new Set<Link>();
  const undialed: Link[] = [];
  // Everything that would have crossed the proxy while frozen, in the order it happened.
  const held: Array<() => void> = [];
  // Sources paused because their destination's buffer is full; thaw must not resume them.
  const blocked = new Set<Socket>();
  const stats: TcpProxyStats = { toTarget: 0, fromTarget: 0, dialed: 0 };

  const whenFlowing = (fn: () => void) => {
    if (frozen) held.push(fn);
    else fn();
  };

  const forward = (src: Socket, dst: Socket, count: (n: number) => void) => {
    const send = (chunk: Buffer) => {
      if (dst.destroyed) return;
      count(chunk.length);
      if (!dst.write(chunk)) {
        blocked.add(src);
        src.pause();
      }
    };
    src.on("data", (chunk: Buffer) => {
      if (frozen) {
        // pause() stops further reads; a chunk already on its way is held, not dropped.
        src.pause();
        held.push(() => send(chunk));
        return;
      }
      send(chunk);
    });
    dst.on("drain", () => {
      blocked.delete(src);
      if (!frozen) src.resume();
    });
    src.on("end", () => whenFlowing(() => dst.end()));
    src.on("close", () => {
      blocked.delete(src);
      whenFlowing(() => {
        if (!dst.writableEnded) dst.destroy();
      });
    });
  };

  const dial = (link: Link) => {
    stats.dialed++;
    const upstream = connect({ host: target.host, port: target.port, allowHalfOpen: true });
    upstream.on("error", () => {});
    link.upstream = upstream;
    forward(link.client, upstream, (n) => (stats.toTarget += n));
    forward(upstream, link.client, (n) => (stats.fromTarget += n));
    upstream.on("close", () => {
      if (link.client.destroyed) links.delete(link);
    });
    if (frozen) upstream.pause();
    else link.client.resume();
  };

  // pauseOnConnect: a connection accepted while frozen must not be read from until thaw.
  const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (client) => {
    client.on("error", () => {});
    const link: Link = { client };
    links.add(link);
    client.on("close", () => {
      if (!link.upstream || link.upstream.destroyed) links.delete(link);
      const i = undialed.indexOf(link);
      if (i >= 0) {
        undialed.splice(i, 1);
        links.delete(link);
      }
    });
    if (frozen) undialed.push(link);
    else dial(link);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    port,
    url: (base) => {
      const u = new URL(base);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    freeze: () => {
      frozen = true;
      for (const { client, upstream } of links) {
        client.pause();
        upstream?.pause();
      }
    },
    thaw: () => {
      if (!frozen) return;
      frozen = false;
      // Held writes go out synchronously, before resume() lets any newer data through.
      for (const fn of held.splice(0)) fn();
      for (const link of undialed.splice(0)) if (!link.client.destroyed) dial(link);
      for (const { client, upstream } of links) {
        if (!blocked.has(client) && !client.destroyed) client.resume();
        if (upstream && !blocked.has(upstream) && !upstream.destroyed) upstream.resume();
      }
    },
    get frozen() {
      return frozen;
    },
    connections: () => [...links].filter((l) => !l.client.destroyed).length,
    stats: () => ({ ...stats }),
    close: async () => {
      held.length = 0;
      undialed.length = 0;
      for (const { client, upstream } of links) {
        client.destroy();
        upstream?.destroy();
      }
      links.clear();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
