// Passkeys (WebAuthn, @simplewebauthn/server): their addition, list and removal from the
// profile (behind the current password) and the sign-in with one. The relying party is
// BASE_URL: its host is the rpID, its origin the only origin accepted, whatever Host a
// request came with. Every challenge is single use and lives five minutes
// (models/auth/passkeys.ts); the caller says what binds it (a cookie's token or the
// session's id). User verification is required at both ceremonies: a passkey is then a
// factor the person holds and unlocks, which is why its sign-in asks no TOTP code
// (docs/decisions.md, «Clés d'accès»).
import { createHmac } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { inTransaction, type AppContext } from '../lib/context.js';
import { AccountSuspendedError, ConflictError, EmailNotVerifiedError, InvalidCredentialsError, NotFoundError, UserFacingError } from '../lib/errors.js';
import type { Origin } from '../lib/origin.js';
import { recordAudit, sourceOf, userTarget } from '../models/audit.js';
import { authMessages } from '../models/auth/messages.js';
import {
  credentialsOf,
  deletePasskey,
  insertPasskey,
  listPasskeys,
  lockPasskeyByCredential,
  recordPasskeyUse,
  renamePasskeyRow,
  saveChallenge,
  takeChallenge,
  type PasskeySummary,
  type StoredPasskey,
} from '../models/auth/passkeys.js';
import type { SessionUser } from '../models/auth/users.js';
import { findSignInUser } from '../models/auth/linked-accounts.js';
import { SIGN_IN_METHOD_REFUSED } from '../models/auth/login.js';
import { budgetSpentUntil, budgetSubject, spendSignInBudget } from '../models/auth/sign-in-budgets.js';
import { allowedMethods, policyRefusalMessage, withoutPolicy } from '../models/auth/sign-in-policy.js';
import { accountBudgetRefusal, recordTrip } from './sign-in-guard.js';
import { passkeyMessages } from '../models/auth/passkey-messages.js';
import { currentSettings } from './site-settings.js';
import { verifyCurrentPassword } from './current-password.js';
import { noticeInBackground } from './mail-policy.js';

export const CEREMONY_TIMEOUT_MS = 5 * 60 * 1000;

/** The relying party: BASE_URL's host and origin. */
export function relyingParty(ctx: AppContext): { rpID: string; origin: string } {
  const url = new URL(ctx.config.baseUrl);
  return { rpID: url.hostname, origin: url.origin };
}

/**
 * The user handle the authenticator keeps with the account's passkeys: the same for all
 * of them (an authenticator holds one entry per account), and not the account's id.
 */
function userHandleOf(ctx: AppContext, userId: number): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(createHmac('sha256', ctx.config.sessionSecret).update(`passkey-user:${userId}`).digest().subarray(0, 16));
}

function actingOf(origin: Origin, user: { id: number; name: string }) {
  return sourceOf({ id: user.id, name: user.name, ip: origin.ip });
}

