// The themes a site may choose. Themes are not installable yet: the built-in `default`
// is the only one. This is the one place that says which names are valid, so the themes
// to come replace this function and nothing else.
import { DEFAULT_THEME } from './schema.js';

export function isInstalledTheme(name: string): boolean {
  return name === DEFAULT_THEME;
}
