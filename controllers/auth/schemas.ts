// joi schemas of the /auth forms (DESIGN §3 field names). Forms ignore fields they do
// not know (_csrf, _t, _hp, next…), which validateValue strips.
import Joi from 'joi';
import { authMessages } from '../../models/auth/messages.js';

const email = Joi.string().trim().lowercase().email({ tlds: false }).max(254).required().label('Courriel');
const name = Joi.string().trim().min(1).max(100).required().label('Nom');
// Length rules live in the model (assertPasswordPolicy); a cap here bounds the work.
const password = (label: string) => Joi.string().max(1000).required().label(label);
const token = Joi.string().trim().max(200).required().label('Code du lien');

export const loginSchema = Joi.object({ email, password: password('Mot de passe'), next: Joi.string().allow('').max(2000) });
export const accountSchema = Joi.object({ name, email, password: password('Mot de passe') });
export const emailOnlySchema = Joi.object({ email });
export const resetSchema = Joi.object({ email, token, newPassword: password('Nouveau mot de passe') });
export const confirmSchema = Joi.object({ email, token });
export const setupSchema = Joi.object({
  email,
  token,
  newPassword: password('Mot de passe'),
  confirmPassword: Joi.any()
    .valid(Joi.ref('newPassword'))
    .required()
    .label('Confirmation du mot de passe')
    .messages({ 'any.only': authMessages.passwordsDoNotMatch }),
});
