import net from 'node:net';
import { expect } from 'chai';
import { testDatabase } from '../support/database.js';
import { spawnServer, waitForListening, type ServerProcess } from '../support/server-process.js';

/** Reads from the socket until `done` says the bytes so far hold a whole answer. */
function readAnswer(socket: net.Socket, done: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (!done(text)) return;
      socket.off('data', onData);
      resolve(text);
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

const whole = (text: string) => {
  const [head, body] = text.split('\r\n\r\n');
  const length = /content-length: (\d+)/i.exec(head ?? '')?.[1];
  return body !== undefined && length !== undefined && Buffer.byteLength(body) >= Number(length);
};

async function waitForOutput(server: ServerProcess, text: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!server.output().includes(text)) {
    if (Date.now() > deadline) throw new Error(`no "${text}" in:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('GET /healthz during a graceful stop', () => {
  it('answers 503 with Connection: close to a probe arriving on an open keep-alive socket after SIGTERM', async function () {
    this.timeout(40_000);
    const { url, scratchDir } = testDatabase();
    const server = await spawnServer({ DATABASE_URL: url, DATA_DIR: scratchDir, SESSION_SECRET: 'y'.repeat(40), PASSWORD_HASH_COST: '4' });
    try {
      await waitForListening(server);
      const socket = net.connect(server.port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const probe = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n';

      socket.write(probe + '\r\n');
      const before = await readAnswer(socket, whole);
      expect(before).to.match(/^HTTP\/1\.1 200 /);
      expect(before).to.match(/connection: keep-alive/i);

      // The next probe has begun on this socket when the signal lands: the socket is not
      // idle, so the stop keeps it open until its request is answered.
      socket.write(probe);
      await new Promise((resolve) => setTimeout(resolve, 200));
      server.child.kill('SIGTERM');
      await waitForOutput(server, 'stopping: no new connections');
      const answer = readAnswer(socket, whole);
      socket.write('\r\n');
      const during = await answer;
      expect(during).to.match(/^HTTP\/1\.1 503 /);
      expect(during).to.match(/connection: close/i);
      expect(during.split('\r\n\r\n')[1]).to.equal('{"status":"stopping"}');

      expect(await server.exited).to.equal(0);
      // Probes are machine traffic: their request lines stay below info.
      const requestLines = server
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"'));
      expect(requestLines.filter((line) => line.includes('/healthz'))).to.deep.equal([]);
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });
});
