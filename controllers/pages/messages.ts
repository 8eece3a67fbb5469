// Text of the pages module's screens and site pages (impersonal, French; never «avec
// succès»). The models' own refusals are in models/pages/messages.ts.
import { BLOCKS_MAX } from '../../models/pages/blocks.js';

export const pageScreenMessages = {
  created: 'La page est créée.',
  saved: 'La page est enregistrée.',
  duplicated: 'La copie est créée.',
  sampleRemoved: 'Le contenu d’exemple est supprimé : ses pages, son image et son menu.',
  sampleDeleteTitle: 'Supprimer le contenu d’exemple',
  deleted: (count: number) => (count > 1 ? `La page et ses ${count - 1} sous-page${count > 2 ? 's' : ''} sont supprimées.` : 'La page est supprimée.'),
  hasChildren: 'Cette page a des sous-pages : la case « Supprimer aussi les sous-pages » les supprime avec elle ; sinon, elles doivent être déplacées d’abord.',
  invalidDocument: 'Rien n’est enregistré : certaines valeurs sont à corriger (messages à côté des champs).',
  mergeConflict:
    'La page a été modifiée entre-temps\u00a0: tout ce qui pouvait l’être est fusionné, mais les champs ci-dessous ont été changés des deux côtés. Rien n’est enregistré\u00a0: choisir la version à garder pour chacun, puis enregistrer.',
  conflict:
    'La page a changé depuis l’ouverture de ce formulaire : rien n’est enregistré. Le contenu envoyé est conservé ci-dessous, à côté de la version actuelle : garder l’un ou l’autre.',
} as const;

