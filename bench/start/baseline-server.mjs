// bench:start's baseline: bare node:http + pg, started the way `node dist/app.js` is
// (plain JavaScript, no loader): connect, listen, answer the public page with one query.
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const escape = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const server = http.createServer(async (req, res) => {
  try {
    const slug = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname.slice(1));
    const { rows } = await pool.query('SELECT title FROM app_pages WHERE parent_id IS NULL AND slug = $1', [slug]);
    if (!rows.length) return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><title>${escape(rows[0].title)}</title><h1>${escape(rows[0].title)}</h1>`);
  } catch (error) {
    res.writeHead(500).end(String(error));
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
