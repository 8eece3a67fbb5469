// User-facing text of the pages module (impersonal, French; never «avec succès»).
export const pageMessages = {
  pageNotFound: 'Page introuvable.',
  titleRequired: 'Le titre est obligatoire et ne peut pas être vide.',
  slugInvalid: 'Le slug ne peut contenir que des lettres minuscules sans accent, des chiffres et des tirets simples (100 caractères au plus).',
  slugReserved: (slug: string) => `Le slug « ${slug} » est réservé par le site à la racine : un autre slug est nécessaire.`,
  parentNotFound: 'La page parente n’existe pas.',
  cycle: 'Une page ne peut pas être placée sous elle-même ni sous l’une de ses sous-pages.',
  createdAtFuture: 'La date de création doit être dans le passé.',
  createdAtInvalid: 'La date de création doit être une date ISO valide.',
  createdAtTooOld: 'La date de création ne peut pas être antérieure à 1970.',
  templateUnknown: (name: string) => `Le modèle « ${name} » n’existe pas.`,
  stalePage: 'La page a changé depuis l’ouverture de ce formulaire : les blocs affichés sont maintenant à jour, l’action peut être refaite.',
  hasChildren: 'Cette page a des sous-pages : elles doivent être supprimées d’abord, ou la suppression demandée en cascade (?cascade=true).',
  slugExhausted: 'Aucun slug libre n’a été trouvé pour cette page. Un nouvel essai est possible.',
  parentInvalid: 'Le paramètre « parent » doit être un identifiant, un chemin de slugs ou « root ».',
  pathInvalid: 'Le chemin doit être une suite de slugs séparés par des « / ».',
  mediaNotFound: 'Média introuvable.',
  mediaMissing: 'Cette image n’existe pas dans la médiathèque.',
  mediaInUse: (count: number) => `Ce média est utilisé par ${count} page${count > 1 ? 's' : ''} : il doit en être retiré avant d’être supprimé.`,
  mediaFileMissing: 'Aucun fichier reçu (champ « file »).',
} as const;

export const searchMessages = {
  empty: 'Saisissez un ou plusieurs mots à rechercher.',
  tooShort: 'La recherche doit contenir au moins 2 caractères.',
  tooLong: 'La recherche ne doit pas dépasser 200 caractères.',
} as const;

export const redirectMessages = {
  pathInvalid: 'L’adresse doit être un chemin de slugs séparés par des «\u00a0/\u00a0» (par exemple /rubrique/page).',
  pathReserved: 'Cette adresse appartient au site lui-même et ne peut pas être redirigée.',
  pageMissing: 'La page cible n’existe pas.',
  pathInUse: 'Une page existe à cette adresse\u00a0: elle ne peut pas être redirigée.',
  alreadyRedirected: 'Cette adresse est déjà redirigée.',
  notFound: 'Redirection introuvable.',
} as const;

export const menuMessages = {
  notFound: 'Menu introuvable : les menus du site sont « header » et « footer ».',
  pageMissing: 'Cette page n’existe pas.',
  urlInvalid: 'L’adresse doit commencer par https://, http://, mailto: ou / (un chemin du site).',
  targetMissing: 'Un lien mène à une page ou à une adresse : l’une des deux est nécessaire.',
  targetBoth: 'Un lien mène à une page ou à une adresse, pas aux deux.',
  labelRequired: 'Le libellé est obligatoire pour un lien vers une adresse.',
  tooDeep: 'Un sous-lien ne peut pas avoir de sous-liens : les menus ont un seul niveau d’imbrication.',
  tooMany: (limit: number) => `Un menu compte au plus ${limit} liens, sous-liens compris.`,
} as const;

export const blockMessages = {
  idInvalid: 'L’identifiant d’un bloc est fait de lettres minuscules, de chiffres et de tirets (36 caractères au plus).',
  idTaken: 'Deux blocs de la page portent cet identifiant\u00a0: chaque bloc a le sien.',
  hrefInvalid: 'L’adresse doit commencer par https://, http:// ou / (un chemin du site).',
  altMissing: 'Texte alternatif requis\u00a0: décrire ce que montre l’image, ou cocher «\u00a0Image décorative\u00a0» si elle ne dit rien.',
  imageInvalid: 'L’adresse de l’image doit commencer par https://, http:// ou / (un chemin du site).',
} as const;

// Revisions, drafts and scheduled publishing.
export const revisionMessages = {
  conflict: 'La page a été modifiée depuis la version sur laquelle repose cet envoi : le contenu actuel est joint, le travail envoyé n’a pas été enregistré.',
  mergeConflict:
    'La page a été modifiée depuis la version sur laquelle repose cet envoi, et certains champs l’ont été des deux côtés\u00a0: ils sont joints, avec les deux versions. Rien n’a été enregistré.',
  revisionNotFound: 'Révision introuvable.',
  draftNotFound: 'Aucun brouillon en attente pour cette page.',
  neverPublishedDiscard: 'Cette page n’a jamais été publiée\u00a0: son brouillon est tout ce qu’elle a. Supprimez la page pour l’abandonner.',
  nothingToPublish: 'Aucun brouillon à publier : la page en ligne est déjà à jour.',
  scheduleNotFound: 'Aucune publication programmée pour cette page.',
  scheduleInPast: 'La date de publication programmée doit être dans le futur ; sans date, le brouillon est publié tout de suite.',
  scheduleInvalid: 'La date de publication doit être une date ISO avec l’heure, par exemple 2030-01-31T09:00:00Z.',
  scheduleTooFar: 'La date de publication programmée ne peut pas dépasser l’an 9999.',
} as const;

// Pages for members (access).
export const accessMessages = {
  rolesRequired: 'Choisissez au moins un rôle\u00a0: la page est réservée aux comptes qui en ont un.',
  roleNotFound: 'Un des rôles choisis n’existe pas.',
  forbidden: 'Cette page est réservée à certains rôles\u00a0: votre compte n’y a pas accès.',
  signInRequired: 'Cette page est réservée aux membres\u00a0: connectez-vous pour la lire.',
} as const;
