// Work done after the answer has left (emails of forgot / resend), so that the answer
// takes the same time whether an account exists or not. Shutdown and tests wait for it.
import type { Logger } from './logger.js';

/** True when the failure was already accounted for (a database outage, logged once): no line of its own. */
export type FailureNotice = (error: unknown, task: string) => boolean;

export class BackgroundTasks {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly logger: Logger,
    private readonly noticed: FailureNotice = () => false,
  ) {}

  run(label: string, work: () => Promise<void>): void {
    const task = (async () => {
      try {
        await work();
      } catch (error) {
        if (this.noticed(error, label)) {
          this.logger.debug({ task: label }, 'background task skipped: database unavailable');
          return;
        }
        this.logger.error({ err: error instanceof Error ? error.message : String(error), task: label }, 'background task failed');
      }
    })();
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }

  /** Resolves once every task started so far has finished. */
  async settle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
