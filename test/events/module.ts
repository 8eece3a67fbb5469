// A fixture module, `events`, registered beside the pages module in the test apps
// (test/support/modules.ts): one table, a permission section, rows on the API, the
// administration and the site, an audit action, a dashboard panel, field names, a form
// larger than the surface's, its own views and a public answer kept by the read cache
// and dropped by its own trigger. Nothing outside this folder knows of it: it is
// written as a module of the site would be (docs/modules.md walks through it), and its
// tests (events.test.ts) exercise every extension point of lib/modules.ts.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Joi from 'joi';
import { inTransaction, type AppContext } from '../../lib/context.js';
import { NotFoundError, ValidationError } from '../../lib/errors.js';
import { type Dashboard, type PermissionSection, type SiteModule } from '../../lib/modules.js';
import type { Origin } from '../../lib/origin.js';
import { buildAnswer, type CachedAnswer } from '../../lib/public-cache.js';
import { idParams, text } from '../../lib/schema-primitives.js';
import { renderAdmin } from '../../controllers/admin/shell.js';
import { recordAudit } from '../../models/audit.js';
import { route, type AnyRoute, type Call, type FormLocals } from '../../routes/define.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export const EVENTS_PERMISSION_SECTION: PermissionSection = {
  key: 'events',
  label: 'Événements',
  position: 100,
  permissions: [
    { key: 'events.view', label: 'Consulter les événements' },
    { key: 'events.manage', label: 'Gérer les événements' },
  ],
};

const VIEW = { permission: 'events.view' };
const MANAGE = { permission: 'events.manage' };
/** The public list's tag: every change of app_events carries it (and `event:<id>`). */
const EVENTS_TAG = 'events';

const eventMessages = {
  past: 'Cette date est déjà passée.',
  notADay: 'Cette date n’existe pas.',
  notFound: 'Cet événement n’existe pas.',
};

// ---- model: every statement, ctx first ----

interface EventRow {
  id: number;
  title: string;
  starts_on: string;
  description: string;
  published: boolean;
}

async function listEvents(ctx: AppContext, onlyPublished: boolean): Promise<EventRow[]> {
  const query = ctx
    .readDb('app_events')
    .select(ctx.db.raw(`id, title, to_char(starts_on, 'YYYY-MM-DD') AS starts_on, description, published`))
    .orderBy(['starts_on', 'id']);
  if (onlyPublished) query.where({ published: true });
  return (await query) as EventRow[];
}

async function getEvent(ctx: AppContext, id: number): Promise<EventRow | undefined> {
  return ctx
    .db('app_events')
    .where({ id })
    .first<EventRow | undefined>(ctx.db.raw(`id, title, to_char(starts_on, 'YYYY-MM-DD') AS starts_on, description, published`));
}

interface EventCounts {
  published: number;
  waiting: number;
}

async function eventCounts(ctx: AppContext): Promise<EventCounts> {
  const row = (await ctx
    .db('app_events')
    .first<{ published: string; waiting: string } | undefined>(
      ctx.db.raw('count(*) FILTER (WHERE published) AS published, count(*) FILTER (WHERE NOT published) AS waiting'),
    ))!;
  return { published: Number(row.published), waiting: Number(row.waiting) };
}

// ---- use case: shared by the JSON and the HTML controllers ----

interface EventInput {
  title: string;
  starts_on: string;
  description?: string;
  published?: boolean;
}

async function createEvent(ctx: AppContext, origin: Origin, input: EventInput): Promise<EventRow> {
  const day = new Date(`${input.starts_on}T00:00:00Z`);
  if (Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== input.starts_on) {
    throw new ValidationError(eventMessages.notADay, { details: [{ field: 'starts_on', message: eventMessages.notADay }] });
  }
  if (input.starts_on < new Date(ctx.clock.nowMs()).toISOString().slice(0, 10)) {
    throw new ValidationError(eventMessages.past, { details: [{ field: 'starts_on', message: eventMessages.past }] });
  }
  return inTransaction(ctx, async (tx) => {
    const [{ id }] = await tx
      .db('app_events')
      .insert({ title: input.title, starts_on: input.starts_on, description: input.description ?? '', published: input.published ?? false })
      .returning<Array<{ id: number }>>('id');
    await recordAudit(tx, {
      actor: origin.userId === null ? null : { id: origin.userId, name: origin.name ?? '' },
      ip: origin.ip,
      action: 'event.created',
      target: { type: 'event', id, label: input.title },
    });
    return (await getEvent(tx, id))!;
  });
}

// ---- the public answer, kept by the read cache ----

