// Answers only requests addressed to this site (DNS rebinding). A page of another site
// can make its own name resolve to this server's address (127.0.0.1 on a laptop, a LAN
// address): the browser then treats our answers as same-origin for that page, sending
// `Host: attacker.example` and a matching Origin, so the cross-site check alone would
// let it submit the first-run form of a fresh install. The name a browser sends is the
// name it resolved, so refusing every name but ours ends it.
//
// Accepted: the host of BASE_URL (with its port), and the loopback names localhost,
// 127.0.0.1 and [::1] with any port, whatever BASE_URL says. A loopback name cannot come
// from a rebinding (the attacker controls the name, and these are not theirs), and it
// arrives legitimately with another port or beside a BASE_URL: an SSH tunnel
// (`ssh -L 8080:127.0.0.1:3000`), a container's port mapping, nginx's default
// `Host: $proxy_host` in front of a site whose BASE_URL is public, the tests' own
// clients. Behind a trusted proxy (APP_TRUST_PROXY) X-Forwarded-Host names the host,
// as Express reads it. Anything else, or no Host at all, is a 421 with one short line
// naming BASE_URL, for the operator whose domain it is (an empty answer left them
// guessing); it never repeats the name asked.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { warnOnce, type AppContext } from '../lib/context.js';
import { HOST_REFUSED_TEXT } from '../lib/messages.js';

const HOST_REFUSED_WARNING = 'host-check:refused';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };
// A bare host with an optional port: no user info, path or anything else that URL
// parsing would quietly accept and drop (`evil.example@site.test`).
const HOST_SHAPE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

interface HostName {
  hostname: string;
  /** The explicit port, or '' when the Host header names none. */
  port: string;
}

/** The host named by a Host (or X-Forwarded-Host) value, lower-cased; undefined when malformed. */
export function parseHost(value: string | undefined): HostName | undefined {
  if (!value || value.length > 300 || !HOST_SHAPE.test(value)) return undefined;
  try {
    const url = new URL(`http://${value}`);
    // URL drops the port 80 of http: read the port from the value itself.
    const port = /:(\d{1,5})$/.exec(value)?.[1] ?? '';
    return { hostname: url.hostname.toLowerCase(), port: port === '' ? '' : String(Number(port)) };
  } catch {
    return undefined;
  }
}

/** Whether a request for `host` is one this site answers, given its BASE_URL. */
export function isOwnHost(baseUrl: string, host: HostName | undefined): boolean {
  return ownHostTest(baseUrl)(host);
}

/** The test of isOwnHost with BASE_URL parsed once (it runs on every request). */
function ownHostTest(baseUrl: string): (host: HostName | undefined) => boolean {
  const base = new URL(baseUrl);
  const baseName = base.hostname.toLowerCase();
  const basePort = base.port || DEFAULT_PORTS[base.protocol];
  return function isOwn(host) {
    if (!host) return false;
    if (LOOPBACK_NAMES.has(host.hostname)) return true;
    if (host.hostname !== baseName) return false;
    // No port: the scheme's default, which a BASE_URL without a port also means.
    return host.port === '' ? base.port === '' : host.port === basePort;
  };
}

// Distinct Host values remembered by acceptsHostValue (a flood of made-up names only refills it).
const HOST_ANSWERS_KEPT = 64;

/**
 * The host check's answer for a raw Host (or trusted X-Forwarded-Host) value, remembered
 * per value: the hit path (lib/public-hits.ts) asks it on every request it answers.
 */
export function acceptsHostValue(baseUrl: string): (value: string | undefined) => boolean {
  const isOwn = ownHostTest(baseUrl);
  const answers = new Map<string, boolean>();
  return function accepts(value) {
    if (value === undefined) return false;
    let answer = answers.get(value);
    if (answer === undefined) {
      answer = isOwn(parseHost(value));
      if (answers.size >= HOST_ANSWERS_KEPT) answers.clear();
      answers.set(value, answer);
    }
    return answer;
  };
}

/** Refuses (421 Misdirected Request, HOST_REFUSED_TEXT) a request addressed to another host. */
export function createHostCheck(ctx: AppContext): RequestHandler {
  const { baseUrl } = ctx.config;
  const isOwn = ownHostTest(baseUrl);
  return function checkHost(req: Request, res: Response, next: NextFunction): void {
    if (isOwn(parseHost(req.host))) return next();
    warnOnce(
      ctx,
      HOST_REFUSED_WARNING,
      'a request named a host this site does not answer (421): if it is the address people use, set BASE_URL to it. Further refusals are only in the request log.',
      { host: (req.host ?? '').slice(0, 100), baseUrl },
    );
    // Before the security headers: this answer sets its own.
    res
      .status(421)
      .set({ 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' })
      .send(HOST_REFUSED_TEXT);
  };
}
