// Slug rules: derived from the title (accents transliterated), validated, and never one
// of the server's own root paths (DESIGN §3).
export const SLUG_MAX_LENGTH = 100;
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

// Root slugs that would shadow the server's own paths (`recherche`: the site search).
export const RESERVED_ROOT_SLUGS = new Set(['auth', 'app', 'admin', 'account', 'uploads', 'assets', 'sitemap.xml', 'robots.txt', 'favicon.ico', 'recherche']);

// Letters NFD does not split into a base letter plus an accent.
const LIGATURES: Record<string, string> = { œ: 'oe', Œ: 'oe', æ: 'ae', Æ: 'ae', ß: 'ss', ø: 'o', Ø: 'o', đ: 'd', Đ: 'd', ł: 'l', Ł: 'l' };

/** «Été à Paris» → `ete-a-paris`; a title without any letter or digit gives `page`. */
export function slugify(title: string): string {
  const ascii = title
    .replace(/[œŒæÆßøØđĐłŁ]/g, (letter) => LIGATURES[letter])
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return truncateSlug(ascii) || 'page';
}

/** Cuts at a hyphen when it can, so a long slug does not end mid-word or with `-`. */
function truncateSlug(slug: string, max = SLUG_MAX_LENGTH): string {
  if (slug.length <= max) return slug;
  const cut = slug.slice(0, max);
  const lastHyphen = cut.lastIndexOf('-');
  return (lastHyphen > max / 2 ? cut.slice(0, lastHyphen) : cut).replace(/-+$/, '');
}

export function isValidSlug(slug: string): boolean {
  return slug.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(slug);
}

export function isReservedRootSlug(slug: string): boolean {
  return RESERVED_ROOT_SLUGS.has(slug);
}

/** `base`, `base-2`, `base-3`… each within the length limit. */
export function slugCandidate(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = `-${n}`;
  return truncateSlug(base, SLUG_MAX_LENGTH - suffix.length) + suffix;
}
