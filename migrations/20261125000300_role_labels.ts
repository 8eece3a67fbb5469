// Role labels, frozen as of this version: what the screens show instead of the key
// (`name`, which grants by name in the API and stays unchanged). The built-in roles get
// their French labels; a role created before this version is labelled with its name.
// Labels are unique whatever their case, so two roles never read the same on a screen.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE app_auth_roles ADD COLUMN label varchar(100)`);
  await knex.raw(`UPDATE app_auth_roles SET label = CASE name WHEN 'admin' THEN 'Administrateur' WHEN 'user' THEN 'Utilisateur' ELSE name END`);
  // A custom role named like a built-in label keeps its name with its key beside it.
  await knex.raw(
    `UPDATE app_auth_roles r SET label = r.name || ' (' || r.id || ')'
     WHERE NOT r.system AND EXISTS (SELECT 1 FROM app_auth_roles s WHERE s.system AND s.id <> r.id AND lower(s.label) = lower(r.label))`,
  );
  await knex.raw(`ALTER TABLE app_auth_roles ALTER COLUMN label SET NOT NULL`);
  await knex.raw(`CREATE UNIQUE INDEX app_auth_roles_label_unique ON app_auth_roles (lower(label))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX IF EXISTS app_auth_roles_label_unique`);
  await knex.raw(`ALTER TABLE app_auth_roles DROP COLUMN IF EXISTS label`);
}
