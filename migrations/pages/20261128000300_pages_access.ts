// Pages for members (issue 26, item 6), frozen as of this version (nothing imported from
// the module). Beside `visibility` (public/private), a page's `access`:
//   everyone  anyone may read it (the default: every page there is keeps it);
//   members   any signed-in account;
//   roles     an account holding one of `access_roles` (role ids; never empty then).
// It holds for the page's whole subtree, as visibility does: a page is readable when the
// rule of the page and of every ancestor lets the reader in.
//
// `restricted`, maintained by triggers as app_page_search.visible is, says whether the
// page or an ancestor asks anything more than `everyone`: the shared public reads (the
// cache, child lists, navigation, menus, sitemap, search) test it on the row itself,
// never walking up. A BEFORE trigger computes it from the parent on insert, move and
// access change; an AFTER trigger carries a change down the subtree (one statement) and
// then has the whole public cache dropped (`all`): what anonymous readers were shown of
// the branch (a menu, a list, the sitemap) may no longer be shown, and a restriction is
// rare. Search folds it into `visible`, so its index never finds such a page.
import type { Knex } from 'knex';

const UP = [
  `ALTER TABLE app_pages
     ADD COLUMN access varchar(10) NOT NULL DEFAULT 'everyone',
     ADD COLUMN access_roles integer[] NOT NULL DEFAULT '{}',
     ADD COLUMN restricted boolean NOT NULL DEFAULT false,
     ADD CONSTRAINT app_pages_access_check CHECK (access IN ('everyone', 'members', 'roles')),
     ADD CONSTRAINT app_pages_access_roles_check CHECK ((access = 'roles') = (cardinality(access_roles) > 0))`,

  `CREATE FUNCTION app_pages_access_inherit() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     NEW.restricted := NEW.access <> 'everyone'
       OR COALESCE((SELECT p.restricted FROM app_pages p WHERE p.id = NEW.parent_id), false);
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER app_pages_access_inherit BEFORE INSERT OR UPDATE OF access, parent_id ON app_pages
   FOR EACH ROW EXECUTE FUNCTION app_pages_access_inherit()`,

  // The subtree's rows are updated on `restricted` alone: neither trigger fires again for them.
  `CREATE FUNCTION app_pages_access_cascade() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.restricted IS NOT DISTINCT FROM OLD.restricted THEN
       RETURN NULL;
     END IF;
     WITH RECURSIVE sub AS (
       SELECT c.id, c.access <> 'everyone' OR NEW.restricted AS restricted, 1 AS depth
       FROM app_pages c WHERE c.parent_id = NEW.id
       UNION ALL
       SELECT c.id, c.access <> 'everyone' OR sub.restricted, sub.depth + 1
       FROM sub JOIN app_pages c ON c.parent_id = sub.id
       WHERE sub.depth < 256
     )
     UPDATE app_pages p SET restricted = sub.restricted FROM sub WHERE p.id = sub.id AND p.restricted IS DISTINCT FROM sub.restricted;
     PERFORM app_pages_public_notify_send(jsonb_build_object('all', true));
     RETURN NULL;
   END $$`,
  `CREATE TRIGGER app_pages_access_cascade AFTER UPDATE OF access, parent_id ON app_pages
   FOR EACH ROW EXECUTE FUNCTION app_pages_access_cascade()`,

  // Search: as migration pages/20261128000100_pages_search left it, with `restricted`
  // folded into `visible` and watched by the trigger.
  `CREATE OR REPLACE FUNCTION app_page_search_write() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      content_changed boolean := TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title OR NEW.blocks IS DISTINCT FROM OLD.blocks OR NEW.seo IS DISTINCT FROM OLD.seo;
      place_changed boolean := TG_OP = 'INSERT' OR NEW.visibility IS DISTINCT FROM OLD.visibility OR NEW.parent_id IS DISTINCT FROM OLD.parent_id
        OR NEW.restricted IS DISTINCT FROM OLD.restricted;
      parent_visible boolean;
    BEGIN
      IF content_changed THEN
        INSERT INTO app_page_search_words (word)
        SELECT w FROM app_page_search_words_of(NEW.title, NEW.blocks, NEW.seo) AS w
        WHERE NOT EXISTS (SELECT 1 FROM app_page_search_words v WHERE v.word = w)
        ON CONFLICT DO NOTHING;
      END IF;
      IF NEW.parent_id IS NULL THEN
        parent_visible := true;
      ELSE
        SELECT s.visible INTO parent_visible FROM app_page_search s WHERE s.page_id = NEW.parent_id;
      END IF;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO app_page_search (page_id, visible, document)
        VALUES (NEW.id, NEW.visibility = 'public' AND NOT NEW.restricted AND COALESCE(parent_visible, false),
                app_page_search_document(NEW.title, NEW.blocks, NEW.seo));
        RETURN NULL;
      END IF;
      IF content_changed THEN
        UPDATE app_page_search SET document = app_page_search_document(NEW.title, NEW.blocks, NEW.seo) WHERE page_id = NEW.id;
      END IF;
      IF place_changed THEN
        WITH RECURSIVE sub AS (
          SELECT NEW.id AS id, NEW.visibility = 'public' AND NOT NEW.restricted AND COALESCE(parent_visible, false) AS visible, 1 AS depth
          UNION ALL
          SELECT c.id, sub.visible AND c.visibility = 'public' AND NOT c.restricted, sub.depth + 1
          FROM sub JOIN app_pages c ON c.parent_id = sub.id
          WHERE sub.depth < 256
        )
        UPDATE app_page_search s SET visible = sub.visible FROM sub WHERE s.page_id = sub.id AND s.visible IS DISTINCT FROM sub.visible;
      END IF;
      RETURN NULL;
    END $$`,
  'DROP TRIGGER app_page_search_write ON app_pages',
  // `access` too: a trigger's column list names the columns an UPDATE sets, and `restricted`
  // changes on the page itself through the BEFORE trigger, from `access`.
  'CREATE TRIGGER app_page_search_write AFTER INSERT OR UPDATE OF title, blocks, seo, visibility, parent_id, access, restricted ON app_pages FOR EACH ROW EXECUTE FUNCTION app_page_search_write()',

  // Menus: as migration pages/20261127000300_pages_menus_render left it, a restricted
  // linked page left out (the menus are part of the shared, cached pages).
  `CREATE OR REPLACE FUNCTION app_page_menus_render(home_id integer, OUT menus json, OUT menus_at timestamptz, OUT linked json)
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
      SELECT json_object_agg(m.name, m.items), max(m.updated_at) INTO menus, menus_at FROM app_page_menus m;
      IF menus IS NULL THEN
        RETURN;
      END IF;
      SELECT json_agg(json_build_array(l.page_id, l.title, CASE WHEN l.page_id = home_id THEN '/' ELSE '/' || l.path END)) INTO linked
      FROM (
        WITH RECURSIVE up AS (
          SELECT p.id AS page_id, p.parent_id AS next_id, p.slug::text AS path, p.title::text AS title, p.visibility = 'public' AS visible, 1 AS depth
          FROM app_pages p WHERE p.id IN (SELECT app_page_menus_linked_ids()) AND NOT p.restricted
          UNION ALL
          SELECT up.page_id, a.parent_id, a.slug || '/' || up.path, up.title, up.visible AND a.visibility = 'public', up.depth + 1
          FROM up JOIN app_pages a ON a.id = up.next_id
          WHERE up.visible AND up.depth < 256
        )
        SELECT up.page_id, up.title, up.path FROM up WHERE up.next_id IS NULL AND up.visible
      ) l;
    END $$`,
];

