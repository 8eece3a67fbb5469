// The core as a site module (DESIGN §2): what it brings is declared through the same
// register() call as any module's: its permission sections (seeded by the core
// migrations), its administration screens, its JSON routes and its /admin routes.
import { coreMigrationsDirectory } from '../lib/migrations.js';
import type { SiteModule } from '../lib/modules.js';
import { CORE_PERMISSION_SECTIONS } from '../models/auth/schema.js';
import { coreAdminRoutes } from './admin.js';
import { auditAdminRoutes, auditApiRoutes } from './audit.js';
import { CORE_FIELD_LABELS } from './error-summary.js';
import { CORE_DASHBOARD } from '../controllers/admin/core-dashboard.js';
import { CORE_AUDIT_ACTIONS, CORE_AUDIT_TARGETS } from '../controllers/audit/core-actions.js';
import { roleApiRoutes } from './api/roles.js';
import { profileApiRoutes, userApiRoutes } from './api/users.js';
import { SIGN_IN_MANAGE, signInAdminRoutes, signInApiRoutes } from './sign-in.js';

export const coreModule: SiteModule = {
  name: 'core',
  register(site) {
    for (const section of CORE_PERMISSION_SECTIONS) site.permissionSection(section);
    // First: every module's tables reference the core's.
    site.migrations(coreMigrationsDirectory());
    site.adminScreen('administration', { href: '/admin', label: 'Tableau de bord', permission: 'admin.access' });
    site.adminScreen('users', { href: '/admin/users', label: 'Utilisateurs', permission: 'users.view' });
    site.adminScreen('roles', { href: '/admin/roles', label: 'Rôles', permission: 'roles.view' });
    site.adminScreen('audit', { href: '/admin/audit', label: 'Journal', permission: 'audit.view' });
    site.adminScreen('sign_in', { href: '/admin/sign-in', label: 'Moyens de connexion', permission: SIGN_IN_MANAGE });
    // The profile rows come first: their fixed segments must win over /users/:id.
    site.apiRoutes([...profileApiRoutes, ...userApiRoutes, ...roleApiRoutes, ...auditApiRoutes, ...signInApiRoutes]);
    site.adminRoutes([...coreAdminRoutes, ...auditAdminRoutes, ...signInAdminRoutes]);
    site.fieldLabels(CORE_FIELD_LABELS);
    site.auditActions(CORE_AUDIT_ACTIONS);
    site.auditTargets(CORE_AUDIT_TARGETS);
    site.dashboard(CORE_DASHBOARD);
  },
};
