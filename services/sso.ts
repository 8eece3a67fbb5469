// Single sign-on with OpenID Connect providers (issue 27, items 1–2). `openid-client`
// does the protocol: discovery, the authorization code flow with PKCE, `state` and
// `nonce`, and the ID token's checks (signature through the provider's JWKS, issuer,
// audience, expiry, nonce). What the flow needs between the two requests (state, nonce,
// PKCE verifier, where to land) rides in a short-lived HttpOnly cookie, encrypted and
// authenticated under the site key (nothing kept server-side, nothing to sweep).
// Every refusal is audited (`auth.sso_refused`, with its reason) before it is thrown.
import type { Configuration, IDToken } from 'openid-client';
import type { AppContext } from '../lib/context.js';
import { AppError, NotFoundError, ServiceUnavailableError, UserFacingError } from '../lib/errors.js';
import type { Origin } from '../lib/origin.js';
import { inTransaction } from '../lib/context.js';
import { recordAudit, userTarget } from '../models/audit.js';
import { createLinkedUser, findLinkedUser, findSignInUser, linkAccount, type SignInUser } from '../models/auth/linked-accounts.js';
import { allowedMethods, policyRefusalMessage, withoutPolicy } from '../models/auth/sign-in-policy.js';
import { ssoMessages } from '../models/auth/messages.js';
import { findSsoProvider, providerSecret, type SsoProvider } from '../models/auth/sso-providers.js';
import { openWithSiteKey, sealWithSiteKey } from '../models/auth/two-factor-crypto.js';
import { findUserByEmail, type SessionUser } from '../models/auth/users.js';
import { consumeToken, issueToken, peekToken } from '../models/auth/verifications.js';
import { noticeInBackground } from './mail-policy.js';

/** How long a started sign-in may take at the provider. */
export const SSO_FLOW_LIFETIME_MS = 10 * 60_000;
/** How long a discovered configuration is reused before the provider is asked again. */
const DISCOVERY_TTL_MS = 60 * 60_000;
const PROVIDER_TIMEOUT_SECONDS = 10;
const FLOW_OWNER = 'sso-flow';

/** The URL to register at the provider. */
export function callbackUrl(ctx: AppContext, providerId: number): string {
  return `${ctx.config.baseUrl}/auth/sso/${providerId}/callback`;
}

/** A refused single sign-on: its page says why; `reason` is the audit event's. */
class SsoRefusedError extends AppError {
  constructor(
    readonly reason: string,
    message: string,
    status: number,
  ) {
    super(message, { code: `sso_${reason}` });
    this.status = status;
  }
}

interface Flow {
  /** Provider id. */
  p: number;
  s: string;
  n: string;
  v: string;
  /** Where to land afterwards (a same-site path). */
  x?: string;
  /** Expiry, ms. */
  e: number;
}

/** `http://` is accepted for a provider on this machine only, outside production (a development or test provider). */
export function insecureIssuerAllowed(ctx: AppContext, issuer: URL): boolean {
  return issuer.protocol === 'http:' && !ctx.config.isProduction && ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
}

const loadClient = () => import('openid-client');

type Configurations = Map<string, { at: number; config: Promise<Configuration> }>;

function configurations(ctx: AppContext): Configurations {
  let map = ctx.memo.modules.get('sso-configurations') as Configurations | undefined;
  if (!map) ctx.memo.modules.set('sso-configurations', (map = new Map()));
  return map;
}

/** The provider's discovered configuration, reused for an hour and until the provider's row changes; a failure is not kept. */
async function configurationOf(ctx: AppContext, provider: SsoProvider): Promise<Configuration> {
  const key = `${provider.id}:${new Date(provider.updated_at).getTime()}`;
  const cache = configurations(ctx);
  const cached = cache.get(key);
  if (cached && ctx.clock.nowMs() - cached.at < DISCOVERY_TTL_MS) return cached.config;
  for (const old of cache.keys()) if (old.startsWith(`${provider.id}:`)) cache.delete(old);
  const config = (async () => {
    const client = await loadClient();
    const issuer = new URL(provider.issuer);
    const secret = await providerSecret(ctx, provider.id);
    const insecure = insecureIssuerAllowed(ctx, issuer);
    const discovered = await client.discovery(issuer, provider.client_id, undefined, secret === undefined ? client.None() : client.ClientSecretPost(secret), {
      timeout: PROVIDER_TIMEOUT_SECONDS,
      ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
    });
    discovered.timeout = PROVIDER_TIMEOUT_SECONDS;
    return discovered;
  })();
  cache.set(key, { at: ctx.clock.nowMs(), config });
  config.catch(() => cache.delete(key));
  return config;
}

