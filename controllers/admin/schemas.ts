// joi schemas of the admin and profile forms (urlencoded; the HTML surfaces ignore
// fields they do not know), built from the shared primitives. Labels are the French
// field names, so messages read «Nom» est obligatoire.
import Joi from 'joi';
import { email, id, idParam, password, permissionKey, personName, roleDescription, roleLabel, roleName, sessionId, text } from '../../lib/schema-primitives.js';

export const userListQuery = Joi.object<{ search: string; page: number }>({
  search: text().trim().max(200).allow('').default(''),
  page: Joi.number().integer().min(1).max(1_000_000).default(1),
});

export interface InviteForm {
  name: string;
  email: string;
  role: string;
  password: string;
}
export const inviteUserForm = Joi.object<InviteForm>({
  name: personName.label('Nom').required(),
  email: email.label('Courriel').required(),
  role: roleName.label('Rôle').required(),
  // Empty means «send an invitation».
  password: password.allow('').default('').label('Mot de passe'),
});
// The detail page changes roles in its «Rôles» panel only; `role` (the primary role) is still accepted.
export const editUserForm = Joi.object<{ name: string; role?: string }>({ name: personName.label('Nom').required(), role: roleName.label('Rôle') });
export const userEmailForm = Joi.object<{ email: string }>({ email: email.label('Courriel').required() });
export const userPasswordForm = Joi.object<{ password: string }>({ password: password.label('Mot de passe').required() });
export const assignRoleForm = Joi.object<{ role_id: number }>({ role_id: id.label('Rôle').required() });
export const suspendUserForm = Joi.object<{ reason: string }>({ reason: text().trim().max(500).allow('').default('').label('Motif') });
export const deleteOwnAccountForm = Joi.object<{ current_password: string }>({ current_password: password.label('Mot de passe actuel').required() });

export interface RoleForm {
  /** Absent from the form of a system role, whose name never changes. */
  name?: string;
  /** Required when creating on the screen (the API may leave it to the name); absent from `admin`'s form. */
  label?: string;
  description: string;
  permissions: string[];
  /** A checkbox: absent means false. */
  require_2fa: boolean;
  /** The checkbox shown when the requirement would shut the manager out until it enrols. */
  confirm: boolean;
  /** Hidden: the form came back once with «Accéder à l'administration» ticked; now saved as chosen. */
  admin_access_warned: boolean;
  /** «Toutes» (every way) or «Seulement» the ticked `sign_in_methods`; absent from `admin`'s form. */
  sign_in_policy?: 'any' | 'listed';
  sign_in_methods: string[];
}
const adminAccessWarned = Joi.boolean().truthy('1', 'on').default(false).label('Avertissement');
const requireSecondFactor = Joi.boolean().truthy('1', 'on').default(false).label('Vérification en deux étapes obligatoire');
const permissionKeys = Joi.array().items(permissionKey).max(500).single().default([]);
const signInPolicy = Joi.string().valid('any', 'listed').label('Moyens de connexion');
const signInMethods = Joi.array()
  .items(Joi.string().pattern(/^(password|passkey|sso:[1-9][0-9]{0,9})$/))
  .max(100)
  .single()
  .default([])
  .label('Moyens de connexion');
const description = roleDescription.default('').label('Description');
const label = roleLabel.label('Libellé').required();
// The key may be left empty: it is derived from the label (controllers/admin/roles.ts).
export const newRoleForm = Joi.object<Omit<RoleForm, 'confirm'>>({
  label,
  name: roleName.allow('').default('').label('Clé'),
  description,
  permissions: permissionKeys,
  require_2fa: requireSecondFactor,
  admin_access_warned: adminAccessWarned,
  sign_in_policy: signInPolicy.default('any'),
  sign_in_methods: signInMethods,
});
// Absent from the form of `admin` (only its two-step requirement changes), never empty.
export const roleForm = Joi.object<RoleForm>({
  label: roleLabel.label('Libellé'),
  name: roleName.allow('').label('Clé'),
  description,
  permissions: permissionKeys,
  require_2fa: requireSecondFactor,
  confirm: Joi.boolean().truthy('1', 'on').default(false).label('Confirmation'),
  admin_access_warned: adminAccessWarned,
  sign_in_policy: signInPolicy,
  sign_in_methods: signInMethods,
});

// Two-step verification forms of the profile (/account/2fa).
const secondFactorCode = text()
  .trim()
  .max(40)
  .pattern(/^[A-Za-z0-9 -]+$/)
  .required()
  .label('Code')
  .messages({ 'string.pattern.base': '{{#label}} ne contient que des chiffres (ou, pour un code de secours, des lettres, chiffres et tirets).' });
const currentPassword = password.label('Mot de passe actuel').required();
export const twoFactorSetupForm = Joi.object<{ current_password: string }>({ current_password: currentPassword });
export const twoFactorCodeForm = Joi.object<{ code: string }>({ code: secondFactorCode });
export const twoFactorCheckForm = Joi.object<{ current_password: string; code: string }>({ current_password: currentPassword, code: secondFactorCode });

export const profileNameForm = Joi.object<{ name: string }>({ name: personName.label('Nom').required() });
// A checkbox: ticked sends `on`, unticked sends nothing (off).
export const reviewEmailsForm = Joi.object<{ review_emails: boolean }>({ review_emails: Joi.boolean().truthy('on').default(false) });
export const profileEmailForm = Joi.object<{ email: string; current_password: string }>({
  email: email.label('Nouveau courriel').required(),
  current_password: password.label('Mot de passe actuel').required(),
});
export const profilePasswordForm = Joi.object<{ current_password: string; new_password: string; confirm_password: string }>({
  current_password: password.label('Mot de passe actuel').required(),
  new_password: password.label('Nouveau mot de passe').required(),
  confirm_password: password.label('Confirmation').required(),
});
export const sessionIdParams = Joi.object<{ sessionId: string }>({ sessionId: sessionId.required() });
export const userRoleParams = Joi.object<{ id: number; roleId: number }>({ id: idParam.required(), roleId: idParam.required() });
export { idParams } from '../../lib/schema-primitives.js';
