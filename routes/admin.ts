import { Router } from 'express';
import type { Config } from '../lib/config.js';

// The /admin area (issues: auth pages for the guard and landing, admin area for the rest).
export function adminRouter(_config: Config): Router {
  return Router();
}
