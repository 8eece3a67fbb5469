// The one reader of the Cookie header for the cookies this application reads itself (the
// CSRF cookie, the pending second step, a kept form); express-session reads its own.
// `cookie` is the parser Express and express-session already use: one grammar for every
// cookie, values percent-decoded (a malformed escape is kept as sent, never an error).
import type { IncomingHttpHeaders } from 'node:http';
import { parse } from 'cookie';

/** The value of the cookie `name` sent with the request (the first one when sent twice), or undefined. */
export function readCookie(req: { headers: IncomingHttpHeaders }, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header || !header.includes(name)) return undefined;
  return parse(header)[name];
}
