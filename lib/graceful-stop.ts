// The graceful stop of one server process under keep-alive traffic (hardening issue):
// every request that reached a socket is answered, none is cut.
//
// 1. Optionally a drain window first (SHUTDOWN_DELAY_MS): /healthz and /readyz answer
//    503 while everything else is served as usual, so a load balancer probing them
//    stops sending new connections before the listening socket closes (a connection
//    still in the accept backlog when it closes is reset by the kernel).
// 2. The connections still waiting in the accept backlog are taken (see
//    acceptBacklogDrained), then the listening socket closes. net.Server's close, not
//    http.Server's: since Node 19 the latter also closes every idle kept-alive socket at
//    once, including sockets whose next request has arrived but not been read yet:
//    their clients got ECONNRESET (41–44 requests of 50 keep-alive clients, and a POST
//    is not retried).
// 3. Every answer from then on carries `Connection: close` (Node closes the socket after
//    it). A kept-alive socket without a request in progress gets IDLE_GRACE_MS to bring
//    its next one (answered, then closed); still idle after that, it is closed.
// 4. Done when the last socket has closed.
import type http from 'node:http';
import net from 'node:net';
import type { Logger } from './logger.js';

/**
 * How long an idle kept-alive socket may wait, once the stop began, for its next request.
 * A client with a next request sends it as soon as it has read the answer: a second
 * covers that on a loaded machine and stays far below the stop's own limit (10 s). A
 * socket idle that long is closed, as keepAliveTimeout would close it.
 */
const IDLE_GRACE_MS = 1000;

const QUIET_TURNS = 2;
const QUIET_MS = 20;
const ACCEPT_DRAIN_MAX_MS = 5000;

interface SocketState {
  /** Requests read on it and not yet answered. */
  active: number;
  idleTimer?: NodeJS.Timeout;
}

export interface GracefulStopOptions {
  logger: Logger;
  /**
   * In a cluster worker: a message round trip to the primary, which accepts the
   * connections and hands them over one at a time (one per acknowledgement), and drops
   * those still queued when the last worker stops listening. Messages keep their order,
   * so a round trip with no connection handed over meanwhile means none was queued.
   */
  primaryRoundTrip?: () => Promise<void>;
  /** Called as the stop begins (probes answer 503 from then on). */
  onStopping(): void;
}

export interface StopRequest {
  /** The drain window, SHUTDOWN_DELAY_MS (0: none). */
  delayMs: number;
}

/** Tracks `server`'s sockets and requests; call the result to stop it (resolves once every socket has closed). */
export function gracefulStop(server: http.Server, options: GracefulStopOptions): (request: StopRequest) => Promise<void> {
  const sockets = new Map<net.Socket, SocketState>();
  const inFlight = new Set<http.ServerResponse>();
  let closing = false;

  let accepted = 0;

  const closeWhenIdle = (socket: net.Socket, state: SocketState) => {
    clearTimeout(state.idleTimer);
    state.idleTimer = setTimeout(() => {
      if (state.active === 0) socket.destroy();
    }, IDLE_GRACE_MS);
  };

  // Resolves once no connection waits to be accepted. One process: libuv accepts one
  // connection per turn of the event loop (measured: 50 connections opened at once on a
  // busy server waited up to 3 s in the backlog), and the kernel resets whatever is
  // still there when the listening socket closes; empty means QUIET_TURNS turns and
  // QUIET_MS without a new connection. A cluster worker: two round trips to the primary
  // with no connection handed over meanwhile (the primary hands them over one per turn
  // of the worker's loop: the 25 clients of a stopped worker waited up to 2.4 s in its
  // queue before reaching the last one). Bounded: under a stream of new connections the
  // stop goes on anyway.
  const acceptBacklogDrained = async () => {
    const deadline = Date.now() + ACCEPT_DRAIN_MAX_MS;
    const quietTurn = async () => {
      const before = accepted;
      const startedAt = Date.now();
      if (options.primaryRoundTrip) {
        await options.primaryRoundTrip();
      } else {
        for (let turn = 0; turn < QUIET_TURNS; turn++) await new Promise((resolve) => setImmediate(resolve));
        const left = QUIET_MS - (Date.now() - startedAt);
        if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
      }
      return accepted === before;
    };
    let quiet = 0;
    while (quiet < 2 && Date.now() < deadline) quiet = (await quietTurn()) ? quiet + 1 : 0;
  };

  server.on('connection', (socket: net.Socket) => {
    accepted++;
    const state: SocketState = { active: 0 };
    sockets.set(socket, state);
    socket.once('close', () => {
      clearTimeout(state.idleTimer);
      sockets.delete(socket);
    });
    // Accepted after the listening socket began to close (a connection handed over by
    // the cluster's primary at that instant): it too gets the grace for its request.
    if (closing) closeWhenIdle(socket, state);
  });

  // Registered before the application's handler: the header is set before it answers.
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    const state = sockets.get(socket);
    if (state) {
      state.active++;
      clearTimeout(state.idleTimer);
    }
    if (closing) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      if (!state) return;
      state.active--;
      // An answer begun before the stop kept its socket open: the socket now waits for
      // its next request, which may already be on its way.
      if (closing && state.active === 0 && !socket.destroyed) closeWhenIdle(socket, state);
    });
  });

  let stopped: Promise<void> | undefined;
  return ({ delayMs }) =>
    (stopped ??= (async () => {
      const { logger } = options;
      options.onStopping();
      if (delayMs > 0) {
        logger.info({ delayMs }, 'stopping: /healthz and /readyz answer 503, requests are still served until the drain window ends');
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
      await acceptBacklogDrained();
      logger.info({ inFlight: inFlight.size, connections: sockets.size }, 'stopping: no new connections, finishing requests in flight');
      const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
      // In a cluster, once the primary has taken this worker out of its round robin: the
      // clients that `Connection: close` sends elsewhere must not reach a listening
      // socket that nobody accepts from any more.
      await options.primaryRoundTrip?.();
      closing = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      for (const [socket, state] of sockets) if (state.active === 0) closeWhenIdle(socket, state);
      await closed;
    })());
}