async function refuse(
  ctx: AppContext,
  origin: Origin,
  provider: { id: number } | undefined,
  reason: string,
  error: SsoRefusedError | AppError,
  account?: { id: number; name: string },
): Promise<never> {
  await recordAudit(ctx, {
    actor: null,
    ip: origin.ip,
    action: 'auth.sso_refused',
    target: account ? userTarget(account) : null,
    details: { provider: provider?.id ?? null, reason },
  });
  throw error;
}

async function enabledProvider(ctx: AppContext, origin: Origin, providerId: number): Promise<SsoProvider> {
  const provider = await findSsoProvider(ctx, providerId);
  if (!provider || !provider.enabled) {
    return refuse(
      ctx,
      origin,
      { id: providerId },
      'provider_unavailable',
      new NotFoundError(ssoMessages.providerUnavailable, { code: 'sso_provider_unavailable' }),
    );
  }
  return provider;
}

async function reachableConfiguration(ctx: AppContext, origin: Origin, provider: SsoProvider): Promise<Configuration> {
  try {
    return await configurationOf(ctx, provider);
  } catch (error) {
    ctx.logger.warn({ provider: provider.id, requestId: origin.requestId, reason: (error as Error).message }, 'single sign-on provider unreachable');
    return refuse(ctx, origin, provider, 'provider_down', new ServiceUnavailableError(ssoMessages.providerDown, { code: 'sso_provider_down' }));
  }
}

/** GET /auth/sso/:provider: the provider's authorization URL, and the sealed flow for this browser's cookie. */
export async function startSsoSignIn(ctx: AppContext, origin: Origin, providerId: number, next: string | undefined): Promise<{ url: string; flow: string }> {
  const provider = await enabledProvider(ctx, origin, providerId);
  const config = await reachableConfiguration(ctx, origin, provider);
  const client = await loadClient();
  const flow: Flow = {
    p: provider.id,
    s: client.randomState(),
    n: client.randomNonce(),
    v: client.randomPKCECodeVerifier(),
    e: ctx.clock.nowMs() + SSO_FLOW_LIFETIME_MS,
  };
  if (next) flow.x = next;
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(ctx, provider.id),
    scope: provider.scopes.join(' '),
    response_type: 'code',
    code_challenge: await client.calculatePKCECodeChallenge(flow.v),
    code_challenge_method: 'S256',
    state: flow.s,
    nonce: flow.n,
  });
  return { url: url.href, flow: sealWithSiteKey(ctx, FLOW_OWNER, JSON.stringify(flow)) };
}

function openFlow(ctx: AppContext, sealed: string | undefined): Flow | undefined {
  if (!sealed) return undefined;
  const text = openWithSiteKey(ctx, FLOW_OWNER, sealed);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Flow;
  } catch {
    return undefined;
  }
}

/**
 * The provider says the person passed more than one factor — `amr` containing `mfa`
 * (RFC 8176), or an `acr` the provider's settings list — and the site trusts it to (a
 * per-provider setting: otherwise the site's own second step is asked).
 */
function assertsMfa(provider: SsoProvider, claims: IDToken): boolean {
  if (!provider.trust_mfa) return false;
  if (Array.isArray(claims.amr) && claims.amr.includes('mfa')) return true;
  return typeof claims.acr === 'string' && provider.mfa_acr_values.includes(claims.acr);
}

export type SsoOutcome =
  | { kind: 'signed_in'; user: SessionUser; provider: SsoProvider; mfa: boolean; next?: string }
  /** An existing account has this address: its owner must prove it first (linkToken goes to this browser's cookie). */
  | { kind: 'link'; linkToken: string; provider: SsoProvider };

interface Identity {
  sub: string;
  email?: string;
  emailVerified: boolean;
  name?: string;
  mfa: boolean;
}

