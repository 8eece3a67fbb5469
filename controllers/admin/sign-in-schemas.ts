// joi schemas of the single sign-on providers: the JSON API's bodies (arrays, booleans)
// and the screen's form (a line of scopes, a line of domains, checkboxes).
import Joi from 'joi';
import { roleName, text } from '../../lib/schema-primitives.js';
import { singleLine, validateValue } from '../../lib/validation.js';
import type { SsoProviderInput } from '../../models/auth/sso-providers.js';

const label = singleLine(text().trim().min(1).max(100)).label('Libellé');
const issuer = text()
  .trim()
  .max(500)
  .uri({ scheme: ['https', 'http'] })
  .label('Adresse de l’émetteur')
  .messages({
    'string.uri': '{{#label}} doit être une adresse complète, par exemple https://accounts.example.com.',
    'string.uriCustomScheme': '{{#label}} doit être une adresse https://.',
  });
const clientId = singleLine(text().trim().min(1).max(255)).label('Identifiant du client');
const clientSecret = singleLine(text().max(1000)).allow('', null).label('Secret du client');
const scope = text()
  .pattern(/^[\x21-\x7e]{1,100}$/)
  .label('Portée')
  .messages({ 'string.pattern.base': '{{#label}} est un mot sans espace ni accent (openid, email, profile…).' });
const domain = text()
  .trim()
  .lowercase()
  .max(253)
  .pattern(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/)
  .label('Domaine')
  .messages({ 'string.pattern.base': '« {{#value}} » n’est pas un nom de domaine (par exemple example.org).' });
const acrValue = singleLine(text().trim().min(1).max(200)).label('Valeur acr');
const signupRole = roleName.allow(null, '').label('Rôle des nouveaux comptes');

const fields = {
  label,
  issuer,
  client_id: clientId,
  client_secret: clientSecret,
  scopes: Joi.array().items(scope).max(20).label('Portées'),
  allow_signup: Joi.boolean().label('Création de comptes'),
  allowed_domains: Joi.array().items(domain).max(50).label('Domaines autorisés'),
  signup_role: signupRole,
  enabled: Joi.boolean().label('Activé'),
  trust_mfa: Joi.boolean().label('Vérification en deux étapes du fournisseur'),
  mfa_acr_values: Joi.array().items(acrValue).max(20).label('Valeurs acr'),
};

/** POST /app/api/admin/sign-in/providers */
export const providerBody = Joi.object<SsoProviderInput>({
  ...fields,
  label: label.required(),
  issuer: issuer.required(),
  client_id: clientId.required(),
});
/** PUT /app/api/admin/sign-in/providers/:id: any of the fields; client_secret absent keeps it, null or '' removes it. */
export const providerChanges = Joi.object<Partial<SsoProviderInput>>(fields).min(1);

export const providerParams = Joi.object<{ id: number }>({ id: Joi.number().integer().min(1).max(2_147_483_647).required() });

/** The screen's form: words separated by spaces or commas. */
export interface ProviderForm {
  label: string;
  issuer: string;
  client_id: string;
  client_secret?: string;
  remove_secret?: boolean;
  scopes?: string;
  allow_signup: boolean;
  allowed_domains?: string;
  signup_role?: string;
  enabled: boolean;
  trust_mfa: boolean;
  mfa_acr_values?: string;
}

const checkbox = Joi.boolean().truthy('1', 'on').falsy('').default(false);
export const providerForm = Joi.object<ProviderForm>({
  label: label.required(),
  issuer: issuer.required(),
  client_id: clientId.required(),
  client_secret: clientSecret,
  remove_secret: checkbox,
  scopes: text().allow('').max(1000).label('Portées'),
  allow_signup: checkbox,
  allowed_domains: text().allow('').max(5000).label('Domaines autorisés'),
  signup_role: signupRole,
  enabled: checkbox,
  trust_mfa: checkbox,
  mfa_acr_values: text().allow('').max(5000).label('Valeurs acr'),
});

function words(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,;]+/).filter(Boolean);
}

/**
 * The form as the API's input, each list checked by the API's rules. `creating`: an
 * empty secret means none; when editing, it keeps the stored one (unless removed).
 */
export function providerInputOf(form: ProviderForm, creating: boolean): SsoProviderInput {
  const lists = validateValue<{ scopes: string[]; allowed_domains: string[]; mfa_acr_values: string[] }>(
    Joi.object({ scopes: fields.scopes, allowed_domains: fields.allowed_domains, mfa_acr_values: fields.mfa_acr_values }),
    { scopes: words(form.scopes), allowed_domains: words(form.allowed_domains), mfa_acr_values: words(form.mfa_acr_values) },
  );
  const secret = form.remove_secret ? null : form.client_secret ? form.client_secret : creating ? null : undefined;
  return {
    label: form.label,
    issuer: form.issuer,
    client_id: form.client_id,
    client_secret: secret,
    scopes: lists.scopes.length ? lists.scopes : ['openid', 'email', 'profile'],
    allow_signup: form.allow_signup,
    allowed_domains: lists.allowed_domains,
    signup_role: form.signup_role || null,
    enabled: form.enabled,
    trust_mfa: form.trust_mfa,
    mfa_acr_values: lists.mfa_acr_values,
  };
}
