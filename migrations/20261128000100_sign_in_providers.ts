// Single sign-on providers (OpenID Connect), frozen as of this version: one row per
// provider the site trusts, and the permission section «Connexion» with
// `sign_in.manage`. The client secret is stored encrypted (AES-256-GCM under the key of
// the two-step secrets, the provider's id as additional data): never in clear.
// A person's link to a provider is a row of app_auth_accounts (provider `sso:<id>`,
// account_id = the provider's `sub`), which needs no new column.
import type { Knex } from 'knex';

const STATEMENTS = [
  `CREATE TABLE app_auth_sso_providers (
    id serial CONSTRAINT app_auth_sso_providers_pkey PRIMARY KEY,
    label varchar(100) NOT NULL,
    issuer varchar(500) NOT NULL,
    client_id varchar(255) NOT NULL,
    client_secret text,
    scopes varchar(500) NOT NULL DEFAULT 'openid email profile',
    allow_signup boolean NOT NULL DEFAULT false,
    allowed_domains text[] NOT NULL DEFAULT '{}',
    signup_role_id integer CONSTRAINT app_auth_sso_providers_signup_role_id_foreign
      REFERENCES app_auth_roles (id) ON DELETE SET NULL,
    enabled boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
  )`,
  `CREATE UNIQUE INDEX app_auth_sso_providers_label_unique ON app_auth_sso_providers (lower(label))`,
];

const SECTION = { key: 'sign_in', label: 'Connexion', position: 50 };
const PERMISSIONS = [{ key: 'sign_in.manage', section: 'sign_in', label: 'Gérer les moyens de connexion', position: 0 }];

export async function up(knex: Knex): Promise<void> {
  for (const statement of STATEMENTS) await knex.raw(statement);
  await knex('app_auth_permission_sections').insert(SECTION).onConflict('key').merge();
  await knex('app_auth_permissions').insert(PERMISSIONS).onConflict('key').merge();
  // The system role admin holds every permission.
  await knex.raw(
    `INSERT INTO app_auth_role_permissions (role_id, permission_key)
     SELECT r.id, p.key FROM app_auth_roles r CROSS JOIN app_auth_permissions p WHERE r.name = 'admin'
     ON CONFLICT DO NOTHING`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DELETE FROM app_auth_accounts WHERE provider LIKE 'sso:%'`);
  await knex('app_auth_permission_sections').where({ key: SECTION.key }).delete();
  await knex.raw('DROP TABLE IF EXISTS app_auth_sso_providers');
}
