// The authentication feature's db module. The tables and their seed rows are defined by
// the migrations (migrations/, frozen once applied); createTables()/dropTables() run
// those migrations rather than holding a second copy of the DDL that could drift.
import type { Knex } from 'knex';
import { coreMigrationsDirectory, migrateDirectoryDown, migrateDirectoryUp } from '../../lib/migrations.js';

export interface PermissionSectionSeed {
  key: string;
  label: string;
  position: number;
  permissions: Array<{ key: string; label: string }>;
}

// The core sections as the migrations seed them (positions below 100; modules add theirs
// from 100 on). Changing them here changes nothing in a database: a new migration does.
export const CORE_PERMISSION_SECTIONS: PermissionSectionSeed[] = [
  {
    key: 'administration',
    label: 'Administration',
    position: 10,
    permissions: [{ key: 'admin.access', label: 'Accéder à l’administration' }],
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
  {
    key: 'audit',
    label: 'Journal',
    position: 40,
    permissions: [{ key: 'audit.view', label: 'Consulter le journal' }],
  },
  {
    key: 'sign_in',
    label: 'Connexion',
    position: 50,
    permissions: [{ key: 'sign_in.manage', label: 'Gérer les moyens de connexion' }],
  },
];

/**
 * Applies the core's pending migrations (the auth tables and their seed rows), recorded
 * in knex_migrations like any other run. Other modules' tables reference
 * app_auth_users, so this comes first.
 */
export async function createTables(knex: Knex): Promise<void> {
  await migrateDirectoryUp(knex, coreMigrationsDirectory());
}

/** Undoes the core's migrations; the modules' must be undone before (their tables reference these). */
export async function dropTables(knex: Knex): Promise<void> {
  await migrateDirectoryDown(knex, coreMigrationsDirectory());
}
