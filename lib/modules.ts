// Site modules (DESIGN §2): the core and each module (pages) declare what they bring
// through one typed register() call: permission sections, migrations, admin screens,
// and route rows for each surface. collectModules() runs those calls once per
// application; nothing is registered at import time.
import type { AnyRoute } from '../routes/define.js';
import type { AppContext } from './context.js';

export interface PermissionSeed {
  key: string;
  label: string;
}

export interface PermissionSection {
  key: string;
  label: string;
  position: number;
  permissions: PermissionSeed[];
}

export interface AdminScreen {
  href: string;
  label: string;
  /** Permission needed to see the navigation entry (besides admin.access). */
  permission: string;
}

/** What register() may declare. Route rows are mounted by createApp on their surface. */
export interface ModuleRegistrar {
  /** The permission section the module's migrations seed (listed in the catalogue). */
  permissionSection(section: PermissionSection): void;
  /** A directory of Knex migrations, run with the core's by `npm run migrate`. */
  migrations(directory: string): void;
  /** An entry of the administration's navigation, under a catalogue section. */
  adminScreen(section: string, screen: AdminScreen): void;
  /** JSON routes under /app/api. */
  apiRoutes(routes: AnyRoute[]): void;
  /** Server-rendered screens under /admin (behind the admin guard). */
  adminRoutes(routes: AnyRoute[]): void;
  /** Public routes, mounted after everything else (catch-alls go here). */
  siteRoutes(routes: AnyRoute[]): void;
  /** Periodic work the server runs while it listens: `start` returns the function that stops it. */
  backgroundJob(job: BackgroundJob): void;
}

export interface BackgroundJob {
  name: string;
  start(ctx: AppContext): () => void;
}

export interface SiteModule {
  name: string;
  register(site: ModuleRegistrar): void;
}

export interface SiteRegistry {
  modules: string[];
  permissionSections: PermissionSection[];
  migrationDirectories: string[];
  adminScreens: Map<string, AdminScreen[]>;
  apiRoutes: AnyRoute[];
  adminRoutes: AnyRoute[];
  siteRoutes: AnyRoute[];
  backgroundJobs: BackgroundJob[];
}

/** Runs each module's register() once, in order, and returns what they declared. */
export function collectModules(modules: SiteModule[]): SiteRegistry {
  const registry: SiteRegistry = {
    modules: [],
    permissionSections: [],
    migrationDirectories: [],
    adminScreens: new Map(),
    apiRoutes: [],
    adminRoutes: [],
    siteRoutes: [],
    backgroundJobs: [],
  };
  for (const module of modules) {
    if (registry.modules.includes(module.name)) throw new Error(`module ${module.name} is registered twice`);
    registry.modules.push(module.name);
    module.register({
      permissionSection: (section) => void registry.permissionSections.push(section),
      migrations: (directory) => void registry.migrationDirectories.push(directory),
      adminScreen: (section, screen) => {
        const screens = registry.adminScreens.get(section) ?? [];
        if (!screens.some((existing) => existing.href === screen.href)) screens.push(screen);
        registry.adminScreens.set(section, screens);
      },
      apiRoutes: (routes) => void registry.apiRoutes.push(...routes),
      adminRoutes: (routes) => void registry.adminRoutes.push(...routes),
      siteRoutes: (routes) => void registry.siteRoutes.push(...routes),
      backgroundJob: (job) => void registry.backgroundJobs.push(job),
    });
  }
  return registry;
}

/** Starts every module's background job (the server, once it listens); returns the function that stops them all. */
export function startBackgroundJobs(ctx: AppContext): () => void {
  const stops = ctx.site.backgroundJobs.map((job) => job.start(ctx));
  return () => {
    for (const stop of stops) stop();
  };
}
