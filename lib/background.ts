// Work done after the answer has left (emails of forgot / resend), so that the answer
// takes the same time whether an account exists or not. Shutdown and tests wait for it.
import type { Logger } from './logger.js';

export class BackgroundTasks {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  run(label: string, work: () => Promise<void>): void {
    const task = (async () => {
      try {
        await work();
      } catch (error) {
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
