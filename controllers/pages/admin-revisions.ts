// JSON routes of revisions, drafts and publishing, under /app/api/admin/pages/:id.
// Input arrives validated by the route rows (routes/pages/api.ts).
import type { Call } from '../../routes/define.js';
import type { PageCatalog } from '../../models/pages/catalog.js';
import { cancelSchedule, discardDraft, getDraft, publishDraft, saveDraft, schedulePublication } from '../../models/pages/drafts.js';
import { getRevision, listRevisions, restoreRevision, type Revision, type RevisionSummary } from '../../models/pages/revisions.js';
import { actorOf as actor } from './admin-call.js';
import type { PublishBody } from './revision-schemas.js';
import type { DraftWriteBody } from './schemas.js';

type Id = { id: number };
type RevisionId = { id: number; number: number };

// `created_at` of a revision is when it was recorded (the page's own date is in `content`).
function summaryJson(revision: RevisionSummary) {
  return { number: revision.number, created_at: revision.recorded_at, author: revision.author, state: revision.state };
}

function revisionJson(revision: Revision) {
  return { ...summaryJson(revision), page_id: revision.page_id, content: revision.content };
}

// GET /app/api/admin/pages/:id/revisions?limit=&offset=
export async function listPageRevisions(call: Call<Id, { limit: number; offset: number }>): Promise<void> {
  const { limit, offset } = call.query;
  const { items, total } = await listRevisions(call.ctx, call.params.id, { limit, offset });
  call.res.json({ items: items.map(summaryJson), total, limit, offset });
}

// GET /app/api/admin/pages/:id/revisions/:number
export async function showPageRevision(call: Call<RevisionId>): Promise<void> {
  call.res.json(revisionJson(await getRevision(call.ctx, call.params.id, call.params.number)));
}

// POST /app/api/admin/pages/:id/revisions/:number/restore → the new draft
export async function restorePageRevision(call: Call<RevisionId>): Promise<void> {
  call.res.status(201).json(await restoreRevision(call.ctx, call.params.id, call.params.number, actor(call)));
}

// GET /app/api/admin/pages/:id/draft
export async function showDraft(call: Call<Id>): Promise<void> {
  call.res.json(await getDraft(call.ctx, call.params.id));
}

// PUT /app/api/admin/pages/:id/draft (PUT's body, partial; `if_revision` optional)
export async function saveAdminDraft(catalog: PageCatalog, call: Call<Id, Record<string, never>, DraftWriteBody>): Promise<void> {
  const { if_revision: ifRevision, merge, autosave, ...patch } = call.body;
  call.res.json(await saveDraft(call.ctx, call.params.id, patch, actor(call), catalog, ifRevision, { merge, autosave }));
}

// DELETE /app/api/admin/pages/:id/draft
export async function discardAdminDraft(call: Call<Id>): Promise<void> {
  await discardDraft(call.ctx, call.params.id, actor(call));
  call.res.status(204).end();
}

// POST /app/api/admin/pages/:id/publish: no `at` → live now (200, the page); `at` → 202
export async function publishAdminDraft(catalog: PageCatalog, call: Call<Id, Record<string, never>, PublishBody | undefined>): Promise<void> {
  const { at, if_revision: ifRevision } = call.body ?? {};
  if (at) {
    call.res.status(202).json(await schedulePublication(call.ctx, call.params.id, at, actor(call), ifRevision));
    return;
  }
  call.res.json(await publishDraft(call.ctx, call.params.id, actor(call), ifRevision, catalog));
}

// DELETE /app/api/admin/pages/:id/schedule
export async function cancelAdminSchedule(call: Call<Id>): Promise<void> {
  await cancelSchedule(call.ctx, call.params.id, actor(call));
  call.res.status(204).end();
}
