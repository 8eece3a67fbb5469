// The search benchmark's site: `total` pages of French text made from a word list, the
// words drawn with Zipf frequencies (a few words in most pages, most words in few), plus
// rare words each put in about ten pages. 100 root pages, every other page under a random
// earlier one; one page in a hundred private (its subtree hidden with it). Written with
// multi-row INSERTs through pg; the index is the trigger's work, as on a real site.
import pg from 'pg';

// Content words (French stop words would be dropped by the search anyway), most frequent first.
const WORDS = `jardin atelier maison ville projet école musique enfant famille travail histoire saison marché
cuisine livre route rivière montagne forêt village église château festival concert théâtre cinéma exposition
bibliothèque association mairie quartier commune région patrimoine randonnée vélo sentier paysage fleur arbre
légume fruit pain fromage vin repas recette boulangerie épicerie producteur agriculteur ferme vigne récolte
printemps été automne hiver matin soir semaine journée année siècle époque souvenir photographie peinture
sculpture artiste musée galerie collection œuvre spectacle danse chanson chorale orchestre instrument piano
guitare violon lecture écriture poésie roman conte légende mémoire archive document registre carte plan
rue place pont port plage île lac étang source fontaine moulin ferme grange étable cheval mouton vache
chèvre poule abeille miel confiture tarte gâteau chocolat café thé marché brocante foire fête bal
rencontre réunion conférence débat atelier stage formation cours leçon élève professeur étudiant université
collège lycée crèche garderie sport football rugby tennis natation piscine gymnase stade course marathon
santé médecin pharmacie hôpital clinique infirmière soin prévention solidarité bénévole entraide don collecte
environnement nature climat énergie eau déchet recyclage compost tri transport bus train gare voiture parking
logement habitat rénovation chantier architecte urbanisme commerce artisan boutique entreprise emploi métier
apprentissage numérique internet ordinateur téléphone réseau logiciel site page message courrier affiche
bulletin journal radio télévision information actualité agenda calendrier horaire programme inscription tarif
adhésion cotisation budget subvention conseil assemblée élection vote citoyen habitant voisin jeunesse
retraite senior génération tradition coutume costume broderie tissage poterie céramique vannerie menuiserie
forge ferronnerie verrerie imprimerie reliure calligraphie enluminure jardinage potager verger serre semence
graine plantation arrosage taille greffe récolteur vendange pressoir cave cellier tonneau bouteille étiquette`
  .split(/\s+/)
  .filter(Boolean);

/** Words each put in about ten pages (the benchmark's «rare word» is the first). */
export const RARE_WORDS = Array.from({ length: 200 }, (_, n) => `zéphyrin${String.fromCharCode(97 + (n % 26))}${String.fromCharCode(97 + Math.floor(n / 26))}`);

/** The benchmark's «common word» (the 100th most frequent: in about a fifth of the pages) and a word in most pages (the 10th). */
export const COMMON_WORD = WORDS[99];
export const VERY_COMMON_WORD = WORDS[9];

export async function seedSearchSite(url: string, total: number): Promise<void> {
  let random = 7;
  const rand = () => {
    random = (random * 1103515245 + 12345) % 2147483648;
    return random / 2147483648;
  };
  // Zipf (s = 1): the cumulative weights, then a binary search per draw.
  const cumulative: number[] = [];
  let sum = 0;
  for (let rank = 1; rank <= WORDS.length; rank++) cumulative.push((sum += 1 / rank));
  const word = () => {
    const target = rand() * sum;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return WORDS[low];
  };
  const words = (n: number) => Array.from({ length: n }, word).join(' ');
  const sentence = (n: number) => {
    const text = words(n);
    return `${text[0].toUpperCase()}${text.slice(1)}.`;
  };
  const paragraph = (sentences: number) => Array.from({ length: sentences }, () => sentence(6 + Math.floor(rand() * 10))).join(' ');
  const rareEvery = Math.max(1, Math.floor(total / (RARE_WORDS.length * 10)));

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    const BATCH = 1000;
    for (let first = 1; first <= total; first += BATCH) {
      const rows: unknown[][] = [];
      for (let id = first; id < Math.min(first + BATCH, total + 1); id++) {
        const parent = id <= 100 ? null : 1 + Math.floor(rand() * (id - 1));
        const rare = id % rareEvery === 0 ? ` ${RARE_WORDS[(id / rareEvery) % RARE_WORDS.length]}` : '';
        const blocks = [
          { type: 'heading', text: sentence(3 + Math.floor(rand() * 3)), level: 2 },
          { type: 'paragraph', text: paragraph(4 + Math.floor(rand() * 4)) + rare },
          { type: 'list', items: [sentence(4), sentence(5), sentence(3)] },
          { type: 'heading', text: sentence(3), level: 3 },
          { type: 'paragraph', text: paragraph(3 + Math.floor(rand() * 3)) },
        ];
        const title = sentence(2 + Math.floor(rand() * 3)).slice(0, -1);
        rows.push([
          id,
          parent,
          title,
          `page-${id}`,
          JSON.stringify(blocks),
          JSON.stringify({ description: sentence(10) }),
          rand() < 0.01 ? 'private' : 'public',
        ]);
      }
      const values = rows.map(
        (_, i) => `($${i * 7 + 1}::int, $${i * 7 + 2}::int, $${i * 7 + 3}, $${i * 7 + 4}, $${i * 7 + 5}::jsonb, $${i * 7 + 6}::jsonb, $${i * 7 + 7})`,
      );
      await client.query(`INSERT INTO app_pages (id, parent_id, title, slug, blocks, seo, visibility) VALUES ${values.join(', ')}`, rows.flat());
    }
    await client.query(`SELECT setval(pg_get_serial_sequence('app_pages', 'id'), (SELECT max(id) FROM app_pages))`);
    await client.query('VACUUM ANALYZE app_pages');
    await client.query('VACUUM ANALYZE app_page_search');
    await client.query('VACUUM ANALYZE app_page_search_words');
    const { rows } = await client.query<{ pages: number; visible: number; words: number; size: string }>(
      `SELECT (SELECT count(*)::int FROM app_pages) AS pages, (SELECT count(*)::int FROM app_page_search WHERE visible) AS visible,
              (SELECT count(*)::int FROM app_page_search_words) AS words, pg_size_pretty(pg_total_relation_size('app_page_search')) AS size`,
    );
    const facts = rows[0];
    console.log(
      `seeded ${facts.pages} pages (${facts.visible} shown by the site) in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
        `${facts.words} words; index table ${facts.size}`,
    );
  } finally {
    await client.end();
  }
}
