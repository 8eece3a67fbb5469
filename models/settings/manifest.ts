// The settings module's permission section, declared by its register() call and seeded
// by its own migration (migrations/settings/), which keeps a frozen copy.
import type { PermissionSection } from '../../lib/modules.js';

export const SETTINGS_PERMISSION_SECTION: PermissionSection = {
  key: 'site',
  label: 'Site',
  position: 110,
  permissions: [{ key: 'settings.manage', label: 'Gérer les réglages du site' }],
};

export const SETTINGS_MANAGE = 'settings.manage';
