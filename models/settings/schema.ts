// The settings module's table (created by migrations/settings/).
export const SETTINGS_TABLE = 'app_site_settings';

/** The built-in theme, the only one until themes can be installed (the seam: models/settings/themes.ts). */
export const DEFAULT_THEME = 'default';
