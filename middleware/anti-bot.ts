// Anti-bot checks of the public forms (SPEC "Authentication" 5): the honeypot `_hp`
// must stay empty, and `_t`, the time the form was rendered, signed by the server,
// must be at least 1.5 s and at most 10 minutes old. A missing or forged `_t` is
// refused. Those refusals look like any other form failure (400, one vague message),
// so a bot learns nothing about which check caught it. A form sent too soon is the
// exception: a password manager's autofill-and-submit does that, so the page says what
// happened, gives back everything typed (the password too, in that answer only:
// routes/form-failure.ts) and the form can be sent again as it stands. A bot learns only
// to wait 1.5 s, which the signed render time makes it do anyway.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../lib/context.js';
import { UserFacingError } from '../lib/errors.js';
import { lazyLocal } from './csrf.js';
import { antiBotMessage, tooFastMessage } from '../lib/messages.js';

const ANTI_BOT_MIN_AGE_MS = 1500;
const ANTI_BOT_MAX_AGE_MS = 10 * 60_000;
/** The code of a form sent before ANTI_BOT_MIN_AGE_MS: its re-render keeps the passwords typed. */
export const FORM_TOO_FAST = 'form_too_fast';

export interface AntiBot {
  /** res.locals.formTimestamp for the forms of the page, made when the page renders. */
  provideTimestamp: RequestHandler;
  /** Refuses (400) a filled honeypot or a missing, forged or too old `_t` (form_rejected), and a too young one (form_too_fast). */
  refuseBots: RequestHandler;
}

export function createAntiBot(ctx: AppContext): AntiBot {
  const { sessionSecret } = ctx.config;
  const sign = (renderedAt: string) => createHmac('sha256', sessionSecret).update(`form-time:${renderedAt}`).digest('base64url');

  /** The `_t` value for a form rendered now. */
  function formTimestamp(): string {
    const renderedAt = String(ctx.clock.nowMs());
    return `${renderedAt}.${sign(renderedAt)}`;
  }

  /** How old a submitted `_t` is, or undefined when it is missing or forged. */
  function formAgeMs(stamp: unknown): number | undefined {
    if (typeof stamp !== 'string' || stamp.length > 100) return undefined;
    const [renderedAt, mac] = stamp.split('.');
    if (!renderedAt || !mac || !/^\d{1,16}$/.test(renderedAt)) return undefined;
    const expected = Buffer.from(sign(renderedAt));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    return ctx.clock.nowMs() - Number(renderedAt);
  }

  function provideTimestamp(_req: Request, res: Response, next: NextFunction): void {
    lazyLocal(res, 'formTimestamp', formTimestamp);
    next();
  }

  function refuseBots(req: Request, _res: Response, next: NextFunction): void {
    const body = (req.body ?? {}) as { _hp?: unknown; _t?: unknown };
    const honeypot = body._hp;
    const age = formAgeMs(body._t);
    const refused = (honeypot !== undefined && honeypot !== '') || age === undefined || age > ANTI_BOT_MAX_AGE_MS;
    if (refused) return next(new UserFacingError(antiBotMessage, { code: 'form_rejected' }));
    if (age < ANTI_BOT_MIN_AGE_MS) return next(new UserFacingError(tooFastMessage, { code: FORM_TOO_FAST }));
    next();
  }

  return { provideTimestamp, refuseBots };
}
