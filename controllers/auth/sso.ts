// Single sign-on (services/sso.ts): the start, the provider's callback, and the page
// where an existing account proves itself before it is linked. The flow's cookie
// (state, nonce, PKCE verifier, sealed) lives ten minutes and is cleared by the
// callback; the link's cookie holds the pending link's token (15 minutes).
import type { Request, Response } from 'express';
import type { AppContext } from '../../lib/context.js';
import { readCookie } from '../../lib/cookies.js';
import { cookieName, cookieOptions } from '../../lib/cookie-names.js';
import { UserFacingError } from '../../lib/errors.js';
import { logInSession } from '../../middleware/session.js';
import { ssoMessages } from '../../models/auth/messages.js';
import type { SessionUser } from '../../models/auth/users.js';
import { TOKEN_LIFETIMES_MS } from '../../models/auth/verifications.js';
import type { Call } from '../../routes/define.js';
import { passwordSignIn } from '../../services/sign-in-guard.js';
import {
  assertSsoAllowed,
  completeLink,
  finishSsoSignIn,
  pendingLink,
  sendLinkEmail,
  SSO_FLOW_LIFETIME_MS,
  startSsoSignIn,
  type PendingLink,
} from '../../services/sso.js';
import { knownDeviceOf, rememberDevice } from './known-device.js';
import { answerWithMessage, renderAuthPage, safeNextPath } from './render.js';
import type { PageQuery } from './schemas.js';
import { askSecondFactor, landingOf } from './two-factor.js';

const FLOW_COOKIE = 'site.sso';
const LINK_COOKIE = 'site.sso-link';

function cookieOf(ctx: AppContext, req: Request, base: string): string | undefined {
  const value = readCookie(req, cookieName(ctx.config, req, base));
  return value !== undefined && value.length <= 4000 ? value : undefined;
}

/**
 * Opens the session as a password login does (same cookie, `auth.login` with the
 * method), unless the account has two-step verification and the provider did not
 * assert more than one factor (`amr`): then the code is asked, as after a password.
 */
async function signIn(
  ctx: AppContext,
  req: Request,
  res: Response,
  user: SessionUser,
  providerId: number,
  mfa: boolean,
  next: string | undefined,
): Promise<void> {
  if (user.second_factor_enabled && !mfa) return askSecondFactor(ctx, req, res, user.id, next, { method: 'sso', provider: providerId });
  await logInSession(req, user, { method: 'sso', provider: providerId, ...(mfa ? { second_factor: 'provider' as const } : {}) });
  rememberDevice(ctx, req, res, user.id);
  res.redirect(303, landingOf(user, next, mfa));
}

// GET /auth/sso/:provider — 303 to the provider's authorization endpoint.
export async function startSso({ ctx, origin, req, res, params, query }: Call<{ provider: number }, { next?: string }>): Promise<void> {
  const { url, flow } = await startSsoSignIn(ctx, origin, params.provider, safeNextPath(query.next));
  res.cookie(cookieName(ctx.config, req, FLOW_COOKIE), flow, cookieOptions(req, { maxAge: SSO_FLOW_LIFETIME_MS }));
  res.redirect(303, url);
}

// GET /auth/sso/:provider/callback — the provider's answer: a session, the link page, or a refusal page.
export async function finishSso({ ctx, origin, req, res, params }: Call<{ provider: number }>): Promise<void> {
  // Used once whatever happens: a replayed callback finds no flow.
  res.clearCookie(cookieName(ctx.config, req, FLOW_COOKIE), cookieOptions(req));
  const currentUrl = new URL(req.originalUrl, ctx.config.baseUrl);
  const outcome = await finishSsoSignIn(ctx, origin, params.provider, currentUrl, cookieOf(ctx, req, FLOW_COOKIE));
  if (outcome.kind === 'link') {
    res.cookie(cookieName(ctx.config, req, LINK_COOKIE), outcome.linkToken, cookieOptions(req, { maxAge: TOKEN_LIFETIMES_MS.sso_link }));
    res.redirect(303, '/auth/sso/link');
    return;
  }
  await signIn(ctx, req, res, outcome.user, outcome.provider.id, outcome.mfa, outcome.next);
}

