// The site search bounded (issue 25's 25 ms). The titles get a tsvector of their own
// (`app_page_search.title_document`), so that a search takes its title matches first,
// then other matches, up to a cap, and ranks only those (models/pages/search.ts). The
// table is read in 16 slices (`page_id % 16`), each with its own partial GIN indexes on
// the title and on the document, which replace the one document index: a GIN index
// gives all its matches at once (a word in half of 100,000 pages cost 250 ms before the
// first row), a slice's a sixteenth of them, and the slices after the one that fills the
// candidates are never read (`app_page_search_hits`). The trigger writes the title's vector beside the document,
// and now learns the words of visible pages only: a private page's words no longer reach
// the typo correction's vocabulary; they are learned when the page (or the branch above
// it) is made public. The vocabulary is rebuilt from the visible pages.
// Frozen as of this version (nothing imported from the module).
import type { Knex } from 'knex';

const WRITE_WITH_TITLES = `CREATE OR REPLACE FUNCTION app_page_search_write() RETURNS trigger LANGUAGE plpgsql AS $$
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

// The function as migration 20261128000100_pages_search wrote it, for down().
const WRITE_BEFORE = `CREATE OR REPLACE FUNCTION app_page_search_write() RETURNS trigger LANGUAGE plpgsql AS $$
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
  END $$`;

/** How many slices the search reads the table in. */
const SLICES = 16;
const slices = Array.from({ length: SLICES }, (_, slice) => slice);

/** The matching rows of every slice in turn, each with its tier and rank (computed only for the rows read). */
function everySlice(tier: number, condition: string): string {
  return slices
    .map(
      (slice) =>
        `SELECT s.page_id, ${tier} AS tier, ts_rank(s.document, query) AS rank FROM app_page_search s ` +
        `WHERE s.visible AND s.page_id % ${SLICES} = ${slice} AND ${condition}`,
    )
    .join('\n        UNION ALL ');
}

// The candidates of a search: up to `candidates` visible pages whose title matches, then
// pages whose document matches to make up the number, slice after slice, each with its
// tier (0: title) and its rank on the whole document. A PL/pgSQL function so that each
// connection plans its 32 branches once (a generic plan: the query is a parameter), not
// at every search.
const HITS = `CREATE FUNCTION app_page_search_hits(query tsquery, candidates integer)
  RETURNS TABLE (page_id integer, tier integer, rank real) LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
  #variable_conflict use_column
  BEGIN
    RETURN QUERY
    WITH titled AS MATERIALIZED (
      SELECT * FROM (${everySlice(0, 's.title_document @@ query')}) t
      LIMIT candidates
    )
    SELECT * FROM titled
    UNION ALL
    SELECT * FROM (
      SELECT * FROM (${everySlice(1, 's.document @@ query AND NOT s.title_document @@ query')}) o
      LIMIT candidates - (SELECT count(*) FROM titled)
    ) others;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE app_page_search ADD COLUMN title_document tsvector');
  await knex.raw(`UPDATE app_page_search s SET title_document = to_tsvector('app_fr_unaccent', COALESCE(p.title, '')) FROM app_pages p WHERE p.id = s.page_id`);
  await knex.raw('ALTER TABLE app_page_search ALTER COLUMN title_document SET NOT NULL');
  await knex.raw('DROP INDEX app_page_search_document');
  for (const slice of slices) {
    const where = `WHERE visible AND page_id % ${SLICES} = ${slice}`;
    await knex.raw(`CREATE INDEX app_page_search_title_${slice} ON app_page_search USING gin (title_document) ${where}`);
    await knex.raw(`CREATE INDEX app_page_search_document_${slice} ON app_page_search USING gin (document) ${where}`);
  }
  await knex.raw(HITS);
  await knex.raw(WRITE_WITH_TITLES);
  await knex.raw('TRUNCATE app_page_search_words');
  await knex.raw(`INSERT INTO app_page_search_words (word)
    SELECT DISTINCT app_page_search_words_of(p.title, p.blocks, p.seo) FROM app_pages p JOIN app_page_search s ON s.page_id = p.id AND s.visible
    ON CONFLICT DO NOTHING`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(WRITE_BEFORE);
  await knex.raw('DROP FUNCTION IF EXISTS app_page_search_hits(tsquery, integer)');
  for (const slice of slices) {
    await knex.raw(`DROP INDEX IF EXISTS app_page_search_title_${slice}`);
    await knex.raw(`DROP INDEX IF EXISTS app_page_search_document_${slice}`);
  }
  await knex.raw('CREATE INDEX IF NOT EXISTS app_page_search_document ON app_page_search USING gin (document) WHERE visible');
  await knex.raw('ALTER TABLE app_page_search DROP COLUMN IF EXISTS title_document');
}
