// The modules of every test app: the site's (routes/site-modules.ts), then the fixture
// modules the tests register here. A fixture module brings its rows' samples for the
// permission matrices and the bad-input tables, which pick them up with the site's.
import { collectModules, type SiteModule } from '../../lib/modules.js';
import { SITE_MODULES } from '../../routes/site-modules.js';
import type { AdminBadInput, AdminSample, ApiBadInput, ApiSample } from './route-table.js';
import { eventsFixture } from '../events/fixture.js';

/** What the route tables of the tests need from a fixture module, keyed like theirs ("METHOD /path"). */
export interface FixtureModule {
  module: SiteModule;
  /** test/routes/admin/permission-matrix.test.ts's samples of the module's /admin rows. */
  adminSamples?: Record<string, AdminSample>;
  /** test/routes/api/permission-matrix.test.ts's samples of the module's /app/api rows. */
  apiSamples?: Record<string, ApiSample>;
  /** test/routes/admin/bad-input.test.ts's cases for the module's /admin rows. */
  adminBadInput?: AdminBadInput[];
  /** test/routes/api/bad-input.test.ts's cases for the module's /app/api rows. */
  apiBadInput?: ApiBadInput[];
  /** The module's tables, which a refused request must leave as they were. */
  tables?: string[];
}

/** The fixture modules registered in every test app, after the site's. */
export function fixtureModules(): FixtureModule[] {
  return [eventsFixture];
}

export function testModules(): SiteModule[] {
  return [...SITE_MODULES, ...fixtureModules().map((fixture) => fixture.module)];
}

/** The migration directories of the test apps' modules: the test database's history. */
export function testMigrationDirectories(): string[] {
  return collectModules(testModules()).migrationDirectories;
}
