// The GET pages of /auth. A GET never changes state: links from emails only pre-fill
// the form, which the visitor submits with one button (mail scanners follow links).
import type { Call } from '../../routes/define.js';
import { authMessages } from '../../models/auth/messages.js';
import { isTokenValid, type TokenKind } from '../../models/auth/verifications.js';
import { authPageMessages, type AuthPage } from './messages.js';
import { renderAuthPage } from './render.js';
import type { PageQuery } from './schemas.js';

export type PageCall = Call<{ segment?: string }, PageQuery>;

// GET /auth, GET /auth/login, and any unknown segment
export async function showLogin({ ctx, req, res, query }: PageCall): Promise<void> {
  const done = query.done ?? '';
  await renderAuthPage(ctx, req, res, 'login', {
    values: { email: query.email ?? '' },
    message: Object.hasOwn(authPageMessages.done, done) ? authPageMessages.done[done] : undefined,
  });
}

// GET /auth/register
export async function showRegister({ ctx, req, res }: PageCall): Promise<void> {
  await renderAuthPage(ctx, req, res, 'register', { closedMessage: authPageMessages.registrationClosed });
}

// GET /auth/forgot
export async function showForgot({ ctx, req, res, query }: PageCall): Promise<void> {
  await renderAuthPage(ctx, req, res, 'forgot', { values: { email: query.email ?? '' } });
}

/** A page opened from an email link: pre-filled, and warned at once when the link is dead. */
function tokenPage(page: AuthPage, kind: TokenKind) {
  return async function showTokenPage({ ctx, req, res, query }: PageCall): Promise<void> {
    // The URL carries a token: it must not leak to another site through Referer.
    res.set('Referrer-Policy', 'no-referrer');
    const email = query.email ?? '';
    const token = query.token ?? '';
    let error: string | undefined;
    if (!email || !token) error = email || token ? authPageMessages.incompleteLink : undefined;
    else if (!(await isTokenValid(ctx, kind, email, token))) error = authMessages.invalidOrExpiredLink;
    await renderAuthPage(ctx, req, res, page, { values: { email, token }, error, linkInvalid: Boolean(error) && Boolean(token) });
  };
}

// GET /auth/reset?email&token
export const showReset = tokenPage('reset', 'password_reset');
// GET /auth/confirm?email&token
export const showConfirm = tokenPage('confirm', 'email_verification');
// GET /auth/setup?email&token
export const showSetup = tokenPage('setup', 'account_setup');

// GET /auth/logout: the page with the button; the POST logs out.
export async function showLogout({ ctx, req, res }: PageCall): Promise<void> {
  await renderAuthPage(ctx, req, res, 'logout', logoutLocals(req.user));
}

/** What the logout page shows: the button for a logged-in user, a notice otherwise. */
export function logoutLocals(user: unknown): Record<string, unknown> {
  return { user, noSessionMessage: authPageMessages.noSession };
}
