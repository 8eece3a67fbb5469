// Shared infrastructure: a per-application limit on concurrent work that also paces it.
/**
 * A FIFO limit on concurrent work, created per application (by the module's
 * register()), which also paces it: a slot rests after each piece of work so that the
 * work takes at most `duty` of the slot's time.
 */
export interface Gate {
  run<T>(work: () => Promise<T>): Promise<T>;
}

export function createGate(limit: number, duty = 1): Gate {
  let active = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (active < limit) active++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      const started = performance.now();
      try {
        return await work();
      } finally {
        const rest = (performance.now() - started) * (1 / duty - 1);
        if (rest >= 1) setTimeout(release, rest);
        else release();
      }
    },
  };
}
