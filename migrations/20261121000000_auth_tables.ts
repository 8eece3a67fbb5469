// The authentication tables and their reference rows, frozen as of this version: the DDL
// and the seeds are written out here, not imported from the models, so later edits to a
// model cannot change what this migration did. A schema change is a new migration.
// Other modules' tables reference app_auth_users, so these are created first and
// dropped last.
import type { Knex } from 'knex';

const TABLES = [
  `CREATE TABLE app_auth_roles (
    id serial PRIMARY KEY,
    name varchar(64) NOT NULL CONSTRAINT app_auth_roles_name_unique UNIQUE,
    description varchar(500) NOT NULL DEFAULT '',
    system boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
  )`,
  `CREATE TABLE app_auth_permission_sections (
    key varchar(64) CONSTRAINT app_auth_permission_sections_pkey PRIMARY KEY,
    label varchar(200) NOT NULL,
    position integer NOT NULL
  )`,
  `CREATE TABLE app_auth_permissions (
    key varchar(64) CONSTRAINT app_auth_permissions_pkey PRIMARY KEY,
    section varchar(64) NOT NULL CONSTRAINT app_auth_permissions_section_foreign
      REFERENCES app_auth_permission_sections (key) ON DELETE CASCADE,
    label varchar(200) NOT NULL,
    position integer NOT NULL DEFAULT 0
  )`,
  `CREATE TABLE app_auth_role_permissions (
    role_id integer NOT NULL CONSTRAINT app_auth_role_permissions_role_id_foreign
      REFERENCES app_auth_roles (id) ON DELETE CASCADE,
    permission_key varchar(64) NOT NULL CONSTRAINT app_auth_role_permissions_permission_key_foreign
      REFERENCES app_auth_permissions (key) ON DELETE CASCADE,
    CONSTRAINT app_auth_role_permissions_pkey PRIMARY KEY (role_id, permission_key)
  )`,
  // Addresses are stored trimmed and lower-cased; the unique index makes one account per
  // address. role_id is the primary role ("role" in the API); further roles live in
  // app_auth_user_roles.
  `CREATE TABLE app_auth_users (
    id serial PRIMARY KEY,
    email varchar(254) NOT NULL CONSTRAINT app_auth_users_email_unique UNIQUE,
    name varchar(100) NOT NULL,
    role_id integer NOT NULL CONSTRAINT app_auth_users_role_id_foreign REFERENCES app_auth_roles (id),
    email_verified boolean NOT NULL DEFAULT false,
    image varchar(255),
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
  )`,
  `CREATE INDEX app_auth_users_role_id_index ON app_auth_users (role_id)`,
  `CREATE TABLE app_auth_user_roles (
    user_id integer NOT NULL CONSTRAINT app_auth_user_roles_user_id_foreign
      REFERENCES app_auth_users (id) ON DELETE CASCADE,
    role_id integer NOT NULL CONSTRAINT app_auth_user_roles_role_id_foreign
      REFERENCES app_auth_roles (id) ON DELETE CASCADE,
    CONSTRAINT app_auth_user_roles_pkey PRIMARY KEY (user_id, role_id)
  )`,
  `CREATE INDEX app_auth_user_roles_role_id_index ON app_auth_user_roles (role_id)`,
  // Only the 'credential' provider has a password hash (bcrypt).
  `CREATE TABLE app_auth_accounts (
    id serial PRIMARY KEY,
    user_id integer NOT NULL CONSTRAINT app_auth_accounts_user_id_foreign
      REFERENCES app_auth_users (id) ON DELETE CASCADE,
    provider varchar(50) NOT NULL,
    account_id varchar(255) NOT NULL,
    password_hash varchar(100),
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT app_auth_accounts_provider_account_id_unique UNIQUE (provider, account_id),
    CONSTRAINT app_auth_accounts_user_id_provider_unique UNIQUE (user_id, provider)
  )`,
  // Token kinds and lifetimes are listed in the verifications model.
  `CREATE TABLE app_auth_verifications (
    id serial PRIMARY KEY,
    kind varchar(32) NOT NULL,
    identifier varchar(254) NOT NULL,
    user_id integer NOT NULL CONSTRAINT app_auth_verifications_user_id_foreign
      REFERENCES app_auth_users (id) ON DELETE CASCADE,
    token_hash varchar(64) NOT NULL CONSTRAINT app_auth_verifications_token_hash_unique UNIQUE,
    payload jsonb NOT NULL DEFAULT '{}',
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
  )`,
  `CREATE INDEX app_auth_verifications_user_id_kind_index ON app_auth_verifications (user_id, kind)`,
  `CREATE INDEX app_auth_verifications_expires_at_index ON app_auth_verifications (expires_at)`,
  // The connect-pg-simple store table (sid, sess, expire), plus what the profile's session
  // list shows and what "revoke all sessions of a user" needs.
  `CREATE TABLE app_auth_sessions (
    sid varchar(255) CONSTRAINT app_auth_sessions_pkey PRIMARY KEY,
    sess json NOT NULL,
    expire timestamptz(6) NOT NULL,
    user_id integer CONSTRAINT app_auth_sessions_user_id_foreign REFERENCES app_auth_users (id) ON DELETE CASCADE,
    public_id varchar(32) CONSTRAINT app_auth_sessions_public_id_unique UNIQUE,
    ip varchar(64),
    user_agent varchar(512),
    created_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP,
    last_seen_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP
  )`,
  `CREATE INDEX app_auth_sessions_expire_index ON app_auth_sessions (expire)`,
  `CREATE INDEX app_auth_sessions_user_id_index ON app_auth_sessions (user_id)`,
  // Counters of the per-IP rate limits, shared by every app process on the database.
  `CREATE TABLE app_auth_rate_limits (
    key varchar(255) CONSTRAINT app_auth_rate_limits_pkey PRIMARY KEY,
    hits integer NOT NULL,
    reset_at timestamptz NOT NULL
  )`,
  `CREATE INDEX app_auth_rate_limits_reset_at_index ON app_auth_rate_limits (reset_at)`,
];

