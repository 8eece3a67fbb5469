// The settings screen's text, in French.
export const settingsFieldLabels = {
  title: 'Titre du site',
  tagline: 'Slogan',
  accent_colour: 'Couleur d’accent',
  home_page_id: 'Page d’accueil',
  footer: 'Texte du pied de page',
  time_zone: 'Fuseau horaire',
  noindex: 'Ne pas indexer le site',
  theme: 'Thème',
  logo: 'Logo',
  favicon: 'Icône du site',
  social_image: 'Image de partage par défaut',
} as const;

export const settingsScreenMessages = {
  pageTitle: 'Réglages du site',
  saved: 'Les réglages du site sont enregistrés.',
  imageSaved: 'L’image est enregistrée.',
  imageRemoved: 'L’image est retirée.',
  assetNotFound: 'Ce fichier du thème n’existe pas (ou plus : son nom change avec son contenu).',
} as const;

export const settingsAuditActions = {
  'settings.updated': { label: 'Réglages du site modifiés', target: () => '/admin/settings' },
} as const;
