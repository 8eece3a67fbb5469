import { Router } from 'express';
import { showLogin } from '../controllers/auth/login.js';

export function authRouter(): Router {
  const router = Router();
  router.get(['/', '/:segment'], showLogin);
  return router;
}
