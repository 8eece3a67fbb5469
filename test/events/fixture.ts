// The events module as the tests register it (test/support/modules.ts): the module, and
// what its rows give the permission matrices and the bad-input tables.
import type { FixtureModule } from '../support/modules.js';
import type { Fixture } from '../support/route-table.js';
import { eventsModule } from './module.js';

/** An event of the fixture's database; its id. */
async function anEvent(f: Fixture): Promise<number> {
  const [{ id }] = await f.ctx.db('app_events').insert({ title: 'Concert', starts_on: '2099-06-21' }).returning<Array<{ id: number }>>('id');
  return id;
}

const valid = { title: 'Fête', starts_on: '2099-06-21' };

export const eventsFixture: FixtureModule = {
  module: eventsModule,
  tables: ['app_events'],
  adminSamples: {
    'GET /admin/events': { ok: 200, path: () => '/admin/events' },
    'POST /admin/events': { ok: 303, path: () => '/admin/events', fields: () => valid },
  },
  apiSamples: {
    'GET /events': { ok: 200, path: () => '/events' },
    'POST /admin/events': { ok: 201, path: () => '/admin/events', body: () => valid },
    'GET /admin/events/:id': { ok: 200, path: async (f) => `/admin/events/${await anEvent(f)}` },
  },
  adminBadInput: [
    { row: 'GET /admin/events', path: '/admin/events?x=%00', status: 200, why: 'unknown query parameters are ignored' },
    { row: 'POST /admin/events', path: '/admin/events', fields: { title: '', starts_on: '2099-06-21' }, status: 400, why: 'empty title' },
    { row: 'POST /admin/events', path: '/admin/events', fields: { title: 'A', starts_on: '2099-02-30' }, status: 400, why: 'a day that does not exist' },
    { row: 'POST /admin/events', path: '/admin/events', fields: { title: 'A\u0000', starts_on: '2099-06-21' }, status: 400, why: 'NUL in the title' },
  ],
  apiBadInput: [
    { method: 'get', route: '/events', path: '/events?x=1', status: 400, why: 'unknown query parameter' },
    { method: 'post', route: '/admin/events', path: '/admin/events', body: { ...valid, extra: 1 }, status: 400, why: 'unknown field' },
    {
      method: 'post',
      route: '/admin/events',
      path: '/admin/events',
      body: { title: 'A', starts_on: '21/06/2099' },
      status: 400,
      why: 'date outside its pattern',
    },
    {
      method: 'post',
      route: '/admin/events',
      path: '/admin/events',
      body: { title: 'A\u0000', starts_on: '2099-06-21' },
      status: 400,
      why: 'NUL in the title',
    },
    { method: 'get', route: '/admin/events/:id', path: '/admin/events/1e3', status: 400, why: 'exponent id' },
  ],
};
