// The account's own passkeys in JSON (/app/api/users/profile/passkeys…), used by the
// profile page's script and open to any client. The registration challenge is bound to
// the session that asked for it.
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Request } from 'express';
import { UnauthenticatedError } from '../../lib/errors.js';
import { authMessagesForGuards } from '../../lib/messages.js';
import type { SessionUser } from '../../models/auth/users.js';
import type { Call } from '../../routes/define.js';
import { addPasskey, passkeyRegistrationOptions, passkeysOf, removePasskey, renamePasskey } from '../../services/passkeys.js';

type None = Record<string, never>;

function sessionUser(req: Request): SessionUser {
  if (!req.user) throw new UnauthenticatedError(authMessagesForGuards.loginRequired);
  return req.user;
}

/** What binds a registration's challenge: this session. */
function sessionBinding(req: Request): string {
  return `session:${req.sessionID}`;
}

// POST /app/api/users/profile/passkeys/options {current_password} — PublicKeyCredentialCreationOptionsJSON
export async function passkeyOptionsHandler({ ctx, origin, req, res, body }: Call<None, None, { current_password: string }>): Promise<void> {
  res.json(await passkeyRegistrationOptions(ctx, origin, sessionUser(req), sessionBinding(req), body.current_password));
}

// POST /app/api/users/profile/passkeys {name, response} — 201 {id, name, created_at}
export async function addPasskeyHandler({
  ctx,
  origin,
  req,
  res,
  body,
}: Call<None, None, { name: string; response: RegistrationResponseJSON }>): Promise<void> {
  const added = await addPasskey(ctx, origin, sessionUser(req), sessionBinding(req), body);
  res.status(201).json({ id: added.id, name: added.name, created_at: added.created_at });
}

// GET /app/api/users/profile/passkeys — {items: [{id, name, created_at, last_used_at}]}
export async function listPasskeysHandler({ ctx, req, res }: Call): Promise<void> {
  res.json({ items: await passkeysOf(ctx, sessionUser(req).id) });
}

// DELETE /app/api/users/profile/passkeys/:id {current_password} — 204
export async function removePasskeyHandler({ ctx, origin, req, res, params, body }: Call<{ id: number }, None, { current_password: string }>): Promise<void> {
  await removePasskey(ctx, origin, sessionUser(req), params.id, body.current_password);
  res.status(204).end();
}

// PATCH /app/api/users/profile/passkeys/:id {name} — 200 {id, name, created_at, last_used_at}
export async function renamePasskeyHandler({ ctx, origin, req, res, params, body }: Call<{ id: number }, None, { name: string }>): Promise<void> {
  res.json(await renamePasskey(ctx, origin, sessionUser(req), params.id, body.name));
}