// The core permission sections as of this version (positions below 100; modules add
// theirs from 100 on). A permission's position is its rank within its section.
const PERMISSION_SECTIONS = [
  { key: 'administration', label: 'Administration', position: 10 },
  { key: 'users', label: 'Utilisateurs', position: 20 },
  { key: 'roles', label: 'Rôles', position: 30 },
];
const PERMISSIONS = [
  { key: 'admin.access', section: 'administration', label: "Accéder à l'administration", position: 0 },
  { key: 'users.view', section: 'users', label: 'Consulter les utilisateurs', position: 0 },
  { key: 'users.manage', section: 'users', label: 'Gérer les utilisateurs', position: 1 },
  { key: 'roles.view', section: 'roles', label: 'Consulter les rôles', position: 0 },
  { key: 'roles.manage', section: 'roles', label: 'Gérer les rôles', position: 1 },
];
const ROLES = [
  { name: 'admin', description: 'Administrateur : toutes les permissions', system: true },
  { name: 'user', description: 'Utilisateur inscrit, sans permission', system: true },
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of TABLES) await knex.raw(statement);
  await knex('app_auth_permission_sections').insert(PERMISSION_SECTIONS);
  await knex('app_auth_permissions').insert(PERMISSIONS);
  // One at a time, so that admin gets id 1 and user id 2, as before.
  for (const role of ROLES) await knex('app_auth_roles').insert(role);
  // The system role admin holds every permission.
  await knex.raw(
    `INSERT INTO app_auth_role_permissions (role_id, permission_key)
     SELECT r.id, p.key FROM app_auth_roles r CROSS JOIN app_auth_permissions p WHERE r.name = 'admin'`,
  );
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    'app_auth_rate_limits',
    'app_auth_sessions',
    'app_auth_verifications',
    'app_auth_accounts',
    'app_auth_user_roles',
    'app_auth_users',
    'app_auth_role_permissions',
    'app_auth_permissions',
    'app_auth_permission_sections',
    'app_auth_roles',
  ]) {
    await knex.raw(`DROP TABLE IF EXISTS ${table}`);
  }
}
