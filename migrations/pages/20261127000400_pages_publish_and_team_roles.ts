// Publishing apart from writing (issue 26), and three roles out of the box.
// - pages.publish: publish, schedule, unpublish (a live write); pages.manage keeps
//   creating and editing drafts, moving and deleting. Every role holding pages.manage
//   today gets pages.publish, so nothing changes for an existing site.
// - pages.review: approve or send back a page submitted for review.
// - pages.manage_own, pages.publish_own: the same as pages.manage and pages.publish,
//   for the pages the holder created (app_pages.author_id) only.
// - Roles «Contributeur», «Auteur», «Éditeur» (names contributor, author, editor), made
//   only when neither their name nor their label is taken: a site that already has such
//   a role keeps it as it is. They are ordinary roles (editable, deletable), and no later
//   version writes them again.
// Frozen as of this version (nothing imported from the module).
import type { Knex } from 'knex';

const PERMISSIONS = [
  { key: 'pages.publish', section: 'pages', label: 'Publier les pages (publier, programmer, rendre privée)', position: 3 },
  { key: 'pages.review', section: 'pages', label: 'Relire les pages soumises (approuver ou renvoyer)', position: 4 },
  { key: 'pages.manage_own', section: 'pages', label: 'Écrire les brouillons de ses propres pages', position: 5 },
  { key: 'pages.publish_own', section: 'pages', label: 'Publier ses propres pages', position: 6 },
];

const ROLES = [
  {
    name: 'contributor',
    label: 'Contributeur',
    description: 'Écrit les brouillons des pages qu’il a créées et les soumet à la relecture ; ne publie pas',
    permissions: ['admin.access', 'pages.view', 'pages.manage_own'],
  },
  {
    name: 'author',
    label: 'Auteur',
    description: 'Écrit et publie les pages qu’il a créées',
    permissions: ['admin.access', 'pages.view', 'pages.manage_own', 'pages.publish_own'],
  },
  {
    name: 'editor',
    label: 'Éditeur',
    description: 'Toutes les pages : écriture, publication, relecture, médias, redirections et menus',
    permissions: ['admin.access', 'pages.view', 'pages.manage', 'pages.publish', 'pages.review', 'menus.manage'],
  },
];

export async function up(knex: Knex): Promise<void> {
  await knex('app_auth_permissions').insert(PERMISSIONS).onConflict('key').merge();
  await knex.raw(
    `INSERT INTO app_auth_role_permissions (role_id, permission_key)
     SELECT role_id, 'pages.publish' FROM app_auth_role_permissions WHERE permission_key = 'pages.manage'
     ON CONFLICT DO NOTHING`,
  );
  // The system role admin holds every permission.
  await knex.raw(
    `INSERT INTO app_auth_role_permissions (role_id, permission_key)
     SELECT r.id, p.key FROM app_auth_roles r, app_auth_permissions p WHERE r.name = 'admin' AND p.key = ANY(?)
     ON CONFLICT DO NOTHING`,
    [PERMISSIONS.map((permission) => permission.key)],
  );
  for (const role of ROLES) {
    const taken = await knex.raw<{ rows: unknown[] }>(`SELECT 1 FROM app_auth_roles WHERE name = ? OR lower(label) = lower(?)`, [role.name, role.label]);
    if (taken.rows.length) continue;
    const [{ id }] = await knex('app_auth_roles')
      .insert({ name: role.name, label: role.label, description: role.description, system: false })
      .returning<Array<{ id: number }>>('id');
    await knex.raw(
      `INSERT INTO app_auth_role_permissions (role_id, permission_key)
       SELECT ?, key FROM app_auth_permissions WHERE key = ANY(?)`,
      [id, role.permissions],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  // Only the roles this migration made (same name and description); their grants go with them.
  for (const role of ROLES) await knex('app_auth_roles').where({ name: role.name, description: role.description, system: false }).delete();
  await knex('app_auth_permissions')
    .whereIn(
      'key',
      PERMISSIONS.map((permission) => permission.key),
    )
    .delete();
}
