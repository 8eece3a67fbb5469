// The settings module (issue «the site made one's own», item 1): the site's title,
// tagline, logo, favicon, accent colour, home page, footer, default social image, time
// zone and «noindex», in one table, one screen (/admin/settings) and two JSON routes.
// Registered after pages: the home page is a page. The public site reads the settings
// through models/settings/store.ts (in memory, refreshed on NOTIFY). The themes (item 3)
// are part of it: the active theme is a setting, declared to the renderers as the
// site's theme source (lib/themes.ts), its assets served under /theme/.
import * as api from '../../controllers/settings/api.js';
import * as screen from '../../controllers/settings/screen.js';
import { serveAccentStylesheet } from '../../controllers/settings/site.js';
import { serveThemeAsset, showThemes, themeAssetParams } from '../../controllers/settings/themes.js';
import { settingsThemeSource } from '../../services/themes.js';
import { settingsAuditActions, settingsFieldLabels } from '../../controllers/settings/messages.js';
import { accentParams, imageParams, settingsBody, settingsForm } from '../../controllers/settings/schemas.js';
import { moduleMigrationsDirectory } from '../../lib/migrations.js';
import type { SiteModule } from '../../lib/modules.js';
import { moduleViewsDirectory } from '../../lib/views.js';
import { SETTINGS_MANAGE, SETTINGS_PERMISSION_SECTION } from '../../models/settings/manifest.js';
import { SETTINGS_MODULE } from '../../models/settings/store.js';
import { route, type AnyRoute } from '../define.js';

const MANAGE = { permission: SETTINGS_MANAGE } as const;
const API_PATH = '/admin/settings';

function settingsApiRoutes(): AnyRoute[] {
  return [
    route({ method: 'get', path: API_PATH, access: MANAGE, handler: api.showSettings }),
    route({ method: 'put', path: API_PATH, access: MANAGE, body: settingsBody, handler: api.editSettings }),
    route({ method: 'post', path: `${API_PATH}/:image`, access: MANAGE, params: imageParams, upload: { field: 'file' }, handler: api.uploadSettingsImage }),
    route({ method: 'delete', path: `${API_PATH}/:image`, access: MANAGE, params: imageParams, handler: api.deleteSettingsImage }),
    route({ method: 'get', path: '/admin/themes', access: MANAGE, handler: showThemes }),
  ];
}

function settingsAdminRoutes(): AnyRoute[] {
  return [
    route({ method: 'get', path: '/settings', access: MANAGE, query: screen.settingsScreenQuery, handler: (call) => screen.showSettingsScreen(call) }),
    route({
      method: 'post',
      path: '/settings',
      access: MANAGE,
      body: settingsForm,
      form: { name: 'settings', rerender: screen.showSettingsScreen },
      handler: screen.saveSettingsForm,
    }),
    route({
      method: 'post',
      path: '/settings/:image/delete',
      access: MANAGE,
      params: imageParams,
      form: { name: 'image', rerender: screen.showSettingsScreen },
      handler: screen.removeSettingsImageForm,
    }),
    route({
      method: 'post',
      path: '/settings/:image',
      access: MANAGE,
      params: imageParams,
      upload: { field: 'file' },
      form: { name: 'image', rerender: screen.showSettingsScreen },
      handler: screen.uploadSettingsImageForm,
    }),
  ];
}

export const settingsModule: SiteModule = {
  name: SETTINGS_MODULE,
  register(site) {
    site.permissionSection(SETTINGS_PERMISSION_SECTION);
    site.migrations(moduleMigrationsDirectory('settings'));
    site.views(moduleViewsDirectory('settings'));
    // The settings are held in memory per process (models/settings/store.ts), kept true
    // by the listener: without it (PAGE_CACHE_MB=0) every render would read them.
    site.followsChanges();
    site.adminScreen('site', { href: '/admin/settings', label: 'Réglages du site', permission: SETTINGS_MANAGE });
    site.apiRoutes(settingsApiRoutes());
    site.adminRoutes(settingsAdminRoutes());
    site.siteRoutes([
      route({ method: 'get', path: '/site-accent/:file', access: 'public', params: accentParams, handler: serveAccentStylesheet }),
      route({
        method: 'get',
        path: ['/theme/:name/:file', '/theme/:name/:folder/:file'],
        access: 'public',
        params: themeAssetParams,
        handler: serveThemeAsset,
      }),
    ]);
    site.themeSource(settingsThemeSource);
    site.fieldLabels(settingsFieldLabels);
    site.auditActions(settingsAuditActions);
    site.auditTargets({ settings: { label: 'Réglages du site', permission: SETTINGS_MANAGE } });
  },
};
