// The page shown at `/`, as one function the public site's statements call: the chosen
// page (the site's settings, passed in) while it and every ancestor are public, else the
// public root page `accueil`, else none. A PL/pgSQL function keeps its plan for the
// session: the same rule written inline in each render's statement cost about 0.3 ms of
// planning per render.
// Frozen as of this version (nothing imported from the module).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE FUNCTION app_pages_home_id(chosen integer) RETURNS integer LANGUAGE plpgsql STABLE AS $$
    DECLARE
      found integer;
    BEGIN
      IF chosen IS NOT NULL THEN
        WITH RECURSIVE up AS (
          SELECT p.parent_id, p.visibility, 1 AS depth FROM app_pages p WHERE p.id = chosen
          UNION ALL
          SELECT a.parent_id, a.visibility, up.depth + 1 FROM up JOIN app_pages a ON a.id = up.parent_id WHERE up.depth < 64
        )
        SELECT CASE WHEN bool_and(up.visibility = 'public') THEN chosen END INTO found FROM up;
        IF found IS NOT NULL THEN
          RETURN found;
        END IF;
      END IF;
      SELECT p.id INTO found FROM app_pages p WHERE COALESCE(p.parent_id, 0) = 0 AND p.slug = 'accueil' AND p.visibility = 'public';
      RETURN found;
    END $$`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP FUNCTION IF EXISTS app_pages_home_id(integer)');
}