/** The registration options for the account (current password first); the challenge is kept under `binding` (the session). */
export async function passkeyRegistrationOptions(
  ctx: AppContext,
  origin: Origin,
  user: SessionUser,
  binding: string,
  currentPassword: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  await verifyCurrentPassword(ctx, origin, user.id, currentPassword);
  const { rpID } = relyingParty(ctx);
  const options = await generateRegistrationOptions({
    rpName: (await currentSettings(ctx)).title,
    rpID,
    userName: user.email,
    userDisplayName: user.name,
    userID: userHandleOf(ctx, user.id),
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    excludeCredentials: await credentialsOf(ctx, user.id),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await saveChallenge(ctx, binding, 'registration', options.challenge, user.id);
  return options;
}

/** Checks the authenticator's answer to the challenge of `binding` and keeps the passkey; audited, the account told by email. */
export async function addPasskey(
  ctx: AppContext,
  origin: Origin,
  user: SessionUser,
  binding: string,
  input: { name: string; response: RegistrationResponseJSON },
): Promise<PasskeySummary> {
  const challenge = await takeChallenge(ctx, binding, 'registration', user.id);
  if (!challenge) throw new UserFacingError(passkeyMessages.challengeGone, { code: 'passkey_challenge_expired' });
  const { rpID, origin: expectedOrigin } = relyingParty(ctx);
  const verification = await verifyRegistrationResponse({
    response: input.response,
    expectedChallenge: challenge,
    expectedOrigin,
    expectedRPID: rpID,
    requireUserVerification: true,
  }).catch((error: unknown) => {
    ctx.logger.info({ err: error instanceof Error ? error.message : String(error), requestId: origin.requestId }, 'passkey registration refused');
    return undefined;
  });
  if (!verification?.verified) throw new UserFacingError(passkeyMessages.registrationRefused, { code: 'passkey_refused' });
  const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
  const added = await inTransaction(ctx, async (tx) => {
    const row = await insertPasskey(tx, {
      userId: user.id,
      credentialId: credential.id,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? [],
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
      name: input.name,
    });
    if (!row) throw new ConflictError(passkeyMessages.alreadyRegistered, { code: 'passkey_exists' });
    await recordAudit(tx, { ...actingOf(origin, user), action: 'account.passkey_added', target: userTarget(user), details: { passkey: row.name } });
    return row;
  });
  noticeInBackground(ctx, 'passkey-added notice', () => ctx.mailer.passkeyAdded(user.email, added.name), { userId: user.id });
  return added;
}

export function passkeysOf(ctx: AppContext, userId: number): Promise<PasskeySummary[]> {
  return listPasskeys(ctx, userId);
}

/** Removes one of the account's passkeys (current password first); audited. */
export async function removePasskey(ctx: AppContext, origin: Origin, user: { id: number; name: string }, id: number, currentPassword: string): Promise<void> {
  await verifyCurrentPassword(ctx, origin, user.id, currentPassword);
  await inTransaction(ctx, async (tx) => {
    const name = await deletePasskey(tx, user.id, id);
    if (name === undefined) throw new NotFoundError(passkeyMessages.notFound);
    await recordAudit(tx, { ...actingOf(origin, user), action: 'account.passkey_removed', target: userTarget(user), details: { passkey: name } });
  });
}

/**
 * Renames one of the account's passkeys (its session is enough: a name grants nothing);
 * audited with both names.
 */
export async function renamePasskey(ctx: AppContext, origin: Origin, user: { id: number; name: string }, id: number, name: string): Promise<PasskeySummary> {
  return inTransaction(ctx, async (tx) => {
    const renamed = await renamePasskeyRow(tx, user.id, id, name);
    if (!renamed) throw new NotFoundError(passkeyMessages.notFound);
    if (renamed.from !== name)
      await recordAudit(tx, {
        ...actingOf(origin, user),
        action: 'account.passkey_renamed',
        target: userTarget(user),
        details: { passkey: name, from: renamed.from },
      });
    return renamed.passkey;
  });
}

/** The options of a sign-in: discoverable credentials (no list), user verification required; the challenge kept under `binding` (the cookie). */
export async function passkeySignInOptions(ctx: AppContext, binding: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(ctx).rpID,
    allowCredentials: [],
    userVerification: 'required',
    timeout: CEREMONY_TIMEOUT_MS,
  });
  await saveChallenge(ctx, binding, 'sign_in', options.challenge);
  return options;
}

export type AssertionCheck =
  { status: 'valid'; use: { counter: number; backedUp: boolean; deviceType: string } } | { status: 'cloned'; counter: number } | { status: 'invalid' };

/**
 * The authenticator's signature over `challenge`, BASE_URL's origin and rpID, by the
 * stored key, with the user verified, and a counter that went forward. The library
 * raises on any failure; a counter that did not move forward is told apart (a clone).
 */
export async function checkAssertion(
  ctx: AppContext,
  origin: Origin,
  passkey: StoredPasskey,
  challenge: string,
  response: AuthenticationResponseJSON,
): Promise<AssertionCheck> {
  const { rpID, origin: expectedOrigin } = relyingParty(ctx);
  try {
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin,
      expectedRPID: rpID,
      credential: { id: passkey.credentialId, publicKey: passkey.publicKey, counter: passkey.counter },
      requireUserVerification: true,
    });
    if (!verified.verified) return { status: 'invalid' };
    const { newCounter, credentialBackedUp, credentialDeviceType } = verified.authenticationInfo;
    return { status: 'valid', use: { counter: newCounter, backedUp: credentialBackedUp, deviceType: credentialDeviceType } };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    ctx.logger.info({ err: message, requestId: origin.requestId }, 'passkey signature refused');
    const counter = /counter value (\d+)/.exec(message);
    return counter ? { status: 'cloned', counter: Number(counter[1]) } : { status: 'invalid' };
  }
}

/** A cloned authenticator's signature: audited with both counters (the stored one is kept). */
export function recordClone(ctx: AppContext, origin: Origin, user: { id: number; name: string }, counter: number, stored: number): Promise<void> {
  return recordAudit(ctx, {
    actor: null,
    ip: origin.ip,
    action: 'auth.passkey_cloned',
    target: userTarget(user),
    details: { method: 'passkey', counter, stored_counter: stored },
  });
}

/** A refused passkey signature counts as a wrong password of the account (the trip audited and told, as for passwords). */
async function spendAccountBudget(ctx: AppContext, origin: Origin, user: SessionUser): Promise<void> {
  const { failures, tripped } = await spendSignInBudget(ctx, 'password', budgetSubject('password', user.email));
  if (tripped) (await recordTrip(ctx, origin, 'password', user, failures))?.();
}

