// Search and pages for members, together: migration pages/20261129000500_pages_search_slices
// wrote the search trigger's function again (title vectors, words of visible pages only)
// from the version before members pages, so a page for members (`restricted`, migration
// pages/20261128000300_pages_access) counted as visible again. The function as the
// slices left it, with `restricted` folded into `visible` and watched, and the flags of
// the restricted pages set back (a restricted page's subtree is restricted too, so
// `visible AND NOT restricted` is the whole rule). Words already learned from restricted
// pages stay: they can only steer a correction, never show a page.
// Frozen as of this version (nothing imported from the module).
import type { Knex } from 'knex';

const WRITE = `CREATE OR REPLACE FUNCTION app_page_search_write() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    content_changed boolean := TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title OR NEW.blocks IS DISTINCT FROM OLD.blocks OR NEW.seo IS DISTINCT FROM OLD.seo;
    place_changed boolean := TG_OP = 'INSERT' OR NEW.visibility IS DISTINCT FROM OLD.visibility OR NEW.parent_id IS DISTINCT FROM OLD.parent_id
      OR NEW.restricted IS DISTINCT FROM OLD.restricted;
    parent_visible boolean;
    now_visible boolean;
  BEGIN
    IF NEW.parent_id IS NULL THEN
      parent_visible := true;
    ELSE
      SELECT s.visible INTO parent_visible FROM app_page_search s WHERE s.page_id = NEW.parent_id;
    END IF;
    now_visible := NEW.visibility = 'public' AND NOT NEW.restricted AND COALESCE(parent_visible, false);
    IF TG_OP = 'INSERT' THEN
      INSERT INTO app_page_search (page_id, visible, document, title_document)
      VALUES (NEW.id, now_visible, app_page_search_document(NEW.title, NEW.blocks, NEW.seo), to_tsvector('app_fr_unaccent', COALESCE(NEW.title, '')));
    ELSE
      IF content_changed THEN
        UPDATE app_page_search
        SET document = app_page_search_document(NEW.title, NEW.blocks, NEW.seo), title_document = to_tsvector('app_fr_unaccent', COALESCE(NEW.title, ''))
        WHERE page_id = NEW.id;
      END IF;
      IF place_changed THEN
        -- The subtree's visibility, and the words of the pages it shows now.
        WITH RECURSIVE sub AS (
          SELECT NEW.id AS id, now_visible AS visible, 1 AS depth
          UNION ALL
          SELECT c.id, sub.visible AND c.visibility = 'public' AND NOT c.restricted, sub.depth + 1
          FROM sub JOIN app_pages c ON c.parent_id = sub.id
          WHERE sub.depth < 256
        ),
        changed AS (
          UPDATE app_page_search s SET visible = sub.visible FROM sub
          WHERE s.page_id = sub.id AND s.visible IS DISTINCT FROM sub.visible
          RETURNING s.page_id, s.visible
        )
        INSERT INTO app_page_search_words (word)
        SELECT DISTINCT w FROM changed JOIN app_pages p ON p.id = changed.page_id
        CROSS JOIN LATERAL app_page_search_words_of(p.title, p.blocks, p.seo) AS w
        WHERE changed.visible AND NOT EXISTS (SELECT 1 FROM app_page_search_words v WHERE v.word = w)
        ON CONFLICT DO NOTHING;
      END IF;
    END IF;
    IF content_changed AND now_visible THEN
      -- Only the words not known yet: ON CONFLICT alone cost ten times more (measured).
      INSERT INTO app_page_search_words (word)
      SELECT w FROM app_page_search_words_of(NEW.title, NEW.blocks, NEW.seo) AS w
      WHERE NOT EXISTS (SELECT 1 FROM app_page_search_words v WHERE v.word = w)
      ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
  END $$`;

const WRITE_BEFORE = `CREATE OR REPLACE FUNCTION app_page_search_write() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    content_changed boolean := TG_OP = 'INSERT' OR NEW.title IS DISTINCT FROM OLD.title OR NEW.blocks IS DISTINCT FROM OLD.blocks OR NEW.seo IS DISTINCT FROM OLD.seo;
    place_changed boolean := TG_OP = 'INSERT' OR NEW.visibility IS DISTINCT FROM OLD.visibility OR NEW.parent_id IS DISTINCT FROM OLD.parent_id;
    parent_visible boolean;
    now_visible boolean;
  BEGIN
    IF NEW.parent_id IS NULL THEN
      parent_visible := true;
    ELSE
      SELECT s.visible INTO parent_visible FROM app_page_search s WHERE s.page_id = NEW.parent_id;
    END IF;
    now_visible := NEW.visibility = 'public' AND COALESCE(parent_visible, false);
    IF TG_OP = 'INSERT' THEN
      INSERT INTO app_page_search (page_id, visible, document, title_document)
      VALUES (NEW.id, now_visible, app_page_search_document(NEW.title, NEW.blocks, NEW.seo), to_tsvector('app_fr_unaccent', COALESCE(NEW.title, '')));
    ELSE
      IF content_changed THEN
        UPDATE app_page_search
        SET document = app_page_search_document(NEW.title, NEW.blocks, NEW.seo), title_document = to_tsvector('app_fr_unaccent', COALESCE(NEW.title, ''))
        WHERE page_id = NEW.id;
      END IF;
      IF place_changed THEN
        -- The subtree's visibility, and the words of the pages it shows now.
        WITH RECURSIVE sub AS (
          SELECT NEW.id AS id, now_visible AS visible, 1 AS depth
          UNION ALL
          SELECT c.id, sub.visible AND c.visibility = 'public', sub.depth + 1
          FROM sub JOIN app_pages c ON c.parent_id = sub.id
          WHERE sub.depth < 256
        ),
        changed AS (
          UPDATE app_page_search s SET visible = sub.visible FROM sub
          WHERE s.page_id = sub.id AND s.visible IS DISTINCT FROM sub.visible
          RETURNING s.page_id, s.visible
        )
        INSERT INTO app_page_search_words (word)
        SELECT DISTINCT w FROM changed JOIN app_pages p ON p.id = changed.page_id
        CROSS JOIN LATERAL app_page_search_words_of(p.title, p.blocks, p.seo) AS w
        WHERE changed.visible AND NOT EXISTS (SELECT 1 FROM app_page_search_words v WHERE v.word = w)
        ON CONFLICT DO NOTHING;
      END IF;
    END IF;
    IF content_changed AND now_visible THEN
      -- Only the words not known yet: ON CONFLICT alone cost ten times more (measured).
      INSERT INTO app_page_search_words (word)
      SELECT w FROM app_page_search_words_of(NEW.title, NEW.blocks, NEW.seo) AS w
      WHERE NOT EXISTS (SELECT 1 FROM app_page_search_words v WHERE v.word = w)
      ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(WRITE);
  await knex.raw('UPDATE app_page_search s SET visible = false FROM app_pages p WHERE p.id = s.page_id AND p.restricted AND s.visible');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(WRITE_BEFORE);
}
