// The operations endpoints: /healthz, /readyz and /metrics. Mounted first (app.ts),
// before the host check and every area: no session, no CSRF, no rate limit, and any
// Host (a balancer, an orchestrator or Prometheus address the instance by its IP; the
// answers hold nothing a rebinding page could use, and /metrics needs its token).
// Answers are never cached; the probes' request lines are logged at debug level.
import { Router, type NextFunction, type Request, type Response } from 'express';
import { showLiveness, showReadiness } from '../controllers/operations/health.js';
import { showMetrics } from '../controllers/operations/metrics.js';
import type { AppContext } from '../lib/context.js';
import { mountRoutes, route, type AnyRoute, type Surface } from './define.js';

function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.set('Cache-Control', 'no-store');
  next();
}

// Probed every few seconds by machines: at info level they would drown the request log.
function quietLog(_req: Request, res: Response, next: NextFunction): void {
  res.locals.quietLog = true;
  next();
}

const operationRoutes: AnyRoute[] = [
  route({ method: 'get', path: '/healthz', access: 'public', handler: showLiveness }),
  route({ method: 'get', path: '/readyz', access: 'public', handler: showReadiness }),
  route({ method: 'get', path: '/metrics', access: 'public', handler: showMetrics }),
];

const PROBES = new Set(['/healthz', '/readyz']);

// Not strict: a probe's query string (some balancers add one) changes nothing.
const operationsSurface: Surface = {
  strict: false,
  session: [],
  prepare: (row) => (PROBES.has(row.path as string) ? [noStore, quietLog] : [noStore]),
  failure: () => [],
};

export function operationsRouter(ctx: AppContext): Router {
  const router = Router();
  mountRoutes(router, ctx, operationsSurface, operationRoutes);
  return router;
}
