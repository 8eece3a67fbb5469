// Work done after the answer has left (emails of forgot / resend), so that the answer
// takes the same time whether an account exists or not. Tests wait for it to settle.
import { logger } from '../../lib/logger.js';

const pending = new Set<Promise<void>>();

export function runInBackground(label: string, work: () => Promise<void>): void {
  const task = (async () => {
    try {
      await work();
    } catch (error) {
      logger.error({ err: error instanceof Error ? error.message : String(error), task: label }, 'background task failed');
    }
  })();
  pending.add(task);
  void task.finally(() => pending.delete(task));
}

/** Resolves once every background task started so far has finished. */
export async function settleBackgroundTasks(): Promise<void> {
  while (pending.size > 0) await Promise.all([...pending]);
}
