import { ValidationError } from '../../lib/errors.js';
import { authMessages } from './messages.js';

const PASSWORD_MIN_LENGTH = 8;
// bcrypt reads only the first 72 bytes: a longer password is refused rather than
// silently truncated (see docs/decisions.md).
const PASSWORD_MAX_BYTES = 72;

/** Throws a ValidationError on the given field when the password breaks the policy. */
export function assertPasswordPolicy(password: string, field = 'password'): void {
  if ([...password].length < PASSWORD_MIN_LENGTH) {
    throw new ValidationError(authMessages.passwordTooShort, { details: [{ field, message: authMessages.passwordTooShort }] });
  }
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
    throw new ValidationError(authMessages.passwordTooLong, { details: [{ field, message: authMessages.passwordTooLong }] });
  }
}
