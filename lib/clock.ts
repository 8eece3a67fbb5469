// Time is read through here so tests can move it (token expiry, anti-bot form age)
// instead of sleeping.
let source: () => number = () => Date.now();

export function nowMs(): number {
  return source();
}

export function now(): Date {
  return new Date(source());
}

/** Tests only: replace the clock; call with no argument to restore the real one. */
export function setClock(fn?: () => number): void {
  source = fn ?? (() => Date.now());
}
