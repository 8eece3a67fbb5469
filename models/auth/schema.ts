// The authentication feature's db module: createTables()/dropTables(), called only by
// migrations (never at server start-up). The auth tables are created first and dropped
// last, because other modules' tables reference app_auth_users.
import type { Knex } from 'knex';

export interface PermissionSectionSeed {
  key: string;
  label: string;
  position: number;
  permissions: Array<{ key: string; label: string }>;
}

// Core sections come first (positions below 100); modules add theirs from 100 on.
export const CORE_PERMISSION_SECTIONS: PermissionSectionSeed[] = [
  {
    key: 'administration',
    label: 'Administration',
    position: 10,
    permissions: [{ key: 'admin.access', label: "Accéder à l'administration" }],
  },
  {
    key: 'users',
    label: 'Utilisateurs',
    position: 20,
    permissions: [
      { key: 'users.view', label: 'Consulter les utilisateurs' },
      { key: 'users.manage', label: 'Gérer les utilisateurs' },
    ],
  },
  {
    key: 'roles',
    label: 'Rôles',
    position: 30,
    permissions: [
      { key: 'roles.view', label: 'Consulter les rôles' },
      { key: 'roles.manage', label: 'Gérer les rôles' },
    ],
  },
];

export async function createTables(knex: Knex): Promise<void> {
  await knex.schema.createTable('app_auth_roles', (table) => {
    table.increments('id').primary();
    table.string('name', 64).notNullable().unique();
    table.string('description', 500).notNullable().defaultTo('');
    table.boolean('system').notNullable().defaultTo(false);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });

  await knex.schema.createTable('app_auth_permission_sections', (table) => {
    table.string('key', 64).primary();
    table.string('label', 200).notNullable();
    table.integer('position').notNullable();
  });

  await knex.schema.createTable('app_auth_permissions', (table) => {
    table.string('key', 64).primary();
    table.string('section', 64).notNullable().references('key').inTable('app_auth_permission_sections').onDelete('CASCADE');
    table.string('label', 200).notNullable();
    table.integer('position').notNullable().defaultTo(0);
  });

  await knex.schema.createTable('app_auth_role_permissions', (table) => {
    table.integer('role_id').notNullable().references('id').inTable('app_auth_roles').onDelete('CASCADE');
    table.string('permission_key', 64).notNullable().references('key').inTable('app_auth_permissions').onDelete('CASCADE');
    table.primary(['role_id', 'permission_key']);
  });

  await knex.schema.createTable('app_auth_users', (table) => {
    table.increments('id').primary();
    // Stored trimmed and lower-cased; the unique index makes one account per address.
    table.string('email', 254).notNullable().unique();
    table.string('name', 100).notNullable();
    // The primary role ("role" in the API); further roles live in app_auth_user_roles.
    table.integer('role_id').notNullable().references('id').inTable('app_auth_roles');
    table.boolean('email_verified').notNullable().defaultTo(false);
    table.string('image', 255).nullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['role_id']);
  });

  await knex.schema.createTable('app_auth_user_roles', (table) => {
    table.integer('user_id').notNullable().references('id').inTable('app_auth_users').onDelete('CASCADE');
    table.integer('role_id').notNullable().references('id').inTable('app_auth_roles').onDelete('CASCADE');
    table.primary(['user_id', 'role_id']);
    table.index(['role_id']);
  });

  await knex.schema.createTable('app_auth_accounts', (table) => {
    table.increments('id').primary();
    table.integer('user_id').notNullable().references('id').inTable('app_auth_users').onDelete('CASCADE');
    table.string('provider', 50).notNullable();
    table.string('account_id', 255).notNullable();
    // Only the 'credential' provider has a password hash (bcrypt).
    table.string('password_hash', 100).nullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['provider', 'account_id']);
    table.unique(['user_id', 'provider']);
  });

  // Token kinds and lifetimes are listed in models/verifications.ts.
  await knex.schema.createTable('app_auth_verifications', (table) => {
    table.increments('id').primary();
    table.string('kind', 32).notNullable();
    table.string('identifier', 254).notNullable();
    table.integer('user_id').notNullable().references('id').inTable('app_auth_users').onDelete('CASCADE');
    table.string('token_hash', 64).notNullable().unique();
    table.jsonb('payload').notNullable().defaultTo('{}');
    table.timestamp('expires_at', { useTz: true }).notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['user_id', 'kind']);
    table.index(['expires_at']);
  });

  // The connect-pg-simple store table (sid, sess, expire), plus what the profile's
  // session list shows and what "revoke all sessions of a user" needs.
  await knex.schema.createTable('app_auth_sessions', (table) => {
    table.string('sid', 255).primary();
    table.json('sess').notNullable();
    table.timestamp('expire', { precision: 6, useTz: true }).notNullable();
    table.integer('user_id').nullable().references('id').inTable('app_auth_users').onDelete('CASCADE');
    table.string('public_id', 32).nullable().unique();
    table.string('ip', 64).nullable();
    table.string('user_agent', 512).nullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['expire']);
    table.index(['user_id']);
  });

  // Counters of the per-IP rate limits, shared by every app process on the database.
  await knex.schema.createTable('app_auth_rate_limits', (table) => {
    table.string('key', 255).primary();
    table.integer('hits').notNullable();
    table.timestamp('reset_at', { useTz: true }).notNullable();
    table.index(['reset_at']);
  });

  await seedPermissionSections(knex, CORE_PERMISSION_SECTIONS);
  const [admin] = await knex('app_auth_roles')
    .insert({ name: 'admin', description: 'Administrateur : toutes les permissions', system: true })
    .returning('id');
  await knex('app_auth_roles').insert({ name: 'user', description: 'Utilisateur inscrit, sans permission', system: true });
  await grantAllPermissionsToAdmin(knex, admin.id ?? admin);
}

export async function dropTables(knex: Knex): Promise<void> {
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
    await knex.schema.dropTableIfExists(table);
  }
}

/** Idempotent: modules call it from their own migrations to add their section. */
export async function seedPermissionSections(knex: Knex, sections: PermissionSectionSeed[]): Promise<void> {
  for (const section of sections) {
    await knex('app_auth_permission_sections')
      .insert({ key: section.key, label: section.label, position: section.position })
      .onConflict('key')
      .merge();
    for (const [index, permission] of section.permissions.entries()) {
      await knex('app_auth_permissions')
        .insert({ key: permission.key, section: section.key, label: permission.label, position: index })
        .onConflict('key')
        .merge();
    }
  }
  await grantAllPermissionsToAdmin(knex);
}

/** The system role admin holds every permission, including those modules add later. */
async function grantAllPermissionsToAdmin(knex: Knex, adminRoleId?: number): Promise<void> {
  const roleId = adminRoleId ?? (await knex('app_auth_roles').where({ name: 'admin' }).first('id'))?.id;
  if (!roleId) return;
  await knex.raw(
    `INSERT INTO app_auth_role_permissions (role_id, permission_key)
     SELECT ?, key FROM app_auth_permissions ON CONFLICT DO NOTHING`,
    [roleId],
  );
}

/** For a module's down migration. */
export async function removePermissionSection(knex: Knex, sectionKey: string): Promise<void> {
  await knex('app_auth_permission_sections').where({ key: sectionKey }).delete();
}
