// The modules of this site, in order (the core first), and what follows from them
// alone: the migration directories that make its history. The server, `npm run migrate`,
// the knex CLI (knexfile.ts) and the tests read the history from here: a module's
// migrations run because its register() call declares them, never because a folder is
// found on disk.
import { collectModules, type SiteModule } from '../lib/modules.js';
import { coreModule } from './core-module.js';
import { pagesModule } from './pages/index.js';
import { settingsModule } from './settings/index.js';

export const SITE_MODULES: SiteModule[] = [coreModule, pagesModule, settingsModule];

/** The migration directories the modules declare, in their order. */
export function siteMigrationDirectories(modules: SiteModule[] = SITE_MODULES): string[] {
  return collectModules(modules).migrationDirectories;
}