function linkLocals(link: PendingLink | undefined): Record<string, unknown> {
  if (!link) return { gone: true, goneMessage: ssoMessages.linkGone };
  return { provider: link.provider.label, accountEmail: link.user.email };
}

// GET /auth/sso/link — «Lier le compte»: the existing account proves itself (its password, or a link by email).
export async function showSsoLink({ ctx, req, res }: Call<Record<string, never>, PageQuery>): Promise<void> {
  const link = await pendingLink(ctx, 'sso_link', cookieOf(ctx, req, LINK_COOKIE));
  await renderAuthPage(ctx, req, res, 'sso-link', linkLocals(link));
}

/** The re-render of the link page after a wrong password. */
export async function rerenderSsoLink(call: Call, locals: Record<string, unknown>, status: number): Promise<void> {
  const { ctx, req, res } = call;
  const link = await pendingLink(ctx, 'sso_link', cookieOf(ctx, req, LINK_COOKIE));
  await renderAuthPage(ctx, req, res, 'sso-link', { ...locals, ...linkLocals(link) }, status);
}

// POST /auth/sso/link {password} — the account's password proves it: linked, then signed in.
export async function proveSsoLinkByPassword({
  ctx,
  origin,
  req,
  res,
  body,
}: Call<Record<string, never>, Record<string, never>, { password: string }>): Promise<void> {
  const token = cookieOf(ctx, req, LINK_COOKIE);
  const link = await pendingLink(ctx, 'sso_link', token);
  if (!link || !token) throw new UserFacingError(ssoMessages.linkGone, { code: 'sso_link_gone' });
  // The password step of a login: its budgets, its refusals, its one hash. The password
  // proves the account; the session is the provider's, so the provider's policy applies.
  const user = await passwordSignIn(ctx, origin, link.user.email, body.password, knownDeviceOf(ctx, req), { policy: false });
  await assertSsoAllowed(ctx, origin, link.provider, user.id);
  await completeLink(ctx, origin, 'sso_link', token, 'password');
  res.clearCookie(cookieName(ctx.config, req, LINK_COOKIE), cookieOptions(req));
  await signIn(ctx, req, res, user, link.provider.id, link.mfa, link.next);
}

// POST /auth/sso/link/email — «Recevoir un lien par courriel»: sent to the account's address.
export async function proveSsoLinkByEmail({ ctx, origin, req, res }: Call): Promise<void> {
  await sendLinkEmail(ctx, origin, cookieOf(ctx, req, LINK_COOKIE));
  res.clearCookie(cookieName(ctx.config, req, LINK_COOKIE), cookieOptions(req));
  await answerWithMessage(ctx, req, res, 'sso-link', ssoMessages.linkEmailSent, { sent: true });
}

// GET /auth/sso/link/confirm?email&token — the emailed link's page: one button (a GET changes nothing).
export async function showSsoLinkConfirm({ ctx, req, res, query }: Call<Record<string, never>, PageQuery>): Promise<void> {
  const link = query.token ? await pendingLink(ctx, 'sso_link_email', query.token) : undefined;
  await renderAuthPage(ctx, req, res, 'sso-link-confirm', { ...linkLocals(link), values: { email: query.email, token: query.token } });
}

// POST /auth/sso/link/confirm {email, token} — the mailbox proves the account: linked; the sign-in is then made with the provider.
export async function confirmSsoLinkByEmail({
  ctx,
  origin,
  req,
  res,
  body,
}: Call<Record<string, never>, Record<string, never>, { email: string; token: string }>): Promise<void> {
  const link = await completeLink(ctx, origin, 'sso_link_email', body.token, 'email');
  await answerWithMessage(ctx, req, res, 'login', ssoMessages.linkProved(link.provider.label));
}
