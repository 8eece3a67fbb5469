// /admin/sign-in (sign_in.manage): the single sign-on providers, one form to add one,
// one page per provider (its callback URL to register at the provider, its settings,
// its deletion). Same use cases as the JSON API (services/sso-providers.ts).
import { listRoles } from '../../models/auth/roles.js';
import { getSsoProvider, listSsoProviders } from '../../models/auth/sso-providers.js';
import type { AnyCall, Call, FormLocals } from '../../routes/define.js';
import { callbackUrl } from '../../services/sso.js';
import { createProvider, editProvider, removeProvider } from '../../services/sso-providers.js';
import { adminMessages, adminTitles } from './messages.js';
import { providerInputOf, type ProviderForm } from './sign-in-schemas.js';
import { pathId, redirectWithFlash, renderAdmin } from './shell.js';

type None = Record<string, never>;

async function roleOptions(call: AnyCall): Promise<Array<{ value: string; label: string }>> {
  const { items } = await listRoles(call.ctx, { limit: 500, offset: 0 });
  return [
    { value: '', label: 'Utilisateur (rôle de base)' },
    ...items.filter((role) => role.name !== 'user').map((role) => ({ value: role.name, label: role.label })),
  ];
}

// GET /admin/sign-in — the list and the form to add one; also the page re-rendered when the addition is refused.
export async function showProviders(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  await renderAdmin(
    call,
    'admin/sign-in/list.njk',
    {
      pageTitle: adminTitles.signIn,
      providers: await listSsoProviders(call.ctx),
      roles: await roleOptions(call),
      values: { scopes: 'openid email profile', enabled: true },
      ...locals,
    },
    status,
  );
}

// POST /admin/sign-in
export async function saveNewProvider({ ctx, origin, req, res, body }: Call<None, None, ProviderForm>): Promise<void> {
  const provider = await createProvider(ctx, origin, providerInputOf(body, true));
  redirectWithFlash(req, res, `/admin/sign-in/${provider.id}`, adminMessages.providerCreated(provider.label));
}

// GET /admin/sign-in/:id — its callback URL, its settings; also the page re-rendered when a change is refused.
export async function showProvider(call: AnyCall, locals: FormLocals = {}, status = 200): Promise<void> {
  const provider = await getSsoProvider(call.ctx, pathId(call));
  const values = {
    ...provider,
    scopes: provider.scopes.join(' '),
    allowed_domains: provider.allowed_domains.join(' '),
    mfa_acr_values: provider.mfa_acr_values.join(' '),
    signup_role: provider.signup_role ?? '',
  };
  await renderAdmin(
    call,
    'admin/sign-in/provider.njk',
    {
      pageTitle: provider.label,
      provider,
      callbackUrl: callbackUrl(call.ctx, provider.id),
      roles: await roleOptions(call),
      values,
      ...locals,
    },
    status,
  );
}

// POST /admin/sign-in/:id
export async function saveProvider({ ctx, origin, req, res, params, body }: Call<{ id: number }, None, ProviderForm>): Promise<void> {
  await editProvider(ctx, origin, params.id, providerInputOf(body, false));
  redirectWithFlash(req, res, `/admin/sign-in/${params.id}`, adminMessages.providerSaved);
}

// POST /admin/sign-in/:id/delete
export async function deleteProvider({ ctx, origin, req, res, params }: Call<{ id: number }>): Promise<void> {
  const provider = await getSsoProvider(ctx, params.id);
  await removeProvider(ctx, origin, params.id);
  redirectWithFlash(req, res, '/admin/sign-in', adminMessages.providerDeleted(provider.label));
}
