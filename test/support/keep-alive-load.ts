// Keep-alive clients sending requests without pause until told to stop, for the tests of
// a graceful stop under load. A request is cut when it reached the server and got no
// whole answer: an answer begun and broken, or a reset (or close) after it was sent, on a
// kept-alive socket or on a new connection still in the accept backlog. A refused
// connection (ECONNREFUSED: nothing listens any more) never reached the server.
import http from 'node:http';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface LoadTally {
  answered: number;
  answeredAfterSignal: number;
  /** Answers that said `Connection: close` (the server's stop). */
  closing: number;
  statuses: Set<number>;
  refused: number;
  cut: string[];
  /** Those of `cut` that failed after signalled(). */
  cutAfterSignal: string[];
}

export interface KeepAliveLoad {
  tally: LoadTally;
  /** Resolves once every client has had an answer (its connection accepted and served), or after `timeoutMs`. */
  allServed(timeoutMs?: number): Promise<void>;
  /** From now on, answers count as after the signal. */
  signalled(): void;
  /** Stops the clients and waits for their last requests. */
  stop(): Promise<LoadTally>;
}

export function keepAliveLoad(port: number, clients: number, requests: LoadRequest[]): KeepAliveLoad {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const tally: LoadTally = { answered: 0, answeredAfterSignal: 0, closing: 0, statuses: new Set(), refused: 0, cut: [], cutAfterSignal: [] };
  let signalled = false;
  let running = true;
  let served = 0;
  const cut = (what: string) => {
    tally.cut.push(what);
    if (signalled) tally.cutAfterSignal.push(what);
  };
  const send = (request: LoadRequest) =>
    new Promise<void>((resolve) => {
      let answered = false;
      const req = http.request({ host: '127.0.0.1', port, method: request.method, path: request.path, headers: request.headers, agent }, (res) => {
        answered = true;
        res.resume();
        res.on('end', () => {
          tally.answered++;
          if (signalled) tally.answeredAfterSignal++;
          if (res.headers.connection === 'close') tally.closing++;
          tally.statuses.add(res.statusCode ?? 0);
          resolve();
        });
        res.on('error', (error) => {
          cut(`${request.method} answer broken: ${error.message}`);
          resolve();
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (!answered && error.code === 'ECONNREFUSED') tally.refused++;
        else if (!answered)
          tally.cut.push(`${request.method} ${error.code ?? error.message} after sending, on a ${req.reusedSocket ? 'kept-alive socket' : 'new connection'}`);
        resolve();
      });
      req.end(request.body);
    });
  const loops = Array.from({ length: clients }, async (_, index) => {
    const before = tally.answered;
    for (let turn = index; running; turn++) {
      await send(requests[turn % requests.length]);
      if (turn === index && tally.answered > before) served++;
    }
  });
  return {
    tally,
    async allServed(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (served < clients && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    signalled: () => (signalled = true),
    async stop() {
      running = false;
      await Promise.all(loops);
      agent.destroy();
      return tally;
    },
  };
}
