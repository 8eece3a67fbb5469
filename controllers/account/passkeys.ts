// The passkeys' section of the profile (/account, /admin/profile): the list comes with
// the page (controllers/account/profile.ts); removing one is a form behind the current
// password. Adding one needs the browser's WebAuthn, so the page's script
// (public/js/passkeys.js) does it through the JSON routes (controllers/api/passkeys.ts).
import type { Request } from 'express';
import type { Call } from '../../routes/define.js';
import { removePasskey, renamePasskey } from '../../services/passkeys.js';
import { callerOf } from '../api/caller.js';
import { redirectWithFlash } from '../admin/shell.js';
import { passkeyPageMessages } from './passkey-messages.js';

type None = Record<string, never>;

function base(req: Request): string {
  return req.baseUrl || '/account';
}

// POST …/passkeys/:id/delete {current_password}
export async function removePasskeyFromForm({ ctx, origin, req, res, params, body }: Call<{ id: number }, None, { current_password: string }>): Promise<void> {
  await removePasskey(ctx, origin, callerOf(req), params.id, body.current_password);
  redirectWithFlash(req, res, base(req), passkeyPageMessages.removed);
}

// POST …/passkeys/:id/rename {name}
export async function renamePasskeyFromForm({ ctx, origin, req, res, params, body }: Call<{ id: number }, None, { name: string }>): Promise<void> {
  await renamePasskey(ctx, origin, callerOf(req), params.id, body.name);
  redirectWithFlash(req, res, base(req), passkeyPageMessages.renamed);
}
