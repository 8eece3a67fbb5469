// The graceful stop of one server process under keep-alive traffic (hardening issue):
// every request that reached a socket is answered, none is cut.
//
// 1. Optionally a drain window first (SHUTDOWN_DELAY_MS): /healthz and /readyz answer
//    503 while everything else is served as usual, so a load balancer probing them
//    stops sending new connections before the listening socket closes (a connection
//    still in the accept backlog when it closes is reset by the kernel).
// 2. The connections still waiting in the accept backlog are taken (see
//    acceptBacklogDrained), then the listening socket closes. net.Server's close, not http.Server's: since Node 19
//    the latter also closes every idle kept-alive socket at once, including sockets
//    whose next request has arrived but not been read yet: their clients got
//    ECONNRESET (41–44 requests of 50 keep-alive clients, and a POST is not retried).
// 3. Every answer from then on carries `Connection: close` (Node closes the socket after
//    it). A kept-alive socket without a request in progress gets IDLE_GRACE_MS to bring
//    its next one (answered, then closed); still idle after that, it is closed.
// 4. Done when the last socket has closed.
import type http from 'node:http';
import net from 'node:net';
import type { Logger } from './logger.js';

/**
 * How long an idle kept-alive socket may wait, once the stop began, for its next request.
 * Far longer than a client takes between an answer and its next request on a busy
 * socket (under 50 ms measured with 50 clients on two cores), far shorter than the
 * stop's own limit; a socket idle that long is closed, as keepAliveTimeout would.
 */
export const IDLE_GRACE_MS = 1000;

const QUIET_TURNS = 2;
const QUIET_MS = 20;
const ACCEPT_DRAIN_MAX_MS = 2000;

interface SocketState {
  /** Requests read on it and not yet answered. */
  active: number;
  idleTimer?: NodeJS.Timeout;
}

export interface GracefulStopOptions {
  logger: Logger;
  /** Called as the stop begins (probes answer 503 from then on). */
  onStopping(): void;
  idleGraceMs?: number;
}

export interface StopRequest {
  /** The drain window, SHUTDOWN_DELAY_MS (0: none). */
  delayMs: number;
}

/** Tracks `server`'s sockets and requests; call the result to stop it (resolves once every socket has closed). */
export function gracefulStop(server: http.Server, options: GracefulStopOptions): (request: StopRequest) => Promise<void> {
  const idleGraceMs = options.idleGraceMs ?? IDLE_GRACE_MS;
  const sockets = new Map<net.Socket, SocketState>();
  const inFlight = new Set<http.ServerResponse>();
  let closing = false;
  let lastAcceptAt = 0;
  let acceptTurns = 0;

  // Resolves once the accept backlog is empty: libuv accepts one connection per turn of
  // the event loop (measured: 50 connections opened at once on a busy server waited up
  // to 3 s in the backlog), and the kernel resets whatever is still there when the
  // listening socket closes. Empty means: QUIET_TURNS turns and QUIET_MS without a new
  // connection (in a cluster worker they come from the primary's queue, one per message
  // round trip). Bounded: under a stream of new connections the stop goes on anyway.
  const acceptBacklogDrained = async () => {
    const deadline = Date.now() + ACCEPT_DRAIN_MAX_MS;
    acceptTurns = 0;
    while (Date.now() < deadline && (acceptTurns < QUIET_TURNS || Date.now() - lastAcceptAt < QUIET_MS)) {
      await new Promise((resolve) => setImmediate(resolve));
      acceptTurns++;
      if (acceptTurns >= QUIET_TURNS && Date.now() - lastAcceptAt < QUIET_MS) await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    }
  };

  const closeWhenIdle = (socket: net.Socket, state: SocketState) => {
    clearTimeout(state.idleTimer);
    state.idleTimer = setTimeout(() => {
      if (state.active === 0) socket.destroy();
    }, idleGraceMs);
  };

  server.on('connection', (socket: net.Socket) => {
    lastAcceptAt = Date.now();
    acceptTurns = 0;
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
      closing = true;
      const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      for (const [socket, state] of sockets) if (state.active === 0) closeWhenIdle(socket, state);
      await closed;
    })());
}