/** «Claire Martin», «Claire Martin et Bruno Petit», «A, B et C». */
function namesOf(names: string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} et ${names[names.length - 1]}` : (names[0] ?? '');
}

export const editorMessages = {
  merged: (names: string[]) =>
    names.length ? `Fusionné avec les modifications de ${namesOf(names)}.` : 'Fusionné avec les modifications enregistrées entre-temps.',
  mergedWith: (names: string[]) => (names.length ? `les modifications de ${namesOf(names)}` : 'les modifications enregistrées entre-temps'),
  blockRemovedByYou:
    'Vous avez retiré ce bloc, qui a été modifié entre-temps\u00a0: il est gardé dans le formulaire, avec ces modifications\u00a0; «\u00a0Supprimer\u00a0» le retire.',
  blockRemovedByOthers:
    'Ce bloc a été retiré entre-temps, et vous l’avez modifié\u00a0: il est gardé dans le formulaire, avec vos modifications\u00a0; «\u00a0Supprimer\u00a0» le retire.',
  added: 'Le bloc est ajouté (brouillon enregistré).',
  moved: 'Le bloc est déplacé (brouillon enregistré).',
  removed: 'Le bloc est supprimé (brouillon enregistré).',
  saved: 'Le brouillon est enregistré : la page en ligne ne change qu’à la publication.',
  published: 'La page est publiée.',
  scheduled: (when: string) => `La publication est programmée le ${when}.`,
  unscheduled: 'La publication programmée est annulée ; le brouillon reste enregistré.',
  discarded: 'Le brouillon est abandonné : la page en ligne est inchangée.',
  scheduleMissing: 'La date et l’heure de publication sont à indiquer.',
  previewLinksRevoked: 'Les liens d’aperçu de cette page sont révoqués : ceux déjà partagés ne fonctionnent plus.',
} as const;

/** The editor's bar and side panel. */
export const editorLayoutMessages = {
  noParent: 'Aucune (page racine)',
  saved: (draft: boolean, when: string, by: string) => `${draft ? 'Brouillon enregistré' : 'Enregistrée'} ${when} par ${by}`,
  autosaved: (time: string) => `Brouillon enregistré à ${time}`,
  savedForPreview: (time: string) => `Brouillon enregistré à ${time} pour l’aperçu (nouvel onglet)`,
} as const;

export const presenceMessages = {
  /** «Claire Martin modifie cette page depuis 10 h 42» (today), «… depuis le 25 novembre 2026 à 10 h 42». */
  editing: (name: string, when: string, today: boolean) => `${name} modifie cette page depuis ${today ? '' : 'le '}${when}`,
} as const;

export const mediaScreenMessages = {
  uploaded: 'L’image est ajoutée à la médiathèque.',
  saved: 'Le texte de l’image est enregistré.',
  deleted: 'L’image est supprimée.',
} as const;

export const redirectScreenMessages = {
  created: 'La redirection est enregistrée.',
  deleted: 'La redirection est supprimée.',
} as const;

export const menuScreenMessages = {
  saved: (menu: string) => `Le ${menu.charAt(0).toLowerCase()}${menu.slice(1)} est enregistré.`,
} as const;

export const revisionScreenMessages = {
  restored: (number: number) => `La révision ${number} est copiée dans le brouillon\u00a0: la page en ligne ne change qu’à la publication.`,
} as const;

export const documentMessages = {
  invalid: 'Rien n’est enregistré : certaines valeurs sont à corriger (voir les messages ci-dessous).',
  unknownType: 'Ce type de bloc n’existe pas.',
  badBlock: 'Ce bloc ne peut pas être relu : il est laissé tel qu’il était.',
  tooMany: `Une page compte au plus ${BLOCKS_MAX} blocs.`,
  fileRefused: (reason: string) =>
    `Image refusée\u00a0: ${reason} Le reste du formulaire est gardé\u00a0; le fichier est à choisir de nouveau (un navigateur ne le garde pas).`,
} as const;

export const goneMessage = 'Cette page a été supprimée.';

export const previewRefusals = {
  invalid: { status: 403, title: 'Lien d’aperçu non valide', text: 'Ce lien d’aperçu n’est pas valide : il a été modifié ou tronqué.' },
  expired: { status: 410, title: 'Lien d’aperçu expiré', text: 'Ce lien d’aperçu a expiré : un lien d’aperçu vaut 24 heures.' },
  gone: { status: 410, title: 'Aperçu indisponible', text: 'La page ou la révision de ce lien d’aperçu n’existe plus.' },
  revoked: { status: 410, title: 'Lien d’aperçu révoqué', text: 'Ce lien d’aperçu a été révoqué : un nouveau lien doit être demandé à l’équipe du site.' },
} as const;

/** What a preview's banner says it shows: the draft, not «révision 5». */
export const previewTitles = {
  draft: () => 'Aperçu du brouillon',
  scheduled: () => 'Aperçu du brouillon programmé',
  published: () => 'Aperçu de la version en ligne',
  superseded: (revision: number) => `Aperçu d’une version antérieure (révision ${revision})`,
} as const;

export const STATE_LABELS: Record<string, string> = {
  published: 'En ligne',
  draft: 'Brouillon en attente',
  scheduled: 'Programmée',
  superseded: 'Remplacée',
};

export const VISIBILITIES = [
  { value: 'public', label: 'Publique' },
  { value: 'private', label: 'Privée' },
];

/** Titles of the pages module's screens (tab title and heading). */
export const pageScreenTitles = {
  tree: 'Pages',
  newPage: 'Nouvelle page',
  editor: (title: string) => `Page ${title}`,
  deletePage: (title: string) => `Supprimer la page ${title}`,
  history: (title: string) => `Historique de ${title}`,
  compare: (older: number, newer: number, title: string) => `Révisions ${older} et ${newer} de ${title}`,
  media: 'Médiathèque',
  image: (name: string) => `Image ${name}`,
  redirects: 'Redirections',
  menus: 'Menus',
  /** A block's field in the error summary: «Bloc 2 : Texte». */
  blockField: (position: number, label: string) => `Bloc ${position}\u00a0: ${label}`,
};

/** The rows of a revision in the comparison screen. */
export const revisionFieldLabels = {
  title: 'Titre',
  slug: 'Adresse',
  parent: 'Page parente',
  noParent: 'Aucune (page racine)',
  parentId: (id: number) => `n° ${id}`,
  template: 'Modèle',
  visibility: 'Visibilité',
  seoTitle: 'Titre pour les moteurs',
  seoDescription: 'Description pour les moteurs',
  noindex: 'Ne pas indexer',
  yes: 'Oui',
  no: 'Non',
  createdAt: 'Date de création',
};

/** Titles of the site's own pages (the 404 and the page of a deleted page). */
export const siteTitles = {
  notFound: 'Page introuvable',
  membersOnly: 'Accès réservé',
  gone: 'Page supprimée',
  search: 'Recherche',
  searchFor: (query: string) => `Recherche\u00a0: ${query}`,
};

/** Names of the module's fields in a refused form's summary, when a model's message names none. */
export const PAGES_FIELD_LABELS = {
  title: 'Titre',
  slug: 'Adresse',
  parent_id: 'Page parente',
  type: 'Type de bloc',
};

/** Refusals of the publishing and own-pages rules (issue 26). */
export const pageRightsMessages = {
  notOwner: 'Vous ne pouvez modifier que les pages que vous avez créées (permission « Écrire les brouillons de ses propres pages »).',
  notOwnerSubtree: 'Des sous-pages de cette page ont été créées par d’autres personnes : vous ne pouvez pas les supprimer avec elle.',
  notOwnerPublish: 'Vous ne pouvez publier que les pages que vous avez créées (permission « Publier ses propres pages »).',
  publishForbidden:
    'Publier, programmer ou rendre privée une page demande la permission « Publier les pages » : enregistrez le brouillon, une personne qui peut publier le mettra en ligne.',
  createLiveForbidden:
    'Créer une page en ligne demande la permission « Publier les pages ». Envoyez "publish": false pour la créer en brouillon (jamais publiée).',
  liveEditForbidden:
    'Modifier la page en ligne demande la permission « Publier les pages ». Enregistrez un brouillon (PUT …/draft) ; seul un déplacement (parent_id) se fait sans elle.',
};

// The editor's «Accès» (pages for members).
export const accessScreenMessages = {
  accessLabel: 'Accès',
  rolesLabel: 'Rôles',
  everyone: 'Tout le monde',
  members: 'Les personnes connectées',
  roles: 'Certains rôles',
  saved: (access: string) =>
    access === 'everyone'
      ? 'Accès enregistré\u00a0: la page est ouverte à tout le monde.'
      : access === 'members'
        ? 'Accès enregistré\u00a0: la page et ses sous-pages sont réservées aux personnes connectées.'
        : 'Accès enregistré\u00a0: la page et ses sous-pages sont réservées aux rôles choisis.',
} as const;
