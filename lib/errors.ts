// One error hierarchy. Errors are thrown where the rule lives and mapped to an HTTP
// status exactly once, by middleware/error-handler.ts. Every AppError's message is
// written for the person reading it; anything that is not an AppError is internal and
// is replaced by a generic message.

export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  status = 500;
  code = 'internal_error';
  details?: ErrorDetail[];
  /** More fields of the JSON answer, beside error and code (a conflict's current state). */
  body?: Record<string, unknown>;
  // Subclasses set their default `code` as a field, which runs after this constructor:
  // they read the requested code from here so that `options.code` wins.
  protected requestedCode?: string;

  constructor(message: string, options?: { code?: string; details?: ErrorDetail[]; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    if (options?.code) this.code = this.requestedCode = options.code;
    if (options?.details) this.details = options.details;
  }
}

export class ValidationError extends AppError {
  override status = 400;
  override code = this.requestedCode ?? 'validation_error';
}

/** A failure the user can act on (expired link, wrong current password…): shown as it is. */
export class UserFacingError extends AppError {
  override status = 400;
  override code = this.requestedCode ?? 'user_error';
}

export class UnauthenticatedError extends AppError {
  override status = 401;
  override code = this.requestedCode ?? 'unauthenticated';
}

export class InvalidCredentialsError extends AppError {
  override status = 401;
  override code = this.requestedCode ?? 'invalid_credentials';
}

/** Raised by login() only when the password is right and the address is not verified. */
export class EmailNotVerifiedError extends AppError {
  override status = 401;
  override code = this.requestedCode ?? 'email_unverified';
}

/** Raised by login() only when the password is right and the account is suspended. */
export class AccountSuspendedError extends AppError {
  override status = 401;
  override code = this.requestedCode ?? 'account_suspended';
}

export class ForbiddenError extends AppError {
  override status = 403;
  override code = this.requestedCode ?? 'forbidden';
}

/**
 * A refusal about something the caller may not even see (a page outside its sections):
 * a refused form is answered with the error page, never with the form's own page, which
 * would show that thing.
 */
export class HiddenSubjectError extends ForbiddenError {}

export class NotFoundError extends AppError {
  override status = 404;
  override code = this.requestedCode ?? 'not_found';
}

export class ConflictError extends AppError {
  override status = 409;
  override code = this.requestedCode ?? 'conflict';
}

/**
 * A write based on a revision of a page that is no longer the newest: `current` is the
 * page's content now (its draft, else the live page, with its revision number), sent
 * with the 409 so that an editor can show it next to what was submitted.
 */
export class RevisionConflictError extends ConflictError {
  override code = 'revision_conflict';
  /** The content now (a module's own shape), answered as `current` so the client can merge. */
  readonly current: object;
  /** What a merge could not settle (a module's own shape), answered as `conflicts`. */
  readonly conflicts?: object[];

  constructor(message: string, current: object, conflicts?: object[]) {
    super(message);
    this.current = current;
    this.conflicts = conflicts;
    this.body = conflicts ? { current, conflicts } : { current };
  }
}

export class PayloadTooLargeError extends AppError {
  override status = 413;
  override code = this.requestedCode ?? 'payload_too_large';
}

export class UnsupportedMediaTypeError extends AppError {
  override status = 415;
  override code = this.requestedCode ?? 'unsupported_media_type';
}

export class RateLimitedError extends AppError {
  override status = 429;
  override code = this.requestedCode ?? 'rate_limited';
  retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export class ServiceUnavailableError extends AppError {
  override status = 503;
  override code = this.requestedCode ?? 'service_unavailable';
}

const DATABASE_UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01', // admin_shutdown (pg_terminate_backend)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '08000',
  '08003',
  '08006',
]);

/** True for the errors pg and knex raise while the database cannot be reached. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code;
  if (code && DATABASE_UNAVAILABLE_CODES.has(code)) return true;
  return /Connection terminated|connection timeout|Timeout acquiring a connection|Client has encountered a connection error|terminating connection|not currently accepting connections|the database system is (starting up|shutting down)/i.test(
    error.message,
  );
}
