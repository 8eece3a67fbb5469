// GET /healthz (liveness) and GET /readyz (readiness), for load balancers and process
// managers. Liveness says only that the process serves, and turns 503 as soon as the
// graceful stop begins, so a balancer drains the instance before its socket closes.
// Readiness says whether a request would succeed now: the database answers within a
// second and no migration is pending; it also names the state of the public cache's
// listening connection, which does not decide it. The answers name which check failed, never why
// in detail (no error text, no migration names): anyone may call them.
import type { Call } from '../../routes/define.js';
import { checkReadiness, isReady } from '../../services/readiness.js';

/** GET /healthz */
export function showLiveness({ ctx, res }: Call): void {
  if (ctx.memo.stopping) {
    res.status(503).json({ status: 'stopping' });
    return;
  }
  res.json({ status: 'ok' });
}

/** GET /readyz */
export async function showReadiness({ ctx, res }: Call): Promise<void> {
  const checks = await checkReadiness(ctx);
  const ready = isReady(checks);
  res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks });
}
