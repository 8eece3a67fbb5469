import express, { Router } from 'express';
import type { Config } from '../../lib/config.js';

// The JSON API under /app/api (issue: REST API).
export function apiRouter(_config: Config): Router {
  const router = Router();
  router.use(express.json({ limit: '100kb' }));
  return router;
}
