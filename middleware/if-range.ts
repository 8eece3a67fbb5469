// If-Range (RFC 9110 §13.1.5): a client resuming a download sends the validator of the
// part it holds; the range is sent only if that validator is strong and still current,
// else the whole representation. A weak ETag (`W/"…"`) never matches (strong comparison),
// and a date matches only if it is exactly the Last-Modified and that time is strong:
// at least a second before the answer, so that no second change could share it.
import type { NextFunction, Request, Response } from 'express';

export interface Validators {
  /** The answer's ETag, strong (`"…"`) or weak (`W/"…"`). */
  etag: string;
  lastModified: Date;
  now: Date;
}

/** Whether a Range request may be answered with its range: If-Range absent, or naming these strong validators. */
export function ifRangeHolds(header: string | undefined, validators: Validators): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/')) {
    return !value.startsWith('W/') && !validators.etag.startsWith('W/') && value === validators.etag;
  }
  const date = Date.parse(value);
  const seconds = Math.floor(validators.lastModified.getTime() / 1000);
  const strongDate = validators.now.getTime() - validators.lastModified.getTime() >= 1000;
  return !Number.isNaN(date) && strongDate && new Date(seconds * 1000).toUTCString() === value;
}

/**
 * For express.static and res.sendFile (the `send` package): their ETags are weak and
 * they honour If-Range by a substring match and a date "not before", so a Range with an
 * If-Range is answered whole here, as §13.1.5 asks of a weak validator. A Range alone
 * is left to them.
 */
export function wholeAnswerUnderIfRange(req: Request, _res: Response, next: NextFunction): void {
  if (req.headers['if-range'] !== undefined) delete req.headers.range;
  next();
}
