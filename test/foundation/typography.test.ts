// The French typography checker the browser walk runs on every screen and email
// (test/support/typography.ts): it must catch each kind of mistake, and leave alone
// what is not prose (addresses, times, query strings) and the texts SPEC fixes.
import { expect } from 'chai';
import { assertFrenchTypography, typographyProblems, type TypographyKind } from '../support/typography.js';

const kinds = (text: string): TypographyKind[] => typographyProblems(text).map((problem) => problem.kind);
const NB = '\u00a0';
const NNB = '\u202f';

describe('French typography checker', () => {
  it('accepts correct French: no-break spaces (U+00A0 or U+202F) before : ; ? ! and inside « », typographic apostrophes', () => {
    expect(kinds(`Aucun compte n’existe encore${NB}: le compte créé ici administrera le site.`)).to.deep.equal([]);
    expect(kinds(`Pas encore de compte${NNB}? Créer un compte`)).to.deep.equal([]);
    expect(kinds(`La page «${NB}Accueil${NB}» est créée${NNB}; elle est publique${NNB}!`)).to.deep.equal([]);
    expect(kinds(`Enfin${NNB}?! Oui.`)).to.deep.equal([]);
  });

  it('catches a straight apostrophe in text', () => {
    expect(kinds("L'image est ajoutée.")).to.deep.equal(['apostrophe']);
    expect(typographyProblems("Il n'y a rien.")[0].excerpt).to.include("n'y");
  });

  it('catches a missing no-break space before each of : ; ? !, whether a normal space or none stands there', () => {
    for (const sign of [':', ';', '?', '!']) {
      expect(kinds(`Référence ${sign} abc`), sign).to.deep.equal(['space-before']);
      expect(kinds(`Référence${sign} abc`), sign).to.deep.equal(['space-before']);
      expect(kinds(`Fin ${sign}`), `${sign} at the end`).to.deep.equal(['space-before']);
    }
  });

  it('catches « » without no-break spaces inside, on either side', () => {
    expect(kinds('la page « Mon profil »')).to.deep.equal(['guillemet', 'guillemet']);
    expect(kinds('la ligne «setup code»')).to.deep.equal(['guillemet', 'guillemet']);
    expect(kinds(`la page «${NB}Mon profil »`)).to.deep.equal(['guillemet']);
  });

  it('catches imperatives addressed to the reader and «vous», in any case', () => {
    for (const text of [
      'Une session est nécessaire : connectez-vous pour continuer.',
      'Ce slug est pris, choisissez-en un autre.',
      'Supprimez-les d’abord.',
      'Cochez la case puis déplacez-les.',
      'Réessayez plus tard.',
      'Des permissions que le vôtre n’a pas.',
      'Cliquez ici.',
      'Saisissez le code.',
      'Entrez votre courriel.',
      'Vérifiez la boîte de réception.',
    ]) {
      expect(kinds(text.replace(' :', `${NB}:`)), text).to.include('imperative');
    }
    // Words that merely contain one of the forms are fine.
    expect(kinds('Les entrées vérifiées sont conservées.')).to.deep.equal([]);
  });

  it('leaves alone web addresses, paths with a query, times and code-like colons', () => {
    expect(kinds('https://site.test/auth/reset?email=a%40b.c&token=x!y')).to.deep.equal([]);
    expect(kinds('Ouvrir /auth/login?next=/admin puis revenir.')).to.deep.equal([]);
    expect(kinds('Le 1er juillet à 10:30.')).to.deep.equal([]);
  });

  it('reads the texts SPEC fixes word for word, straight apostrophe included, as fixed', () => {
    expect(kinds("Le courriel de ce compte n'a pas été vérifié.")).to.deep.equal([]);
    expect(kinds("Le courriel de ce compte n'a pas été vérifié. L'autre n'est pas fixé.")).to.deep.equal(['apostrophe', 'apostrophe']);
  });

  it('names the screen and every problem when it fails', () => {
    expect(() => assertFrenchTypography("Réessayez : l'envoi a échoué", 'GET /admin')).to.throw(
      /GET \/admin[\s\S]*apostrophe[\s\S]*space-before[\s\S]*imperative/,
    );
    expect(() => assertFrenchTypography(`Tout va bien${NB}!`, 'GET /')).not.to.throw();
  });
});
