// «Désactiver la vérification en deux étapes» on a user's page (/admin/users/:id): the
// same use case as DELETE /app/api/users/:id/2fa (users.manage, outranking rule, never
// one's own account; the user is told by email).
import type { Call } from '../../routes/define.js';
import { resetTwoFactorByAdmin } from '../../services/two-factor.js';
import { callerOf } from '../api/caller.js';
import { redirectWithFlash } from './shell.js';
import { adminTwoFactorMessages } from './messages.js';

// POST /admin/users/:id/2fa/delete
export async function resetUserTwoFactor({ ctx, req, res, params }: Call<{ id: number }>): Promise<void> {
  const user = await resetTwoFactorByAdmin(ctx, callerOf(req), params.id);
  redirectWithFlash(req, res, `/admin/users/${params.id}`, adminTwoFactorMessages.reset(user.email));
}
