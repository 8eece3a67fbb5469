import type { Call } from '../../routes/define.js';
import { navigationFor, renderAdmin } from './shell.js';

// GET /admin: the dashboard of the administration (the guard has run): one card per
// screen the user may open.
export async function showAdminLanding(call: Call): Promise<void> {
  const screens = navigationFor(call.ctx, call.req).filter((entry) => entry.href !== '/admin');
  await renderAdmin(call, 'admin/landing.njk', { pageTitle: 'Administration', screens });
}
