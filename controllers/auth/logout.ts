import type { Call } from '../../routes/define.js';
import { logOutSession } from '../../middleware/session.js';
import { answerRedirect } from './render.js';

// POST /auth/logout: the session is removed from storage and its cookie cleared.
export async function handleLogout({ req, res }: Call): Promise<void> {
  await logOutSession(req, res, { audit: true });
  answerRedirect(req, res, '/auth/login?done=logout');
}
