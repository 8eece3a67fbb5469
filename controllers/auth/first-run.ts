import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../../lib/context.js';
import { UserFacingError } from '../../lib/errors.js';
import { setupCodeMatches, setupCodeRequired } from '../../lib/setup-code.js';
import type { Call } from '../../routes/define.js';
import { logInSession } from '../../middleware/session.js';
import { authMessages } from '../../models/auth/messages.js';
import { createFirstAdmin, needsFirstRun } from '../../models/auth/registration.js';
import { authPageMessages } from './messages.js';
import { answerRedirect } from './render.js';
import type { FirstRunBody } from './schemas.js';
import { rememberDevice } from './known-device.js';
import { SETTINGS_MODULE } from '../../models/settings/store.js';
import { changeSettings } from '../../services/site-settings.js';
import { applyFirstRunChoices } from '../../services/first-run-choices.js';

/** The hidden field by which the first-run form names itself (views/auth/first-run.njk). */
const FIRST_RUN_FORM = { field: '_form', value: 'first-run' } as const;

function isFirstRunForm(req: Request): boolean {
  return ((req.body ?? {}) as Record<string, unknown>)[FIRST_RUN_FORM.field] === FIRST_RUN_FORM.value;
}

/**
 * While no account exists, every form POST of /auth is the first-run form. Once one
 * exists, the row passes the request on (a login), unless the first-run form itself
 * was sent, from a tab opened before: that one is answered by the row, and refused.
 */
export function createFirstRunGate(ctx: AppContext): RequestHandler {
  return async function onlyDuringFirstRun(req: Request, _res: Response, next: NextFunction): Promise<void> {
    next((await needsFirstRun(ctx)) || isFirstRunForm(req) ? undefined : 'route');
  };
}

/** After the form's checks: a first-run form sent once an account exists reads SPEC's «Le compte administrateur existe déjà». */
export function createStaleFirstRunRefusal(ctx: AppContext): RequestHandler {
  return async function refuseStaleFirstRun(_req: Request, _res: Response, next: NextFunction): Promise<void> {
    next((await needsFirstRun(ctx)) ? undefined : new UserFacingError(authMessages.adminAlreadyExists, { code: 'admin_exists' }));
  };
}

// POST /auth, POST /auth/:segment while app_auth_users is empty
export async function handleFirstRun({ ctx, origin, req, res, body }: Call<{ segment?: string }, Record<string, never>, FirstRunBody>): Promise<void> {
  const setupCodeAsked = setupCodeRequired(ctx.config);
  if (setupCodeAsked && !setupCodeMatches(ctx.memo.setupCode, body.setupCode)) {
    throw new UserFacingError(authPageMessages.setupCodeWrong, {
      code: 'setup_code_wrong',
      details: [{ field: 'setupCode', message: authPageMessages.setupCodeWrong }],
    });
  }
  const user = await createFirstAdmin(ctx, { name: body.name, email: body.email, password: body.password, ip: origin.ip, setupCodeAsked });
  // The site's title, when the settings module is there to keep it (empty: APP_NAME stays).
  if (body.siteTitle && ctx.site.modules.includes(SETTINGS_MODULE)) {
    await changeSettings(ctx, { ...origin, userId: user.id, name: user.name }, { title: body.siteTitle });
  }
  await applyFirstRunChoices(ctx, { id: user.id, name: user.name, ip: origin.ip }, (field) => body[field] === true);
  await logInSession(req, user, { method: 'password' });
  rememberDevice(ctx, req, res, user.id);
  answerRedirect(req, res, '/admin', { user });
}