async function exchangeCode(ctx: AppContext, origin: Origin, provider: SsoProvider, config: Configuration, currentUrl: URL, flow: Flow): Promise<Identity> {
  const client = await loadClient();
  const fail = (reason: string, message: string, status: number, detail?: unknown) => {
    ctx.logger.info(
      { provider: provider.id, requestId: origin.requestId, reason, detail: detail instanceof Error ? detail.message : detail },
      'single sign-on refused',
    );
    return refuse(ctx, origin, provider, reason, new SsoRefusedError(reason, message, status));
  };
  if (currentUrl.searchParams.get('error')) return fail('provider_refused', ssoMessages.providerRefused, 403, currentUrl.searchParams.get('error'));
  if (currentUrl.searchParams.get('state') !== flow.s) return fail('state_mismatch', ssoMessages.stateMismatch, 400);
  let claims: IDToken | undefined;
  let accessToken: string;
  try {
    const tokens = await client.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: flow.v,
      expectedState: flow.s,
      expectedNonce: flow.n,
      idTokenExpected: true,
    });
    claims = tokens.claims();
    accessToken = tokens.access_token;
  } catch (error) {
    if (isNetworkError(error)) return fail('provider_down', ssoMessages.providerDown, 503, error);
    return fail('token_rejected', ssoMessages.tokenRejected, 400, error);
  }
  if (!claims) return fail('token_rejected', ssoMessages.tokenRejected, 400, 'no ID token');
  let email = typeof claims.email === 'string' ? claims.email : undefined;
  let verified = claims.email_verified === true;
  let name = typeof claims.name === 'string' ? claims.name : undefined;
  // Some providers give the address only through userinfo.
  if (email === undefined && config.serverMetadata().userinfo_endpoint) {
    try {
      const info = await client.fetchUserInfo(config, accessToken, claims.sub);
      email = typeof info.email === 'string' ? info.email : undefined;
      verified = info.email_verified === true;
      name ??= typeof info.name === 'string' ? info.name : undefined;
    } catch (error) {
      if (isNetworkError(error)) return fail('provider_down', ssoMessages.providerDown, 503, error);
      return fail('token_rejected', ssoMessages.tokenRejected, 400, error);
    }
  }
  return { sub: claims.sub, email: email?.trim().toLowerCase(), emailVerified: verified, name, mfa: assertsMfa(provider, claims) };
}

function isNetworkError(error: unknown): boolean {
  const cause = (error as { cause?: unknown })?.cause;
  const text = `${(error as Error)?.name ?? ''} ${(error as Error)?.message ?? ''} ${cause instanceof Error ? `${cause.name} ${cause.message} ${(cause as { code?: string }).code ?? ''}` : ''}`;
  return /fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|TimeoutError|AbortError|ENOTFOUND/i.test(text);
}

function domainAllowed(provider: SsoProvider, email: string): boolean {
  if (provider.allowed_domains.length === 0) return true;
  const domain = email.slice(email.lastIndexOf('@') + 1);
  return provider.allowed_domains.includes(domain);
}

/**
 * GET /auth/sso/:provider/callback: checks the provider's answer against this browser's
 * flow, then finds the account: a known `sub` signs in; an unknown `sub` whose verified
 * address is an existing account's waits for that account's proof (never linked
 * silently); otherwise an account is created when the provider allows it and the domain
 * is allowed, else a refusal.
 */
export async function finishSsoSignIn(
  ctx: AppContext,
  origin: Origin,
  providerId: number,
  currentUrl: URL,
  sealedFlow: string | undefined,
): Promise<SsoOutcome> {
  const provider = await enabledProvider(ctx, origin, providerId);
  const flow = openFlow(ctx, sealedFlow);
  if (!flow || flow.p !== provider.id || flow.e < ctx.clock.nowMs()) {
    return refuse(ctx, origin, provider, 'flow_missing', new SsoRefusedError('flow_missing', ssoMessages.flowMissing, 400));
  }
  const config = await reachableConfiguration(ctx, origin, provider);
  const identity = await exchangeCode(ctx, origin, provider, config, currentUrl, flow);

  const linked = await findLinkedUser(ctx, provider.id, identity.sub);
  if (linked) {
    if (linked.suspended_at !== null)
      return refuse(ctx, origin, provider, 'account_suspended', new SsoRefusedError('account_suspended', ssoMessages.accountSuspended, 403), linked);
    return { kind: 'signed_in', user: await allowedBySsoPolicy(ctx, origin, provider, linked), provider, mfa: identity.mfa, next: flow.x };
  }
  if (!identity.email || !identity.emailVerified) {
    return refuse(ctx, origin, provider, 'email_unverified', new SsoRefusedError('email_unverified', ssoMessages.emailMissing, 403));
  }
  const existing = await findUserByEmail(ctx, identity.email);
  if (existing) {
    if (existing.suspended_at !== null)
      return refuse(ctx, origin, provider, 'account_suspended', new SsoRefusedError('account_suspended', ssoMessages.accountSuspended, 403), existing);
    const { token } = await issueToken(ctx, 'sso_link', existing, { provider_id: provider.id, sub: identity.sub, mfa: identity.mfa, next: flow.x ?? null });
    await recordAudit(ctx, { actor: null, ip: origin.ip, action: 'auth.sso_link_requested', target: userTarget(existing), details: { provider: provider.id } });
    return { kind: 'link', linkToken: token, provider };
  }
  if (!provider.allow_signup) return refuse(ctx, origin, provider, 'signup_closed', new SsoRefusedError('signup_closed', ssoMessages.signupClosed, 403));
  if (!domainAllowed(provider, identity.email))
    return refuse(ctx, origin, provider, 'domain_refused', new SsoRefusedError('domain_refused', ssoMessages.domainRefused, 403));
  const email = identity.email;
  const user = await inTransaction(ctx, async (tx) => {
    const created = await createLinkedUser(
      tx,
      { email, name: identity.name?.trim() || email.slice(0, email.indexOf('@')), role: provider.signup_role },
      provider.id,
      identity.sub,
    );
    await recordAudit(tx, { actor: null, ip: origin.ip, action: 'auth.sso_account_created', target: userTarget(created), details: { provider: provider.id } });
    return created;
  });
  return { kind: 'signed_in', user: await allowedBySsoPolicy(ctx, origin, provider, user), provider, mfa: identity.mfa, next: flow.x };
}

