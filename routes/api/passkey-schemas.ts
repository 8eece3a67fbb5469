// joi schemas of the passkey routes (/app/api/users/profile/passkeys…, /auth/passkey…).
// The authenticator's answers are the JSON shapes of @simplewebauthn/browser; a page's
// form may also post one as a JSON string in its `response` field (then parsed and held
// to the same shape). Inside `response` and `clientExtensionResults` the browser decides
// the keys: they are bounded in size, not listed.
import Joi from 'joi';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { idParam, password, text } from '../../lib/schema-primitives.js';
import { passkeyMessages } from '../../models/auth/passkey-messages.js';

const base64url = (max: number) =>
  Joi.string()
    .pattern(/^[A-Za-z0-9_-]*={0,2}$/)
    .max(max);
const RESPONSE_TEXT_MAX = 60_000;

const common = {
  id: base64url(1400).required(),
  rawId: base64url(1400).required(),
  type: Joi.string().valid('public-key').required(),
  authenticatorAttachment: Joi.string().valid('platform', 'cross-platform'),
  clientExtensionResults: Joi.object().unknown(true).default({}),
};

const registrationObject = Joi.object({
  ...common,
  response: Joi.object({
    clientDataJSON: base64url(4096).required(),
    attestationObject: base64url(32_768).required(),
    authenticatorData: base64url(32_768),
    transports: Joi.array().items(Joi.string().max(32)).max(10),
    publicKeyAlgorithm: Joi.number().integer(),
    publicKey: base64url(4096),
  })
    .unknown(true)
    .required(),
});

const authenticationObject = Joi.object({
  ...common,
  response: Joi.object({
    clientDataJSON: base64url(4096).required(),
    authenticatorData: base64url(32_768).required(),
    signature: base64url(4096).required(),
    userHandle: base64url(512),
  })
    .unknown(true)
    .required(),
});

/** The answer as an object (JSON) or as the JSON text of a form field. */
function answer(shape: Joi.ObjectSchema): Joi.AlternativesSchema {
  const fromText = Joi.string()
    .max(RESPONSE_TEXT_MAX)
    .custom((value: string, helpers) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        return helpers.error('any.invalid');
      }
      const checked: Joi.ValidationResult<unknown> = shape.validate(parsed);
      return checked.error ? helpers.error('any.invalid') : checked.value;
    });
  return Joi.alternatives()
    .try(shape, fromText)
    .messages({ 'alternatives.match': passkeyMessages.responseInvalid, 'any.invalid': passkeyMessages.responseInvalid });
}

export const passkeyOptionsBody = Joi.object<{ current_password: string }>({ current_password: password.required() });
const passkeyName = text().trim().min(1).max(100).messages({ 'string.empty': passkeyMessages.nameInvalid, 'string.max': passkeyMessages.nameInvalid });
export const addPasskeyBody = Joi.object<{ name: string; response: RegistrationResponseJSON }>({
  name: passkeyName.required(),
  response: answer(registrationObject).required(),
});
export const renamePasskeyBody = Joi.object<{ name: string }>({ name: passkeyName.required() });
/** The profile page's renaming form. */
export const renamePasskeyForm = Joi.object<{ name: string }>({ name: passkeyName.label('Nom de la clé').required() });
export const removePasskeyBody = Joi.object<{ current_password: string }>({ current_password: password.required() });
/** The profile page's removal form (field errors named as on the page). */
export const removePasskeyForm = Joi.object<{ current_password: string }>({ current_password: password.label('Mot de passe actuel').required() });
export const passkeyParams = Joi.object<{ id: number }>({ id: idParam.required() });
export const passkeySignInBody = Joi.object<{ response: AuthenticationResponseJSON }>({ response: answer(authenticationObject).required() });
