// The baseline of bench:shutdown: a plain node:http server that stops the usual naive
// way (server.close(), then exit), which waits for idle keep-alive sockets to time out.
import http from 'node:http';

const server = http.createServer((_req, res) => {
  res.setHeader('Content-Type', 'text/plain');
  res.end('ok');
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('server listening'));
process.on('SIGTERM', () => {
  const force = setTimeout(() => process.exit(1), 10_000);
  force.unref();
  server.close(() => process.exit(0));
});