/** The published events as JSON, from the cache when it holds them (no statement). */
async function publicList(ctx: AppContext): Promise<CachedAnswer> {
  const cache = ctx.publicCache;
  const key = 'events:list';
  if (await cache.ready()) {
    const hit = cache.get(key);
    if (hit) return hit;
  }
  const fill = cache.begin();
  const events = await listEvents(ctx, true);
  const answer = buildAnswer(JSON.stringify({ events }), {
    contentType: 'application/json; charset=utf-8',
    tags: [EVENTS_TAG, ...events.map((event) => `event:${event.id}`)],
  });
  cache.store(fill, key, answer);
  return answer;
}

async function sendPublicList(call: Call): Promise<void> {
  const answer = await publicList(call.ctx);
  call.res.set('Cache-Control', 'public, max-age=0, must-revalidate');
  call.res.set('ETag', answer.etag);
  call.res.type(answer.contentType);
  call.res.send(answer.body);
}

// ---- controllers ----

const eventBody = Joi.object<EventInput>({
  title: text().trim().min(1).max(200).required().label('Titre'),
  starts_on: text()
    .pattern(/^\d{4}-\d{2}-\d{2}$/)
    .required()
    .label('Date'),
  description: text().max(300_000).allow('').label('Description'),
  published: Joi.boolean(),
});

async function showEvents(call: Call, locals: FormLocals = {}, status = 200): Promise<void> {
  await renderAdmin(call, 'admin/events/list.njk', { pageTitle: 'Événements', events: await listEvents(call.ctx, false), canManage: true, ...locals }, status);
}

// ---- the module ----

const EVENTS_DASHBOARD: Dashboard<EventCounts> = {
  counts: eventCounts,
  steps: (can, counts) =>
    can('events.manage') && counts.waiting > 0
      ? [{ label: 'Publier les événements en attente', href: '/admin/events', done: false, note: `${counts.waiting} en attente.` }]
      : [],
  panel: { view: 'admin/events/_dashboard.njk', permission: 'events.view' },
  links: [{ href: '/app/api/events', label: 'Agenda (JSON)' }],
};

function eventsApiRoutes(): AnyRoute[] {
  return [
    route({ method: 'get', path: '/events', access: 'public', handler: sendPublicList }),
    route({
      method: 'post',
      path: '/admin/events',
      access: MANAGE,
      body: eventBody,
      handler: async (call: Call<Record<string, never>, Record<string, never>, EventInput>) => {
        call.res.status(201).json(await createEvent(call.ctx, call.origin, call.body));
      },
    }),
    route({
      method: 'get',
      path: '/admin/events/:id',
      access: VIEW,
      params: idParams,
      handler: async (call: Call<{ id: number }>) => {
        const event = await getEvent(call.ctx, call.params.id);
        if (!event) throw new NotFoundError(eventMessages.notFound);
        call.res.json(event);
      },
    }),
  ];
}

function eventsAdminRoutes(): AnyRoute[] {
  return [
    route({ method: 'get', path: '/events', access: VIEW, handler: (call) => showEvents(call) }),
    route({
      method: 'post',
      path: '/events',
      access: MANAGE,
      body: eventBody,
      // A description may be long (a programme): larger than the surface's 100 kB.
      bodyLimit: '400kb',
      fieldLimit: 20,
      form: { name: 'event', rerender: (call, locals, status) => showEvents(call, locals, status) },
      handler: async (call: Call<Record<string, never>, Record<string, never>, EventInput>) => {
        await createEvent(call.ctx, call.origin, call.body);
        call.res.redirect(303, '/admin/events');
      },
    }),
  ];
}

function eventsSiteRoutes(): AnyRoute[] {
  return [route({ method: 'get', path: '/agenda.json', access: 'public', handler: sendPublicList })];
}

export const eventsModule: SiteModule = {
  name: 'events',
  register(site) {
    site.permissionSection(EVENTS_PERMISSION_SECTION);
    site.migrations(path.join(here, 'migrations'));
    site.views(path.join(here, 'views'));
    site.apiRoutes(eventsApiRoutes());
    site.adminRoutes(eventsAdminRoutes());
    site.siteRoutes(eventsSiteRoutes());
    site.auditActions({ 'event.created': { label: 'Événement ajouté', target: (id) => (/^\d+$/.test(id) ? `/admin/events#event-${id}` : undefined) } });
    site.auditTargets({ event: { label: 'Événement', permission: 'events.view' } });
    site.dashboard(EVENTS_DASHBOARD);
    site.fieldLabels({ starts_on: 'Date' });
  },
};
