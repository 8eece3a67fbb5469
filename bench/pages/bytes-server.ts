// Benchmark baseline: bare node:http writing recorded answers (status, headers and
// body as the application sent them from its cache) for their URLs, and nothing else:
// what sending those bytes costs in Node without any framework or lookup beyond a Map.
// BENCH_ANSWERS names the JSON file written by bench/pages/recorded.ts.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { readRecordedAnswers } from './recorded.js';

const answers = readRecordedAnswers(readFileSync(process.env.BENCH_ANSWERS ?? '', 'utf8'));

const server = http.createServer((req, res) => {
  const answer = answers.get(req.url ?? '');
  if (!answer) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`READY ${address.port}\n`);
});
