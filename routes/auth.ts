import { Router } from 'express';
import type { Config } from '../lib/config.js';
import { showLogin } from '../controllers/auth/login.js';

export function authRouter(_config: Config): Router {
  const router = Router();
  router.get(['/', '/:segment'], showLogin);
  return router;
}
