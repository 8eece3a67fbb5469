// Shared by the /auth controllers: rendering a page of the card (choosing the
// first-run form while no account exists), the re-render of a refused form, and
// answering a form success as HTML or JSON.
import type { Request, Response } from 'express';
import type { AppContext } from '../../lib/context.js';
import { setupCodeRequired } from '../../lib/setup-code.js';
import type { AnyCall, FormLocals, FormSpec } from '../../routes/define.js';
import { wantsJson } from '../../middleware/error-handler.js';
import { isRegistrationOpen, needsFirstRun } from '../../models/auth/registration.js';
import { listSsoProviders } from '../../models/auth/sso-providers.js';
import { authPageMessages, authPageTexts, type AuthPage } from './messages.js';

export interface PageLocals extends FormLocals {
  message?: string;
}

/**
 * Renders one page of the card. While no account exists every page is the first-run
 * form (SPEC A1 rule 1), whatever the segment; once one exists that form is gone, and
 * its refusal (a tab opened before) shows on the login page.
 */
export async function renderAuthPage(ctx: AppContext, req: Request, res: Response, page: AuthPage, locals: PageLocals = {}, status = 200): Promise<void> {
  const firstRun = await needsFirstRun(ctx);
  const shown: AuthPage = firstRun ? 'first-run' : page === 'first-run' ? 'login' : page;
  const texts = authPageTexts[shown];
  res.status(status).render(`auth/${shown}.njk`, {
    page: shown,
    pageTitle: texts.title,
    description: texts.description,
    registrationEnabled: firstRun || (await isRegistrationOpen(ctx)),
    passwordRules: authPageMessages.passwordRules,
    setupCode: firstRun && setupCodeRequired(ctx.config) ? { label: authPageMessages.setupCodeLabel, hint: authPageMessages.setupCodeHint } : undefined,
    // The modules' boxes (lib/modules.ts FirstRunChoice), unticked at first.
    firstRunChoices: firstRun ? ctx.site.firstRunChoices.map(({ field, label, hint }) => ({ field, label, hint })) : [],
    next: safeNextPath(((req.body ?? {}) as { next?: unknown }).next ?? req.query.next),
    // One button per enabled single sign-on provider.
    ssoProviders: shown === 'login' ? (await listSsoProviders(ctx, { enabledOnly: true })).map(({ id, label }) => ({ id, label })) : [],
    values: {},
    ...locals,
  });
}

/** The re-render of a refused form: its page again, with the messages and the input. */
export function authForm(page: AuthPage, adjust: (call: AnyCall, locals: FormLocals) => PageLocals = (_call, locals) => locals): FormSpec {
  return {
    name: page,
    rerender: (call, locals, status) => renderAuthPage(call.ctx, call.req, call.res, page, adjust(call, locals), status),
  };
}

/**
 * The form of a page opened from an email link: the link's token goes back into the
 * form (a hidden field), or a refused submission could not be sent again. It is the
 * visitor's own link, already in their address bar; other forms never echo a token.
 */
export function linkForm(page: AuthPage): FormSpec {
  return authForm(page, (call, locals) => {
    const submitted = (call.body as { token?: unknown }).token;
    const token = typeof submitted === 'string' ? submitted.trim() : '';
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(token)) return locals;
    return { ...locals, values: { ...locals.values, token } };
  });
}

/** A same-site path (one leading slash, not `//` nor `/\`), or undefined. */
export function safeNextPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return undefined;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return undefined;
  // Browsers treat a backslash as a slash and ignore tabs and newlines inside URLs.
  if ([...value].some((char) => char === '\\' || char <= '\u001f' || char === '\u007f')) return undefined;
  return value;
}

/** A form success: redirect (303) for a browser, `{success:true,…, redirect}` for JSON. */
export function answerRedirect(req: Request, res: Response, location: string, json: Record<string, unknown> = {}): void {
  if (wantsJson(req)) {
    res.json({ success: true, ...json, redirect: location });
    return;
  }
  res.redirect(303, location);
}

/** A form success shown on a page: the page with its message, or `{success:true, message}` for JSON. */
export async function answerWithMessage(ctx: AppContext, req: Request, res: Response, page: AuthPage, message: string, locals: PageLocals = {}): Promise<void> {
  if (wantsJson(req)) {
    res.json({ success: true, message });
    return;
  }
  await renderAuthPage(ctx, req, res, page, { message, ...locals });
}
