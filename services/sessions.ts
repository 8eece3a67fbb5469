// The session list as the profile shows it (/account, /admin/profile, the API's
// profile sessions and the data export): each session with its device in words and
// its last activity in French, in the site's time zone; the raw fields stay beside them.
import type { AppContext } from '../lib/context.js';
import type { FrenchDates } from '../lib/dates.js';
import { deviceName } from '../lib/user-agent.js';
import { listUserSessions, type SessionSummary } from '../models/auth/sessions.js';

export interface DisplayedSession extends SessionSummary {
  /** «Firefox sur Windows» (ua-parser-js), «Appareil inconnu» without a user agent. */
  device: string;
  /** «23 novembre 2026 à 14:05», in APP_TIME_ZONE. */
  last_seen_label: string;
}

export async function listSessionsForDisplay(ctx: AppContext, userId: number, currentSid: string | undefined, dates: FrenchDates): Promise<DisplayedSession[]> {
  const sessions = await listUserSessions(ctx, userId, currentSid);
  return sessions.map((session) => ({ ...session, device: deviceName(session.user_agent), last_seen_label: dates.dateTime(session.last_seen_at) }));
}
