// User-facing text of the pages module (impersonal, French; never «avec succès»).
export const pageMessages = {
  pageNotFound: 'Page introuvable.',
  titleRequired: 'Le titre est obligatoire et ne peut pas être vide.',
  slugInvalid: 'Le slug ne peut contenir que des lettres minuscules sans accent, des chiffres et des tirets simples (100 caractères au plus).',
  slugReserved: (slug: string) => `Le slug « ${slug} » est réservé par le site à la racine : choisissez-en un autre.`,
  parentNotFound: 'La page parente n’existe pas.',
  cycle: 'Une page ne peut pas être placée sous elle-même ni sous l’une de ses sous-pages.',
  createdAtFuture: 'La date de création doit être dans le passé.',
  createdAtInvalid: 'La date de création doit être une date ISO valide.',
  createdAtTooOld: 'La date de création ne peut pas être antérieure à 1970.',
  templateUnknown: (name: string) => `Le modèle « ${name} » n’existe pas.`,
  stalePage: 'La page a changé depuis l’ouverture de ce formulaire : les blocs affichés sont maintenant à jour, l’action peut être refaite.',
  hasChildren: 'Cette page a des sous-pages : supprimez-les d’abord, ou demandez une suppression en cascade (?cascade=true).',
  slugExhausted: 'Impossible de trouver un slug libre pour cette page. Réessayez.',
  parentInvalid: 'Le paramètre « parent » doit être un identifiant, un chemin de slugs ou « root ».',
  pathInvalid: 'Le chemin doit être une suite de slugs séparés par des « / ».',
  mediaNotFound: 'Média introuvable.',
  mediaMissing: 'Cette image n’existe pas dans la médiathèque.',
  mediaInUse: (count: number) =>
    `Ce média est utilisé par ${count} page${count > 1 ? 's' : ''} : retirez-le de ${count > 1 ? 'ces pages' : 'cette page'} avant de le supprimer.`,
  mediaFileMissing: 'Aucun fichier reçu (champ « file »).',
} as const;
