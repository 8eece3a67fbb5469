import type { Call } from '../../routes/define.js';
import { logInSession } from '../../middleware/session.js';
import { login } from '../../models/auth/login.js';
import { answerRedirect, safeNextPath } from './render.js';
import type { LoginBody } from './schemas.js';

// POST /auth/login (and POST /auth or an unknown segment, whose page is login)
export async function handleLogin({ ctx, req, res, body }: Call<{ segment?: string }, Record<string, never>, LoginBody>): Promise<void> {
  // One statement reads the user with its permissions: they choose where the login lands.
  const { permissions, ...user } = await login(ctx, body.email, body.password);
  // Regenerates the session id: an id planted before login is worthless (fixation).
  await logInSession(req, user);
  const fallback = permissions.includes('admin.access') ? '/admin' : '/account';
  answerRedirect(req, res, safeNextPath(body.next) ?? fallback, { user });
}
