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
  /** How it was opened, in words: «Mot de passe + code», «Clé d’accès», «Okta»… */
  method_label: string;
}

const METHOD_WORDS: Record<string, string> = { password: 'Mot de passe', passkey: 'Clé d’accès' };
const SECOND_FACTOR_WORDS: Record<string, string> = {
  totp: 'code',
  recovery: 'code de secours',
  passkey: 'clé d’accès',
  provider: 'vérification du fournisseur',
};

/** The method in words; «Inconnue» for a session opened before the method was kept. */
function methodLabel(session: Pick<SessionSummary, 'sign_in_method' | 'provider' | 'second_factor'>): string {
  const first =
    session.sign_in_method === 'sso'
      ? (session.provider?.label ?? 'Fournisseur supprimé')
      : session.sign_in_method
        ? (METHOD_WORDS[session.sign_in_method] ?? session.sign_in_method)
        : 'Inconnue';
  const second = session.second_factor ? SECOND_FACTOR_WORDS[session.second_factor] : undefined;
  return second ? `${first} + ${second}` : first;
}

export async function listSessionsForDisplay(ctx: AppContext, userId: number, currentSid: string | undefined, dates: FrenchDates): Promise<DisplayedSession[]> {
  const sessions = await listUserSessions(ctx, userId, currentSid);
  return sessions.map((session) => ({
    ...session,
    device: deviceName(session.user_agent),
    last_seen_label: dates.dateTime(session.last_seen_at),
    method_label: methodLabel(session),
  }));
}
