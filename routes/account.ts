import { Router } from 'express';
import type { Config } from '../lib/config.js';

// /account: the profile page of any logged-in user (issue: administration area).
export function accountRouter(_config: Config): Router {
  return Router();
}