/**
 * The roles' sign-in policy (models/auth/sign-in-policy.ts): an account whose roles do
 * not list this provider is refused (403 `method_not_allowed`, audited), the page
 * naming the ways it may use. The account without its policy column otherwise.
 */
async function allowedBySsoPolicy(ctx: AppContext, origin: Origin, provider: SsoProvider, user: SignInUser): Promise<SessionUser> {
  const allowed = allowedMethods(user.sign_in_policy);
  if (allowed !== null && !allowed.includes(`sso:${provider.id}`)) {
    const message = await policyRefusalMessage(ctx, allowed);
    return refuse(ctx, origin, provider, 'method_not_allowed', new SsoRefusedError('method_not_allowed', message, 403), user);
  }
  return withoutPolicy(user);
}

/** The policy check of a sign-in whose account was read without it (the link proved by a password). */
export async function assertSsoAllowed(ctx: AppContext, origin: Origin, provider: SsoProvider, userId: number): Promise<void> {
  const user = await findSignInUser(ctx, userId);
  if (user) await allowedBySsoPolicy(ctx, origin, provider, user);
}

export interface PendingLink {
  user: { id: number; email: string; name: string };
  provider: SsoProvider;
  subject: string;
  mfa: boolean;
  next?: string;
}

/** The link waiting for its proof, from this browser's token; undefined when gone. */
export async function pendingLink(ctx: AppContext, kind: 'sso_link' | 'sso_link_email', token: string | undefined): Promise<PendingLink | undefined> {
  if (!token) return undefined;
  const found = await peekToken(ctx, kind, token);
  if (!found) return undefined;
  const provider = await findSsoProvider(ctx, Number(found.payload.provider_id));
  const user = await findUserByEmail(ctx, found.identifier);
  if (!provider?.enabled || !user || user.id !== found.userId) return undefined;
  return {
    user,
    provider,
    subject: String(found.payload.sub),
    mfa: found.payload.mfa === true,
    next: typeof found.payload.next === 'string' ? found.payload.next : undefined,
  };
}

/**
 * The proof is made (the account's password, or the emailed link): the token is used
 * up and the account linked, with its event. Two uses at once: one wins. The account
 * is told by email («Compte lié à <fournisseur>»), after the answer.
 */
export async function completeLink(
  ctx: AppContext,
  origin: Origin,
  kind: 'sso_link' | 'sso_link_email',
  token: string,
  proof: 'password' | 'email',
): Promise<PendingLink> {
  const done = await inTransaction(ctx, async (tx) => {
    const link = await pendingLink(tx, kind, token);
    const consumed = link && (await consumeToken(tx, kind, link.user.email, token));
    if (!link || !consumed) throw new UserFacingError(ssoMessages.linkGone, { code: 'sso_link_gone' });
    await linkAccount(tx, link.user.id, link.provider.id, link.subject);
    await recordAudit(tx, {
      actor: null,
      ip: origin.ip,
      action: 'auth.sso_linked',
      target: userTarget(link.user),
      details: { provider: link.provider.id, proof },
    });
    return link;
  });
  // «Compte lié à <fournisseur>»: the owner hears of every new way into the account.
  noticeInBackground(ctx, 'account-linked notice', () => ctx.mailer.accountLinked(done.user.email, done.provider.label), { userId: done.user.id });
  return done;
}

/** «Recevoir un lien par courriel»: a link to the account's address, which proves it when followed. */
export async function sendLinkEmail(ctx: AppContext, origin: Origin, token: string | undefined): Promise<void> {
  const link = await pendingLink(ctx, 'sso_link', token);
  if (!link) throw new UserFacingError(ssoMessages.linkGone, { code: 'sso_link_gone' });
  const issued = await issueToken(ctx, 'sso_link_email', link.user, { provider_id: link.provider.id, sub: link.subject, mfa: false });
  await recordAudit(ctx, {
    actor: null,
    ip: origin.ip,
    action: 'auth.sso_link_emailed',
    target: userTarget(link.user),
    details: { provider: link.provider.id },
  });
  ctx.background.run('sso link email', () => ctx.mailer.ssoLinkConfirm(link.user.email, link.provider.label, issued.token));
}
