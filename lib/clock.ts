// Time is read through the application's clock so tests can move it (token expiry,
// anti-bot form age) instead of sleeping. One clock per application context.
export class Clock {
  private source: () => number = () => Date.now();

  nowMs(): number {
    return this.source();
  }

  now(): Date {
    return new Date(this.source());
  }

  /** Tests only: replace the time source; call with no argument to restore the real one. */
  set(fn?: () => number): void {
    this.source = fn ?? (() => Date.now());
  }
}
