// joi schemas of the /auth forms and pages (DESIGN §3 field names), built from the
// shared primitives. Forms ignore fields they do not know (_csrf, _t, _hp…): the /auth
// surface is not strict, so validation strips them.
import Joi from 'joi';
import { FIRST_RUN_FIELD } from '../../lib/modules.js';
import { singleLine } from '../../lib/validation.js';
import { email as emailAddress, password as passwordText, personName, text } from '../../lib/schema-primitives.js';
import { authMessages } from '../../models/auth/messages.js';

const email = emailAddress.required().label('Courriel');
const name = personName.required().label('Nom');
// Length rules live in the model (assertPasswordPolicy); the primitive's cap bounds the work.
const password = (label: string) => passwordText.required().label(label);
// Pasted by hand when the link did not open: surrounding spaces are forgiven.
const token = text().trim().max(200).required().label('Code du lien');
const next = text().allow('').max(2000);

export interface LoginBody {
  email: string;
  password: string;
  next?: string;
}
export interface AccountBody {
  name: string;
  email: string;
  password: string;
}
export interface FirstRunBody extends AccountBody {
  /** Asked only when HOST is not loopback (lib/setup-code.ts). */
  setupCode?: string;
  /** The site's title (settings module); empty keeps APP_NAME. */
  siteTitle?: string;
  /** The ticked boxes of the modules' first-run choices (`sample_site`: true). */
  [choice: string]: string | boolean | undefined;
}
export interface EmailBody {
  email: string;
}
export interface LinkBody {
  email: string;
  token: string;
}
export interface NewPasswordBody extends LinkBody {
  newPassword: string;
}
export interface SetupBody extends NewPasswordBody {
  confirmPassword: string;
}

export interface SecondFactorBody {
  code: string;
}
/** A TOTP (6 digits) or a recovery code (16 signs; spaces and dashes forgiven). */
export const secondFactorSchema = Joi.object<SecondFactorBody>({
  code: text()
    .trim()
    .max(40)
    .pattern(/^[A-Za-z0-9 -]+$/)
    .required()
    .label('Code de vérification')
    .messages({ 'string.pattern.base': '{{#label}} ne contient que des chiffres (ou, pour un code de secours, des lettres, chiffres et tirets).' }),
});
export const loginSchema = Joi.object<LoginBody>({ email, password: password('Mot de passe'), next });
export const accountSchema = Joi.object<AccountBody>({ name, email, password: password('Mot de passe') });
export const firstRunSchema = Joi.object<FirstRunBody>({
  name,
  email,
  password: password('Mot de passe'),
  setupCode: text().allow('').max(100),
  siteTitle: singleLine(text().trim().max(120)).allow('').label('Titre du site'),
})
  // The modules' first-run choices (lib/modules.ts FirstRunChoice): a ticked box sends
  // `on`; any other field of that shape means nothing, as unknown fields are stripped.
  .pattern(FIRST_RUN_FIELD, Joi.boolean().truthy('on').failover(false));
export const emailOnlySchema = Joi.object<EmailBody>({ email });
export const resetSchema = Joi.object<NewPasswordBody>({ email, token, newPassword: password('Nouveau mot de passe') });
export const confirmSchema = Joi.object<LinkBody>({ email, token });
export const setupSchema = Joi.object<SetupBody>({
  email,
  token,
  newPassword: password('Mot de passe'),
  confirmPassword: text()
    .valid(Joi.ref('newPassword'))
    .required()
    .label('Confirmation du mot de passe')
    .messages({ 'any.only': authMessages.passwordsDoNotMatch }),
});

// Pages: values from links and redirects, only used to pre-fill a form or pick a message.
const shown = (max: number) => text().allow('').max(max);

export interface PageQuery {
  email?: string;
  token?: string;
  done?: string;
  next?: string;
}

export const pageQuery = Joi.object<PageQuery>({ email: shown(254), token: shown(200), done: shown(20), next });

/** `/:segment` of the pages and forms that answer any segment (login, first run). */
export const segmentParams = Joi.object<{ segment?: string }>({ segment: text() });

/** `/auth/sso/:provider`: the provider's id. */
export const ssoParams = Joi.object<{ provider: number }>({ provider: Joi.number().integer().min(1).max(2_147_483_647).required().label('Fournisseur') });
export const ssoStartQuery = Joi.object<{ next?: string }>({ next });
// The provider's answer (RFC 6749 §4.1.2, RFC 9207 `iss`): read again by openid-client from the URL.
const answer = text().allow('').max(4000);
export const ssoCallbackQuery = Joi.object({
  code: answer,
  state: answer,
  iss: answer,
  error: answer,
  error_description: answer,
  error_uri: answer,
  session_state: answer,
  scope: answer,
});
export const ssoLinkSchema = Joi.object<{ password: string }>({ password: password('Mot de passe') });
