// /metrics in a cluster (WEB_CONCURRENCY above 1): whichever worker takes the scrape
// answers for the whole host. It asks the primary over the cluster's IPC channel; the
// primary asks every worker for its registry as JSON, sums them with prom-client's
// AggregatorRegistry.aggregate (counters and histograms added, each default metric by
// its own rule) and hands the text back. The primary serves no HTTP and holds no
// registry of its own; a worker that does not answer within the time limit is left out
// and counted in `site_metrics_workers{state="missing"}`, so a scrape never hangs on one.
//
// prom-client's own cluster mode is not used: it has workers answer from a module-level
// list of registries (setRegistries), and it expects the primary to serve the scrape.
import cluster, { type Worker } from 'node:cluster';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.js';

const SCRAPE = 'site:metrics-scrape';
const SCRAPED = 'site:metrics-scraped';
const COLLECT = 'site:metrics-collect';
const COLLECTED = 'site:metrics-collected';

/** How long the primary waits for the workers' registries, and a worker for the primary's answer (a little more). */
const COLLECT_TIMEOUT_MS = 2000;

/** One registry's metrics as getMetricsAsJSON() gives them (plain data: it crosses the IPC channel). */
type MetricJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>[number];

interface Message {
  type?: unknown;
  id?: unknown;
  metrics?: MetricJson[][];
  text?: string;
  error?: string;
}

/** In a worker: answers the primary's requests for this worker's registry. */
export function answerMetricsCollection(registry: Registry): void {
  process.on('message', (message: Message | null) => {
    if (message?.type !== COLLECT) return;
    registry.getMetricsAsJSON().then(
      (metrics) => process.send?.({ type: COLLECTED, id: message.id, metrics: [metrics] }),
      (error: Error) => process.send?.({ type: COLLECTED, id: message.id, error: error.message }),
    );
  });
}

let nextScrape = 0;

/** In a worker: the whole cluster's metrics, in the Prometheus text format, from the primary. */
export function scrapeCluster(timeoutMs = COLLECT_TIMEOUT_MS + 3000): Promise<string> {
  const id = `${process.pid}:${nextScrape++}`;
  return new Promise<string>((resolve, reject) => {
    const onMessage = (message: Message | null) => {
      if (message?.type !== SCRAPED || message.id !== id) return;
      finish();
      if (message.error !== undefined || message.text === undefined) reject(new Error(`the cluster's metrics could not be read: ${message.error}`));
      else resolve(message.text);
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error('the cluster primary did not answer the metrics request'));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    process.on('message', onMessage);
    if (!process.send?.({ type: SCRAPE, id })) {
      finish();
      reject(new Error('no channel to the cluster primary'));
    }
  });
}

/** The count of workers summed and missed, appended to the aggregated text. */
function workersGauge(answered: number, missing: number): string {
  return [
    '# HELP site_metrics_workers Workers of the cluster whose metrics this scrape sums (answered), or that did not answer in time (missing).',
    '# TYPE site_metrics_workers gauge',
    `site_metrics_workers{state="answered"} ${answered}`,
    `site_metrics_workers{state="missing"} ${missing}`,
    '',
  ].join('\n');
}

/** In the primary: collects every connected worker's registry and sums them. */
async function collect(workers: Worker[], timeoutMs: number): Promise<string> {
  const id = `collect:${nextScrape++}`;
  const answers: MetricJson[][] = [];
  let pending = 0;
  await new Promise<void>((resolve) => {
    const listeners: Array<() => void> = [];
    const done = () => {
      clearTimeout(timer);
      for (const remove of listeners) remove();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    for (const worker of workers) {
      const onMessage = (message: Message | null) => {
        if (message?.type !== COLLECTED || message.id !== id) return;
        worker.off('message', onMessage);
        pending--;
        if (message.metrics) answers.push(...message.metrics);
        if (pending === 0) done();
      };
      worker.on('message', onMessage);
      listeners.push(() => worker.off('message', onMessage));
      try {
        worker.send({ type: COLLECT, id });
        pending++;
      } catch {
        worker.off('message', onMessage);
      }
    }
    if (pending === 0) done();
  });
  // Loaded by the first scrape: a cluster nobody scrapes never loads prom-client.
  const { AggregatorRegistry } = await import('prom-client');
  const text = answers.length ? await AggregatorRegistry.aggregate(answers).metrics() : '';
  return text + workersGauge(answers.length, workers.length - answers.length);
}

/** In the primary: answers each worker's scrape with the sum of all workers' metrics. */
export function serveClusterScrapes(logger: Logger, timeoutMs = COLLECT_TIMEOUT_MS): void {
  cluster.on('message', (asking: Worker, message: Message | null) => {
    if (message?.type !== SCRAPE) return;
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => !!worker && worker.isConnected());
    collect(workers, timeoutMs).then(
      (text) => asking.isConnected() && asking.send({ type: SCRAPED, id: message.id, text }),
      (error: Error) => {
        logger.error({ err: error.message }, 'the cluster metrics could not be summed');
        if (asking.isConnected()) asking.send({ type: SCRAPED, id: message.id, error: error.message });
      },
    );
  });
}
