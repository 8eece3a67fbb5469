// /account: the profile page of any logged-in user (no admin.access needed). The same
// router is mounted at /admin/profile inside the admin guard (routes/admin.ts).
import { Router } from 'express';
import * as profile from '../controllers/account/profile.js';
import { formChain, uploadFormChain } from '../controllers/admin/shell.js';
import type { Config } from '../lib/config.js';
import { parseImageUpload } from '../lib/uploads.js';
import { provideCsrfToken } from '../middleware/csrf.js';
import { requireUser } from '../middleware/require-auth.js';

export function profileRouter(): Router {
  const router = Router();
  router.use(requireUser, provideCsrfToken);
  const rerender = profile.showProfile;
  router.get('/', (req, res) => profile.showProfile(req, res));
  router.post('/name', ...formChain('name', [], profile.saveName, rerender));
  router.post('/email', ...formChain('email', [], profile.startAddressChange, rerender));
  router.post('/password', ...formChain('password', [], profile.savePassword, rerender));
  router.post('/picture', ...uploadFormChain('picture', [], parseImageUpload('picture'), profile.savePicture, rerender));
  router.post('/picture/delete', ...formChain('picture', [], profile.removePicture, rerender));
  router.post('/sessions/delete-others', ...formChain('sessions', [], profile.revokeOtherSessions, rerender));
  router.post('/sessions/:sessionId/delete', ...formChain('sessions', [], profile.revokeSession, rerender));
  return router;
}

export function accountRouter(_config: Config): Router {
  return profileRouter();
}
