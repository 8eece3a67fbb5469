// Where a use case comes from: who asked (when logged in), from which address and
// client, under which request id. The route runner (routes/define.ts) builds it once
// per request from Express's request; services and the audit log receive it instead of
// the request, so a use case can be called from a script, a test or a background task
// as well as from a route. (Not the `Origin` header: that one is the CSRF check's.)

export interface Origin {
  /** The logged-in user; null for a visitor, a script or the system. */
  userId: number | null;
  /** Their name at the time of the request (the audit log keeps it as a snapshot). */
  name: string | null;
  /** The client address (Express's req.ip, following APP_TRUST_PROXY); null when none can be read. */
  ip: string | null;
  userAgent: string | null;
  /** The request's id (X-Request-Id, log lines); null outside a request. */
  requestId: string | null;
}
