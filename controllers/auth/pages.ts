// The GET pages of /auth. A GET never changes state: links from emails only pre-fill
// the form, which the visitor submits with one button (mail scanners follow links).
import type { Request, Response } from 'express';
import { isTokenValid, type TokenKind } from '../../models/auth/verifications.js';
import { authMessages } from '../../models/auth/messages.js';
import { authPageMessages, type AuthPage } from './messages.js';
import { renderAuthPage } from './render.js';

function queryString(req: Request, key: string): string {
  const value = req.query[key];
  return typeof value === 'string' ? value.slice(0, 500) : '';
}

// GET /auth, GET /auth/login, and any unknown segment
export async function showLogin(req: Request, res: Response): Promise<void> {
  const done = queryString(req, 'done');
  await renderAuthPage(req, res, 'login', {
    values: { email: queryString(req, 'email') },
    message: Object.hasOwn(authPageMessages.done, done) ? authPageMessages.done[done] : undefined,
  });
}

// GET /auth/register
export async function showRegister(req: Request, res: Response): Promise<void> {
  await renderAuthPage(req, res, 'register', { closedMessage: authPageMessages.registrationClosed });
}

// GET /auth/forgot
export async function showForgot(req: Request, res: Response): Promise<void> {
  await renderAuthPage(req, res, 'forgot', { values: { email: queryString(req, 'email') } });
}

/** A page opened from an email link: pre-filled, and warned at once when the link is dead. */
function tokenPage(page: AuthPage, kind: TokenKind) {
  return async function showTokenPage(req: Request, res: Response): Promise<void> {
    // The URL carries a token: it must not leak to another site through Referer.
    res.set('Referrer-Policy', 'no-referrer');
    const email = queryString(req, 'email');
    const token = queryString(req, 'token');
    let error: string | undefined;
    if (!email || !token) error = email || token ? authPageMessages.incompleteLink : undefined;
    else if (!(await isTokenValid(kind, email, token))) error = authMessages.invalidOrExpiredLink;
    await renderAuthPage(req, res, page, { values: { email, token }, error, linkInvalid: Boolean(error) && Boolean(token) });
  };
}

// GET /auth/reset?email&token
export const showReset = tokenPage('reset', 'password_reset');
// GET /auth/confirm?email&token
export const showConfirm = tokenPage('confirm', 'email_verification');
// GET /auth/setup?email&token
export const showSetup = tokenPage('setup', 'account_setup');

// GET /auth/logout: the page with the button; the POST logs out.
export async function showLogout(req: Request, res: Response): Promise<void> {
  await renderAuthPage(req, res, 'logout', { user: req.user, noSessionMessage: authPageMessages.noSession });
}
