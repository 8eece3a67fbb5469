// Answers recorded from the running application for the bare baselines of bench:pages:
// the node:http server (bytes-server.ts) replays them, nginx serves their bodies as
// static files (nginx.ts).
import http from 'node:http';

export interface RecordedAnswer {
  status: number;
  /** Flat `[name, value, …]` as sent, without Date and the connection's headers. */
  headers: string[];
  body: Buffer;
}

// Node writes these itself on every answer.
const NODE_OWN = new Set(['date', 'connection', 'keep-alive']);

/** GET `url` and keep what came back. */
export function recordAnswer(url: string): Promise<RecordedAnswer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers: string[] = [];
          for (let index = 0; index < response.rawHeaders.length; index += 2) {
            if (!NODE_OWN.has(response.rawHeaders[index].toLowerCase())) headers.push(response.rawHeaders[index], response.rawHeaders[index + 1]);
          }
          resolve({ status: response.statusCode!, headers, body: Buffer.concat(chunks) });
        });
      })
      .on('error', reject);
  });
}

/** URL path (with its query) → answer, as JSON. */
export function writeRecordedAnswers(answers: Map<string, RecordedAnswer>): string {
  return JSON.stringify([...answers].map(([url, answer]) => ({ url, status: answer.status, headers: answer.headers, body: answer.body.toString('base64') })));
}

export function readRecordedAnswers(json: string): Map<string, RecordedAnswer> {
  const rows = JSON.parse(json) as Array<{ url: string; status: number; headers: string[]; body: string }>;
  return new Map(rows.map((row) => [row.url, { status: row.status, headers: row.headers, body: Buffer.from(row.body, 'base64') }]));
}