function refusal(): InvalidCredentialsError {
  return new InvalidCredentialsError(passkeyMessages.signInRefused);
}

type SignInOutcome =
  | { status: 'done'; user: SessionUser }
  | { status: 'refused'; reason: string; user?: SessionUser }
  | { status: 'cloned'; user: SessionUser; counter: number; stored: number }
  | { status: 'limited'; until: Date }
  | { status: 'not_allowed'; user: SessionUser; allowed: string[] }
  | { status: 'suspended' | 'unverified'; user: SessionUser };

/**
 * The sign-in with a passkey: the challenge of `binding` (taken, whatever follows), the
 * stored credential of the answer's id, its signature by that credential's key over this
 * challenge, origin and rpID, with the user verified, and a counter that went forward.
 * Any failure is the wrong password's refusal (401 invalid_credentials) and an
 * `auth.login_failed` event; a counter going back is a cloned authenticator, refused and
 * audited as `auth.passkey_cloned`. Suspended and unverified accounts are refused as
 * the password login refuses them.
 *
 * A refused signature (or a clone) of a known passkey spends the account's budget of
 * wrong passwords (services/sign-in-guard.ts: the same counters, keyed by its address);
 * a spent budget refuses before any signature is checked (429), except on
 * `knownDevice`, the account this browser has signed in to before. An account whose
 * roles do not allow passkeys is refused after a valid signature, with the ways it may use.
 */
export async function passkeySignIn(
  ctx: AppContext,
  origin: Origin,
  binding: string | undefined,
  response: AuthenticationResponseJSON,
  knownDevice?: number,
): Promise<SessionUser> {
  const outcome = await inTransaction(ctx, async (tx): Promise<SignInOutcome> => {
    const challenge = binding ? await takeChallenge(tx, binding, 'sign_in') : undefined;
    const passkey = await lockPasskeyByCredential(tx, response.id);
    const found = passkey ? await findSignInUser(tx, passkey.userId) : undefined;
    const user = found && withoutPolicy(found);
    if (!challenge) return { status: 'refused', reason: 'challenge_missing', user };
    if (!passkey || !found || !user) return { status: 'refused', reason: 'unknown_passkey' };
    const until = await budgetSpentUntil(tx, 'password', budgetSubject('password', user.email));
    if (until && knownDevice !== user.id) return { status: 'limited', until };
    const checked = await checkAssertion(tx, origin, passkey, challenge, response);
    if (checked.status === 'cloned') return { status: 'cloned', user, counter: checked.counter, stored: passkey.counter };
    if (checked.status === 'invalid') return { status: 'refused', reason: 'invalid_signature', user };
    if (user.suspended_at !== null) return { status: 'suspended', user };
    if (!user.email_verified) return { status: 'unverified', user };
    const allowed = allowedMethods(found.sign_in_policy);
    if (allowed !== null && !allowed.includes('passkey')) return { status: 'not_allowed', user, allowed };
    await recordPasskeyUse(tx, passkey.id, checked.use);
    return { status: 'done', user };
  });
  if (outcome.status === 'done') return outcome.user;
  if (outcome.status === 'limited') throw accountBudgetRefusal(ctx, origin, 'password', outcome.until);
  if (outcome.status === 'cloned' || (outcome.status === 'refused' && outcome.reason === 'invalid_signature' && outcome.user)) {
    await spendAccountBudget(ctx, origin, outcome.user!);
  }
  const target = outcome.user ? userTarget(outcome.user) : null;
  if (outcome.status === 'cloned') {
    await recordClone(ctx, origin, outcome.user, outcome.counter, outcome.stored);
    throw refusal();
  }
  if (outcome.status === 'not_allowed') {
    await recordAudit(ctx, { actor: null, ip: origin.ip, action: 'auth.login_failed', target, details: { reason: 'method_not_allowed', method: 'passkey' } });
    throw new InvalidCredentialsError(await policyRefusalMessage(ctx, outcome.allowed), { code: SIGN_IN_METHOD_REFUSED });
  }
  const reason = outcome.status === 'refused' ? outcome.reason : outcome.status === 'suspended' ? 'account_suspended' : 'email_unverified';
  await recordAudit(ctx, { actor: null, ip: origin.ip, action: 'auth.login_failed', target, details: { reason, method: 'passkey' } });
  if (outcome.status === 'suspended') throw new AccountSuspendedError(authMessages.accountSuspended);
  if (outcome.status === 'unverified') throw new EmailNotVerifiedError(authMessages.emailUnverified);
  throw refusal();
}
