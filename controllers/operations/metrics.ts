// GET /metrics: this app's registry in the Prometheus text format, or in a cluster the
// sum of every worker's (lib/cluster-metrics.ts). It exists only when METRICS_TOKEN is
// set (404 otherwise, as any unknown path) and answers only a request carrying
// `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import { scrapeCluster } from '../../lib/cluster-metrics.js';
import { NotFoundError, UnauthenticatedError } from '../../lib/errors.js';
import type { Call } from '../../routes/define.js';
import { operationsMessages } from './messages.js';
import { genericMessages } from '../../lib/messages.js';

// Digests have one length whatever the token's, so the comparison time says nothing
// about the expected token, not even its length.
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Whether an Authorization header carries exactly this bearer token. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(presented), digest(token));
}

/** GET /metrics */
export async function showMetrics({ ctx, req, res }: Call): Promise<void> {
  const { registry } = ctx.metrics;
  const token = ctx.config.metricsToken;
  if (!token || !registry) throw new NotFoundError(genericMessages.notFound);
  if (!bearerMatches(req.get('authorization'), token)) {
    res.set('WWW-Authenticate', 'Bearer realm="metrics"');
    throw new UnauthenticatedError(operationsMessages.metricsToken);
  }
  // A scrape every 15 s is machine traffic like the probes; a refused one stays at info.
  res.locals.quietLog = true;
  // A cluster worker (config.worker, set at its start) answers for the whole host.
  const text = ctx.config.worker !== undefined && process.send ? await scrapeCluster() : await registry.metrics();
  res.set('Content-Type', registry.contentType).send(text);
}
