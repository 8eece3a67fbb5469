// Benchmark baseline: bare node:http + pg running the same single lookup query as
// GET /app/api/pages/by-path (models/pages/public.ts RESOLVE_SQL). No framework.
import http from 'node:http';
import pg from 'pg';
import { RESOLVE_SQL } from '../../models/pages/public.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
// knex placeholders `?` → pg `$n`.
let index = 0;
const sql = RESOLVE_SQL.replace(/\?/g, () => `$${++index}`);

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const segments = (url.searchParams.get('path') ?? '').split('/');
  try {
    const { rows } = await pool.query<Record<string, unknown>>(sql, [segments, segments, segments.length, segments.length]);
    if (!rows.length) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const { ancestor_titles: _titles, ...page } = rows[0];
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(page));
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`READY ${address.port}\n`);
});
