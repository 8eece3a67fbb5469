// A session's device in words («Firefox sur Windows»), read from its user agent by
// ua-parser-js. The raw string stays available beside it: the name is a guess.
import type { UAParser as Parser } from 'ua-parser-js';
import { lazyRequire } from './lazy-require.js';

// Needed by the session lists, not by a start or a public page.
const uaParser = lazyRequire<typeof Parser>('ua-parser-js');

const deviceMessages = {
  unknownDevice: 'Appareil inconnu',
  unknownBrowser: 'Navigateur inconnu',
  on: (browser: string, system: string) => `${browser} sur ${system}`,
} as const;

// ua-parser-js names macOS «Mac OS»; Apple says macOS.
const SYSTEM_NAMES: Record<string, string> = { 'Mac OS': 'macOS', 'Chromium OS': 'ChromeOS', 'Chrome OS': 'ChromeOS' };

/** «Firefox sur Windows», «Safari sur iOS», «Navigateur inconnu sur Linux», «curl», or «Appareil inconnu». */
export function deviceName(userAgent: string | null | undefined): string {
  if (!userAgent || !userAgent.trim()) return deviceMessages.unknownDevice;
  const UAParser = uaParser();
  const parsed = new UAParser(userAgent).getResult();
  const browser = parsed.browser.name;
  const system = parsed.os.name ? (SYSTEM_NAMES[parsed.os.name] ?? parsed.os.name) : undefined;
  if (browser && system) return deviceMessages.on(browser, system);
  if (system) return deviceMessages.on(deviceMessages.unknownBrowser, system);
  if (browser) return browser;
  return deviceMessages.unknownDevice;
}
