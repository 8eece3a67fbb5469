// Review before publishing (issue 26, item 5). A review is one round of a page's draft
// submitted for review: `in_review` until a reviewer approves it or sends it back
// (`rejected`); a resubmission after a refusal reopens the same row, so its comments
// read as one thread. `closed`: the draft it held was published or discarded outside
// the review. At most one review of a page is open (partial unique index).
// Each step is a row of app_page_review_events (who, which revision, the comment).
//
// A trigger on app_pages keeps an open review on the page's draft, whoever writes it
// (a draft save, an autosave, a restore): a new draft revision becomes the revision in
// review; no draft any more closes it. A draft changed after an approval that scheduled
// it goes back to review and loses that schedule, so nothing unreviewed goes live.
// Frozen as of this version (nothing imported from the module).
import type { Knex } from 'knex';

const UP = [
  `CREATE TABLE app_page_reviews (
    id serial PRIMARY KEY,
    page_id integer NOT NULL REFERENCES app_pages(id) ON DELETE CASCADE,
    state text NOT NULL CONSTRAINT app_page_reviews_state_check CHECK (state IN ('in_review', 'rejected', 'approved', 'closed')),
    revision integer NOT NULL,
    publish_at timestamptz,
    submitted_by integer REFERENCES app_auth_users(id) ON DELETE SET NULL,
    submitted_at timestamptz NOT NULL,
    decided_by integer REFERENCES app_auth_users(id) ON DELETE SET NULL,
    decided_at timestamptz
  )`,
  `CREATE UNIQUE INDEX app_page_reviews_open ON app_page_reviews (page_id) WHERE state = 'in_review'`,
  `CREATE INDEX app_page_reviews_page_id_index ON app_page_reviews (page_id, id)`,
  `CREATE INDEX app_page_reviews_submitted_by_index ON app_page_reviews (submitted_by)`,
  `CREATE INDEX app_page_reviews_decided_by_index ON app_page_reviews (decided_by)`,
  `CREATE TABLE app_page_review_events (
    id serial PRIMARY KEY,
    review_id integer NOT NULL REFERENCES app_page_reviews(id) ON DELETE CASCADE,
    page_id integer NOT NULL REFERENCES app_pages(id) ON DELETE CASCADE,
    kind text NOT NULL CONSTRAINT app_page_review_events_kind_check CHECK (kind IN ('submitted', 'resubmitted', 'rejected', 'approved')),
    revision integer NOT NULL,
    comment text,
    author_id integer REFERENCES app_auth_users(id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL
  )`,
  `CREATE INDEX app_page_review_events_review_id_index ON app_page_review_events (review_id, id)`,
  `CREATE INDEX app_page_review_events_page_id_index ON app_page_review_events (page_id, id)`,
  `CREATE INDEX app_page_review_events_author_id_index ON app_page_review_events (author_id)`,
  `CREATE FUNCTION app_page_reviews_follow_draft() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.draft_revision IS NOT DISTINCT FROM OLD.draft_revision THEN
      RETURN NEW;
    END IF;
    IF NEW.draft_revision IS NULL THEN
      UPDATE app_page_reviews SET state = 'closed' WHERE page_id = NEW.id AND state = 'in_review';
      RETURN NEW;
    END IF;
    UPDATE app_page_reviews SET revision = NEW.draft_revision WHERE page_id = NEW.id AND state = 'in_review';
    IF NOT FOUND AND NEW.scheduled_at IS NOT NULL THEN
      UPDATE app_page_reviews SET state = 'in_review', revision = NEW.draft_revision
        WHERE id = (SELECT id FROM app_page_reviews WHERE page_id = NEW.id ORDER BY id DESC LIMIT 1)
          AND state = 'approved' AND revision = OLD.draft_revision AND publish_at IS NOT NULL;
      IF FOUND THEN
        NEW.scheduled_at := NULL;
        NEW.scheduled_by := NULL;
      END IF;
    END IF;
    RETURN NEW;
  END $$`,
  `CREATE TRIGGER app_page_reviews_follow_draft BEFORE UPDATE OF draft_revision ON app_pages
    FOR EACH ROW EXECUTE FUNCTION app_page_reviews_follow_draft()`,
];

export async function up(knex: Knex): Promise<void> {
  for (const statement of UP) await knex.raw(statement);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS app_page_reviews_follow_draft ON app_pages');
  await knex.raw('DROP FUNCTION IF EXISTS app_page_reviews_follow_draft()');
  await knex.raw('DROP TABLE IF EXISTS app_page_review_events');
  await knex.raw('DROP TABLE IF EXISTS app_page_reviews');
}
