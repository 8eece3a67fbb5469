// French typography of what a person reads (a screen's visible text, an email): the
// checks the walk runs on every screen and every email it receives.
//   - no straight apostrophe in text (’ is the French one);
//   - a non-breaking space (U+00A0 or the narrow U+202F) before « : ; ? ! » used as
//     punctuation, and inside « » ;
//   - impersonal wording: no imperative addressed to the reader, no «vous».
// Web addresses and paths are not text: `https://site.test/a?b=c` and `10:30` are left
// alone (a colon or question mark followed by a sign is not punctuation).

export type TypographyKind = 'apostrophe' | 'space-before' | 'guillemet' | 'imperative';

export interface TypographyProblem {
  kind: TypographyKind;
  /** The offending sign or word, with a few characters around it. */
  excerpt: string;
}

const NBSP = '\u00a0\u202f';

/**
 * Texts that a specification fixes word for word, straight apostrophe included
 * (SPEC "Errors": the login answer to an unverified account). They are read as fixed.
 */
const FIXED_TEXTS = ["Le courriel de ce compte n'a pas été vérifié."];

/** Imperatives (2nd person plural) and second-person words a screen must not address to its reader. */
const IMPERATIVES = [
  'connectez-vous',
  'reconnectez-vous',
  'inscrivez-vous',
  'cliquez',
  'choisissez',
  'choisissez-en',
  'réessayez',
  'essayez',
  'supprimez',
  'supprimez-les',
  'cochez',
  'décochez',
  'saisissez',
  'entrez',
  'vérifiez',
  'déplacez',
  'déplacez-les',
  'retirez',
  'retirez-le',
  'demandez',
  'indiquez',
  'renseignez',
  'sélectionnez',
  'utilisez',
  'ouvrez',
  'consultez',
  'contactez',
  'copiez',
  'collez',
  'conservez',
  'gardez',
  'notez',
  'scannez',
  'modifiez',
  'ajoutez',
  'revenez',
  'attendez',
  'enregistrez',
  'précisez',
  'patientez',
  'recommencez',
  'remplissez',
  'confirmez',
  'tapez',
  'veuillez',
  'vous',
  'votre',
  'vos',
  'vôtre',
  'vôtres',
];

const imperativePattern = new RegExp(`(?<![\\p{L}\\p{N}-])(${[...IMPERATIVES].sort((a, b) => b.length - a.length).join('|')})(?![\\p{L}\\p{N}])`, 'giu');

function around(text: string, index: number, length = 1): string {
  return text.slice(Math.max(0, index - 12), index + length + 12).replace(/\s+/g, ' ');
}

/** Removes what is not prose: web addresses, site paths with a query, and the fixed texts. */
function proseOf(text: string): string {
  let prose = text;
  for (const fixed of FIXED_TEXTS) prose = prose.split(fixed).join(' ');
  return prose.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, ' ').replace(/(^|\s)\/[^\s]*/g, '$1 ');
}

/** Every typographic problem of a text, in order of appearance per kind. */
export function typographyProblems(text: string): TypographyProblem[] {
  const prose = proseOf(text);
  const problems: TypographyProblem[] = [];

  for (const match of prose.matchAll(/'/g)) problems.push({ kind: 'apostrophe', excerpt: around(prose, match.index) });

  // Punctuation: the sign ends a word or a clause (a space, a closing sign or the end follows).
  for (const match of prose.matchAll(/[:;?!](?=$|[\s)»"’.,;:?!])/g)) {
    const before = prose[match.index - 1];
    // A doubled sign (?! or !!) takes its space once, before the first.
    if (before && /[?!]/.test(before)) continue;
    if (before === undefined || !NBSP.includes(before)) problems.push({ kind: 'space-before', excerpt: around(prose, match.index) });
  }

  for (const match of prose.matchAll(/«/g)) {
    if (!NBSP.includes(prose[match.index + 1] ?? '')) problems.push({ kind: 'guillemet', excerpt: around(prose, match.index) });
  }
  for (const match of prose.matchAll(/»/g)) {
    if (!NBSP.includes(prose[match.index - 1] ?? '')) problems.push({ kind: 'guillemet', excerpt: around(prose, match.index) });
  }

  for (const match of prose.matchAll(imperativePattern)) {
    problems.push({ kind: 'imperative', excerpt: around(prose, match.index, match[0].length) });
  }
  return problems;
}

/** Throws, naming the screen or email and each problem, when the text breaks a rule. */
export function assertFrenchTypography(text: string, where: string): void {
  const problems = typographyProblems(text);
  if (problems.length === 0) return;
  const lines = problems.map((problem) => `  ${problem.kind}: «${problem.excerpt}»`);
  throw new Error(`French typography, ${where}:\n${lines.join('\n')}`);
}