const DOWN = [
  `CREATE OR REPLACE FUNCTION app_page_menus_render(home_id integer, OUT menus json, OUT menus_at timestamptz, OUT linked json)
    LANGUAGE plpgsql STABLE AS $$
    BEGIN
      SELECT json_object_agg(m.name, m.items), max(m.updated_at) INTO menus, menus_at FROM app_page_menus m;
      IF menus IS NULL THEN
        RETURN;
      END IF;
      SELECT json_agg(json_build_array(l.page_id, l.title, CASE WHEN l.page_id = home_id THEN '/' ELSE '/' || l.path END)) INTO linked
      FROM (
        WITH RECURSIVE up AS (
          SELECT p.id AS page_id, p.parent_id AS next_id, p.slug::text AS path, p.title::text AS title, p.visibility = 'public' AS visible, 1 AS depth
          FROM app_pages p WHERE p.id IN (SELECT app_page_menus_linked_ids())
          UNION ALL
          SELECT up.page_id, a.parent_id, a.slug || '/' || up.path, up.title, up.visible AND a.visibility = 'public', up.depth + 1
          FROM up JOIN app_pages a ON a.id = up.next_id
          WHERE up.visible AND up.depth < 256
        )
        SELECT up.page_id, up.title, up.path FROM up WHERE up.next_id IS NULL AND up.visible
      ) l;
    END $$`,
  'DROP TRIGGER app_page_search_write ON app_pages',
  `CREATE OR REPLACE FUNCTION app_page_search_write() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      content_changed boolean := TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title OR NEW.blocks IS DISTINCT FROM OLD.blocks OR NEW.seo IS DISTINCT FROM OLD.seo;
      place_changed boolean := TG_OP = 'INSERT' OR NEW.visibility IS DISTINCT FROM OLD.visibility OR NEW.parent_id IS DISTINCT FROM OLD.parent_id;
      parent_visible boolean;
    BEGIN
      IF content_changed THEN
        INSERT INTO app_page_search_words (word)
        SELECT w FROM app_page_search_words_of(NEW.title, NEW.blocks, NEW.seo) AS w
        WHERE NOT EXISTS (SELECT 1 FROM app_page_search_words v WHERE v.word = w)
        ON CONFLICT DO NOTHING;
      END IF;
      IF NEW.parent_id IS NULL THEN
        parent_visible := true;
      ELSE
        SELECT s.visible INTO parent_visible FROM app_page_search s WHERE s.page_id = NEW.parent_id;
      END IF;
      IF TG_OP = 'INSERT' THEN
        INSERT INTO app_page_search (page_id, visible, document)
        VALUES (NEW.id, NEW.visibility = 'public' AND COALESCE(parent_visible, false), app_page_search_document(NEW.title, NEW.blocks, NEW.seo));
        RETURN NULL;
      END IF;
      IF content_changed THEN
        UPDATE app_page_search SET document = app_page_search_document(NEW.title, NEW.blocks, NEW.seo) WHERE page_id = NEW.id;
      END IF;
      IF place_changed THEN
        WITH RECURSIVE sub AS (
          SELECT NEW.id AS id, NEW.visibility = 'public' AND COALESCE(parent_visible, false) AS visible, 1 AS depth
          UNION ALL
          SELECT c.id, sub.visible AND c.visibility = 'public', sub.depth + 1
          FROM sub JOIN app_pages c ON c.parent_id = sub.id
          WHERE sub.depth < 256
        )
        UPDATE app_page_search s SET visible = sub.visible FROM sub WHERE s.page_id = sub.id AND s.visible IS DISTINCT FROM sub.visible;
      END IF;
      RETURN NULL;
    END $$`,
  'CREATE TRIGGER app_page_search_write AFTER INSERT OR UPDATE OF title, blocks, seo, visibility, parent_id ON app_pages FOR EACH ROW EXECUTE FUNCTION app_page_search_write()',
  'DROP TRIGGER IF EXISTS app_pages_access_cascade ON app_pages',
  'DROP TRIGGER IF EXISTS app_pages_access_inherit ON app_pages',
  'DROP FUNCTION IF EXISTS app_pages_access_cascade()',
  'DROP FUNCTION IF EXISTS app_pages_access_inherit()',
  // Search rows of restricted pages become findable again, as before this version.
  `UPDATE app_page_search s SET visible = true FROM app_pages p
   WHERE p.id = s.page_id AND p.restricted AND NOT s.visible AND p.visibility = 'public'
     AND NOT EXISTS (
       WITH RECURSIVE up AS (
         SELECT a.parent_id, 1 AS depth FROM app_pages a WHERE a.id = p.id
         UNION ALL SELECT a.parent_id, up.depth + 1 FROM up JOIN app_pages a ON a.id = up.parent_id WHERE up.depth < 256
       )
       SELECT 1 FROM up JOIN app_pages a ON a.id = up.parent_id WHERE a.visibility <> 'public')`,
  `ALTER TABLE app_pages DROP CONSTRAINT app_pages_access_roles_check, DROP CONSTRAINT app_pages_access_check,
     DROP COLUMN restricted, DROP COLUMN access_roles, DROP COLUMN access`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  for (const statement of DOWN) await knex.raw(statement);
}
