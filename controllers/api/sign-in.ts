// /app/api/admin/sign-in/providers[/:id] (sign_in.manage): the single sign-on
// providers as JSON. The client secret is write-only: answers say `client_secret_set`.
import type { Call } from '../../routes/define.js';
import { getSsoProvider, listSsoProviders, type SsoProviderInput } from '../../models/auth/sso-providers.js';
import { createProvider, editProvider, providerAnswer, removeProvider } from '../../services/sso-providers.js';

type None = Record<string, never>;
type Id = { id: number };

// GET /app/api/admin/sign-in/providers
export async function listProviders({ ctx, res }: Call): Promise<void> {
  const items = (await listSsoProviders(ctx)).map((provider) => providerAnswer(ctx, provider));
  res.json({ items, total: items.length, limit: items.length, offset: 0 });
}

// GET /app/api/admin/sign-in/providers/:id
export async function showProvider({ ctx, res, params }: Call<Id>): Promise<void> {
  res.json(providerAnswer(ctx, await getSsoProvider(ctx, params.id)));
}

// POST /app/api/admin/sign-in/providers → 201
export async function addProvider({ ctx, origin, res, body }: Call<None, None, SsoProviderInput>): Promise<void> {
  res.status(201).json(await createProvider(ctx, origin, body));
}

// PUT /app/api/admin/sign-in/providers/:id
export async function changeProvider({ ctx, origin, res, params, body }: Call<Id, None, Partial<SsoProviderInput>>): Promise<void> {
  res.json(await editProvider(ctx, origin, params.id, body));
}

// DELETE /app/api/admin/sign-in/providers/:id → 204
export async function deleteProvider({ ctx, origin, res, params }: Call<Id>): Promise<void> {
  await removeProvider(ctx, origin, params.id);
  res.status(204).end();
}
