// Use cases of an administrator on accounts, called by both /app/api/users and the
// /admin/users forms: each combines the models (models/auth/admin-users.ts) with the
// email it owes, under its mail policy (services/mail-policy.ts).
import { inTransaction, type AppContext } from '../lib/context.js';
import {
  createUser,
  issueInvitationAgain,
  issuePasswordResetFor,
  setUserPassword,
  startUserEmailChange,
  type NewUserByAdmin,
} from '../models/auth/admin-users.js';
import type { Caller } from '../models/auth/roles.js';
import type { User } from '../models/auth/users.js';
import { bestEffort, mustDeliver, noticeInBackground } from './mail-policy.js';

/** The caller of a use case: who acts, with which permissions, from which session. */
export type Acting = Caller & { sid?: string };

export interface Invited {
  user: User;
  /** Without a password: whether InvitationEmail left (undefined when none was due). */
  invitationSent?: boolean;
}

/**
 * Creates an account (SPEC A7). With a password it is verified and usable at once;
 * without, InvitationEmail carries the setup link.
 * Mail: best-effort — the account exists whatever happens to the email; the answer
 * says whether it left, and «resend the invitation» can try again.
 */
export async function inviteUser(ctx: AppContext, caller: Acting, input: NewUserByAdmin): Promise<Invited> {
  const { user, setupToken } = await createUser(ctx, caller, input);
  if (setupToken === undefined) return { user };
  const invitationSent = await bestEffort(ctx, 'invitation', () => ctx.mailer.invitation(user.email, setupToken), { userId: user.id });
  return { user, invitationSent };
}

/**
 * A new setup link for an account that has no password yet (the previous link dies).
 * Mail: must-deliver — the email is the whole action; it is sent before the new link
 * commits, so a failed send leaves the previous link (and no audit event) as it was.
 */
export async function resendInvitation(ctx: AppContext, caller: Acting, userId: number): Promise<User> {
  return inTransaction(ctx, async (tx) => {
    const { user, token } = await issueInvitationAgain(tx, caller, userId);
    await mustDeliver('invitation', () => ctx.mailer.invitation(user.email, token));
    return user;
  });
}

/**
 * A reset link to the account's own address (it also activates an invited account);
 * refused on an account that outranks the caller, and on the caller's own.
 * Mail: must-deliver — the email is the whole action.
 */
export async function sendPasswordReset(ctx: AppContext, caller: Acting, userId: number): Promise<User> {
  const { user, token } = await issuePasswordResetFor(ctx, caller, userId);
  await mustDeliver('password reset link', () => ctx.mailer.passwordReset(user.email, token));
  return user;
}

/**
 * An administrator sets the password: the account's sessions are closed (the caller's
 * current one kept when acting on itself).
 * Mail: best-effort — PasswordChangedEmail is a notice, sent after the answer.
 */
export async function setPasswordByAdministrator(ctx: AppContext, caller: Acting, userId: number, password: string): Promise<User> {
  const user = await setUserPassword(ctx, caller, userId, password);
  noticeInBackground(ctx, 'password-changed notice', () => ctx.mailer.passwordChanged(user.email), { userId: user.id });
  return user;
}

export interface AddressChangeStarted {
  /** The account, still at its current address. */
  user: User;
  /** The address waiting for its link to be followed. */
  pendingEmail: string;
}

/** An administrator's change: pending, or done at once (pendingEmail null, the account at its new address). */
export type AddressChangeByAdministrator = AddressChangeStarted | { user: User; pendingEmail: null };

/**
 * An administrator changes an account's address (never its own: use_profile).
 * An active account: the same change as the user's own (SPEC Events, A8):
 * EmailChangeConfirmEmail to the new address, whose link makes the change, and
 * EmailChangeNotifyEmail to the current one.
 * Mail: the confirmation is must-deliver (without it nothing can change); the notice
 * is best-effort, sent after the answer.
 * An account still waiting for its invitation moves at once and gets a new
 * InvitationEmail at the new address (the old link dies).
 * Mail: must-deliver, sent before the change commits, so that a failed send leaves
 * the address and the old invitation as they were (the row stays locked meanwhile).
 */
export async function changeAddressByAdministrator(ctx: AppContext, caller: Acting, userId: number, email: string): Promise<AddressChangeByAdministrator> {
  const change = await inTransaction(ctx, async (tx) => {
    const started = await startUserEmailChange(tx, caller, userId, email);
    if (started.kind === 'moved') await mustDeliver('invitation', () => ctx.mailer.invitation(started.user.email, started.token));
    return started;
  });
  if (change.kind === 'moved') return { user: change.user, pendingEmail: null };
  return sendAddressChangeEmails(ctx, change.user, change.newEmail, change.token);
}

/** The two emails of an address change (shared with services/profile.ts). */
export async function sendAddressChangeEmails(ctx: AppContext, user: User, newEmail: string, token: string): Promise<AddressChangeStarted> {
  await mustDeliver('address-change confirmation', () => ctx.mailer.emailChangeConfirm(newEmail, token));
  noticeInBackground(ctx, 'address-change notice', () => ctx.mailer.emailChangeNotify(user.email, newEmail), { userId: user.id });
  return { user, pendingEmail: newEmail };
}
