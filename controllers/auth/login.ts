import type { Call } from '../../routes/define.js';
import { logInSession } from '../../middleware/session.js';
import { passwordSignIn } from '../../services/sign-in-guard.js';
import { knownDeviceOf, rememberDevice } from './known-device.js';
import { answerRedirect } from './render.js';
import type { LoginBody } from './schemas.js';
import { askSecondFactor, landingOf } from './two-factor.js';

// POST /auth/login (and POST /auth or an unknown segment, whose page is login)
export async function handleLogin({ ctx, origin, req, res, body }: Call<{ segment?: string }, Record<string, never>, LoginBody>): Promise<void> {
  // One statement reads the user with its permissions: they choose where the login lands.
  const { permissions, second_factor_enabled, second_factor_required, has_passkey, ...user } = await passwordSignIn(
    ctx,
    origin,
    body.email,
    body.password,
    knownDeviceOf(ctx, req),
  );
  // With two-step verification on, the password opens no session: a code must follow.
  // A role requiring two steps is met by a passkey too: an account holding one is asked
  // for it (/auth/2fa offers the passkey alone) rather than sent to set up a code.
  if (second_factor_enabled || (second_factor_required && has_passkey)) return askSecondFactor(ctx, req, res, user.id, body.next);
  // Regenerates the session id: an id planted before login is worthless (fixation).
  await logInSession(req, user, { method: 'password' });
  rememberDevice(ctx, req, res, user.id);
  // A role requiring two-step verification takes the user to its enrolment first.
  answerRedirect(req, res, landingOf({ permissions, second_factor_enabled, second_factor_required }, body.next), { user });
}
