// Site modules (DESIGN §2): the core and each module (pages) declare what they bring
// through one typed register() call: permission sections, migrations, admin screens,
// and route rows for each surface. collectModules() runs those calls once per
// application; nothing is registered at import time.
import type { AnyRoute } from '../routes/define.js';
import type { AppContext } from './context.js';
import type { ThemeSource, ViewHelpers } from './themes.js';

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
  /** Also shown to a holder of `permission` on part of the module's objects only (scopedPermissions). */
  scoped?: boolean;
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
  /**
   * Names of form fields, for the summary at the top of a refused form, when the message
   * comes from a model rather than a labelled joi schema (`{ slug: 'Slug' }`). A field
   * already named keeps its first name.
   */
  fieldLabels(labels: Record<string, string>): void;
  /**
   * The module's audit actions (`page.created`): their label on the audit screen, its
   * filter and the dashboard's latest changes, and where the action's target is shown
   * (none for a deletion). An action no module declares shows its name.
   */
  auditActions(actions: Record<string, AuditAction>): void;
  /** The audit target types the module writes (`page`): their label, and who sees their changes on the dashboard. */
  auditTargets(targets: Record<string, AuditTarget>): void;
  /** What the module shows on the dashboard of /admin: its counts, first steps, panel and links. */
  dashboard<C>(dashboard: Dashboard<C>): void;
  /**
   * A folder of the module's Nunjucks views, searched after the core's (`views/`) and the
   * modules registered before it: a view is named relative to its folder
   * (`admin/pages/editor.njk`), and a module never replaces a core view.
   */
  views(directory: string): void;
  /**
   * The module keeps something in memory that the public cache's listener keeps true
   * (its `change`, `lost` and `listening` events): the process then listens for changes
   * even with the cache off (PAGE_CACHE_MB=0), so that memory is still used.
   */
  followsChanges(): void;
  /** Where the site's themes come from (one module at most declares it): lib/themes.ts. */
  themeSource(source: ThemeSource): void;
  /** Filters and globals a module adds to every theme's environment (data for theme views). */
  viewHelpers(helpers: ViewHelpers): void;
  /** A box of the first-run form («Commencer avec un site d'exemple»): what it does once the administrator exists. */
  firstRunChoice(choice: FirstRunChoice): void;
  /**
   * Permissions a user holds on part of the module's objects only (the pages module's
   * grants on a section of the tree): an SQL expression of type text[] over the user row
   * `u`, read in the statement that loads the session's user (`scoped_permissions`), so
   * the guards and the navigation know of them without a statement of their own.
   */
  scopedPermissions(sql: string): void;
}

/** A choice offered on the first-run form, as a checkbox. */
export interface FirstRunChoice {
  /** The checkbox's name (`sample_site`): lower case letters, digits and `_`. */
  field: string;
  label: string;
  /** One line under the label: what ticking it does. */
  hint: string;
  /** Done once the administrator exists, as that administrator; a failure is logged and leaves the new account as it is. */
  apply(ctx: AppContext, actor: { id: number; name: string; ip: string | null }): Promise<void>;
}

/** A first step of a new site (the dashboard greets with them until every one is done). */
export interface NextStep {
  label: string;
  href: string;
  done: boolean;
  /** What «done» means, or what is still missing. */
  note: string;
}

export interface Dashboard<C> {
  /**
   * The module's counts, read for every view of the dashboard: one statement whatever
   * the size of the site (they run beside the other modules').
   */
  counts(ctx: AppContext): Promise<C>;
  /** The first steps the viewer may take (`can` a permission), each marked done from the counts. */
  steps?(can: (permission: string) => boolean, counts: C): NextStep[];
  /** A panel of the dashboard: a view included with `panel.counts` and `panel.can(permission)`, shown to holders of `permission`. */
  panel?: { view: string; permission: string };
  /** Links under «Le site». */
  links?: Array<{ href: string; label: string }>;
}
export interface AuditAction {
  label: string;
  /** The administration's address of the action's target, from its id (undefined: nothing to open). */
  target?: (id: string) => string | undefined;
}

export interface AuditTarget {
  label: string;
  /** Besides audit.view, the permission that shows changes of this type (and opens them). */
  permission: string;
}

/** A target link for ids made of digits only (`/admin/pages/12`); anything else opens nothing. */
export function linkById(prefix: string): (id: string) => string | undefined {
  return (id) => (/^\d{1,18}$/.test(id) ? `${prefix}/${id}` : undefined);
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
  fieldLabels: Map<string, string>;
  auditActions: Map<string, AuditAction>;
  auditTargets: Map<string, AuditTarget>;
  dashboards: Array<Dashboard<unknown>>;
  viewDirectories: string[];
  /** Some module keeps memory the listener keeps true: listen even with the cache off. */
  followsChanges: boolean;
  themeSource?: ThemeSource;
  viewHelpers: ViewHelpers[];
  firstRunChoices: FirstRunChoice[];
  scopedPermissions: string[];
}

/** The name of a first-run choice's checkbox (also what the form's schema lets through). */
export const FIRST_RUN_FIELD = /^[a-z][a-z0-9_]{0,39}$/;

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
    fieldLabels: new Map(),
    auditActions: new Map(),
    auditTargets: new Map(),
    dashboards: [],
    viewDirectories: [],
    followsChanges: false,
    viewHelpers: [],
    firstRunChoices: [],
    scopedPermissions: [],
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
      auditActions: (actions) => {
        for (const [action, spec] of Object.entries(actions)) {
          if (registry.auditActions.has(action)) throw new Error(`audit action ${action} is declared twice (module ${module.name})`);
          registry.auditActions.set(action, spec);
        }
      },
      auditTargets: (targets) => {
        for (const [type, spec] of Object.entries(targets)) {
          if (registry.auditTargets.has(type)) throw new Error(`audit target type ${type} is declared twice (module ${module.name})`);
          registry.auditTargets.set(type, spec);
        }
      },
      views: (directory) => void (registry.viewDirectories.includes(directory) || registry.viewDirectories.push(directory)),
      followsChanges: () => void (registry.followsChanges = true),
      themeSource: (source) => {
        if (registry.themeSource) throw new Error(`a theme source is declared twice (module ${module.name})`);
        registry.themeSource = source;
      },
      viewHelpers: (helpers) => void registry.viewHelpers.push(helpers),
      firstRunChoice: (choice) => {
        if (!FIRST_RUN_FIELD.test(choice.field)) throw new Error(`first-run choice ${choice.field}: a name of lower case letters, digits and _`);
        if (registry.firstRunChoices.some((known) => known.field === choice.field)) throw new Error(`first-run choice ${choice.field} is declared twice`);
        registry.firstRunChoices.push(choice);
      },
      dashboard: (dashboard) => void registry.dashboards.push(dashboard),
      scopedPermissions: (sql) => void registry.scopedPermissions.push(sql),
      fieldLabels: (labels) => {
        for (const [field, label] of Object.entries(labels)) if (!registry.fieldLabels.has(field)) registry.fieldLabels.set(field, label);
      },
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
