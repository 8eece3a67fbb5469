// The client address that rate limits count against (DESIGN §3): Express's req.ip,
// which follows `trust proxy` (set only from APP_TRUST_PROXY), so a client can never
// pick its own address through X-Forwarded-For unless a trusted proxy wrote it.
// IPv6 clients usually hold a whole /64: they are grouped by it, or each could
// rotate addresses and get a fresh budget every time.
import type * as ExpressRateLimit from 'express-rate-limit';
import { warnOnce, type AppContext } from './context.js';
import { lazyRequire } from './lazy-require.js';

// Loaded by the first request a limiter counts, not at every start.
export const expressRateLimit = lazyRequire<typeof ExpressRateLimit>('express-rate-limit');

const IPV6_GROUP_PREFIX = 64;
const UNKNOWN_ADDRESS_WARNING = 'client-ip:unknown-address';

/** The rate-limit key of a client address (req.ip, an Origin's ip), or undefined when none could be read. */
export function clientAddressKey(ctx: AppContext, address: string | null | undefined): string | undefined {
  if (!address) {
    warnOnce(
      ctx,
      UNKNOWN_ADDRESS_WARNING,
      'the client address of a request could not be determined (no peer address, no trusted proxy header): ' +
        'rate limiting is suspended for such requests. Check APP_TRUST_PROXY and how the server is reached.',
    );
    return undefined;
  }
  return expressRateLimit().ipKeyGenerator(address, IPV6_GROUP_PREFIX);
}
