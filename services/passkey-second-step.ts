// A passkey as the second step of a login (/auth/2fa/passkey…), instead of a TOTP code:
// the pending login of this browser (models/auth/pending-logins.ts) names the account;
// the options list that account's passkeys; the challenge is bound to the pending
// login's token and to the account, single use. A refused signature spends one of the
// pending login's attempts, like a wrong code (the fifth ends it) and is audited as
// `auth.second_factor_failed` with the method; a cloned authenticator is audited too.
// The account's budget of wrong codes is not spent: a signature cannot be guessed.
import { generateAuthenticationOptions, type AuthenticationResponseJSON, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { inTransaction, type AppContext } from '../lib/context.js';
import { AccountSuspendedError, InvalidCredentialsError, UserFacingError } from '../lib/errors.js';
import type { Origin } from '../lib/origin.js';
import { recordAudit, userTarget } from '../models/audit.js';
import { authMessages, twoFactorServiceMessages } from '../models/auth/messages.js';
import { passkeyMessages } from '../models/auth/passkey-messages.js';
import { credentialsOf, lockPasskeyByCredential, recordPasskeyUse, saveChallenge, takeChallenge } from '../models/auth/passkeys.js';
import { consumePendingLogin, lockPendingLogin, spendPendingAttempt, type PendingLogin } from '../models/auth/pending-logins.js';
import { findSessionUser, type SessionUser } from '../models/auth/users.js';
import { CEREMONY_TIMEOUT_MS, checkAssertion, recordClone, relyingParty, type AssertionCheck } from './passkeys.js';

function bindingOf(token: string): string {
  return `second-factor:${token}`;
}

function pendingGone(): InvalidCredentialsError {
  return new InvalidCredentialsError(twoFactorServiceMessages.pendingLoginGone, { code: 'second_factor_expired' });
}

/** The options of the second step: the pending account's passkeys, user verification required. */
export async function secondStepPasskeyOptions(ctx: AppContext, token: string | undefined): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const pending = token ? await lockPendingLogin(ctx, token) : undefined;
  if (!pending || !token) throw pendingGone();
  const credentials = await credentialsOf(ctx, pending.userId);
  if (credentials.length === 0) throw new UserFacingError(passkeyMessages.noPasskey, { code: 'no_passkey' });
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(ctx).rpID,
    allowCredentials: credentials,
    userVerification: 'required',
    timeout: CEREMONY_TIMEOUT_MS,
  });
  await saveChallenge(ctx, bindingOf(token), 'second_factor', options.challenge, pending.userId);
  return options;
}

type Done = { user: SessionUser; next: string | null; first: PendingLogin['first'] };
type Outcome = { status: 'gone' } | { status: 'suspended' } | { status: 'wrong'; left: number } | ({ status: 'done' } & Done);

/** The second step with a passkey: the session user and the login's `next`, or the refusal of a wrong code. */
export async function completeSecondStepWithPasskey(
  ctx: AppContext,
  origin: Origin,
  token: string | undefined,
  response: AuthenticationResponseJSON,
): Promise<Done> {
  const outcome = await inTransaction(ctx, async (tx): Promise<Outcome> => {
    const pending = token ? await lockPendingLogin(tx, token) : undefined;
    if (!pending || !token) return { status: 'gone' };
    const challenge = await takeChallenge(tx, bindingOf(token), 'second_factor', pending.userId);
    const passkey = await lockPasskeyByCredential(tx, response.id);
    const user = await findSessionUser(tx, pending.userId);
    const checked: AssertionCheck =
      challenge && passkey && user && passkey.userId === pending.userId
        ? await checkAssertion(tx, origin, passkey, challenge, response)
        : { status: 'invalid' };
    if (checked.status !== 'valid' || !passkey || !user) {
      const left = await spendPendingAttempt(tx, token);
      if (user) {
        if (checked.status === 'cloned' && passkey) await recordClone(tx, origin, user, checked.counter, passkey.counter);
        await recordAudit(tx, {
          actor: null,
          ip: origin.ip,
          action: 'auth.second_factor_failed',
          target: userTarget(user),
          details: { attempts_left: left, method: 'passkey' },
        });
      }
      return { status: 'wrong', left };
    }
    await recordPasskeyUse(tx, passkey.id, checked.use);
    await consumePendingLogin(tx, token);
    // Suspended between the password and the passkey: no session (said, as after a password).
    if (user.suspended_at !== null) return { status: 'suspended' };
    return { status: 'done', user, next: pending.next, first: pending.first };
  });
  if (outcome.status === 'done') return outcome;
  if (outcome.status === 'gone' || (outcome.status === 'wrong' && outcome.left === 0)) throw pendingGone();
  if (outcome.status === 'suspended') throw new AccountSuspendedError(authMessages.accountSuspended);
  throw new InvalidCredentialsError(passkeyMessages.secondStepRefused(outcome.left), { code: 'second_factor_wrong' });
}
