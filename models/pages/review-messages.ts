// User-facing text of the review workflow (issue 26, item 5): impersonal French.
export const reviewMessages = {
  notFound: 'Cette page n’a jamais été soumise à la relecture.',
  alreadyInReview: 'Cette page est déjà en relecture\u00a0: les relecteurs voient son brouillon à jour.',
  notInReview: 'Cette page n’est pas en relecture.',
  staleRevision: (current: number) =>
    `Le brouillon a changé depuis la révision relue\u00a0: la révision en relecture est maintenant la n°\u00a0${current}. Elle est à relire avant d’être approuvée.`,
  commentRequired: 'Un commentaire est nécessaire pour renvoyer la page à son auteur.',
  commentTooLong: 'Le commentaire ne doit pas dépasser 5\u00a0000 caractères.',
  noDraft: 'Aucun brouillon à soumettre\u00a0: la page en ligne est déjà à jour.',
  atInPast: 'La date de publication souhaitée doit être dans le futur.',
} as const;

/** How each step reads in the page's history and on the review screen. */
export const REVIEW_EVENT_LABELS: Record<string, string> = {
  submitted: 'Soumise à la relecture',
  resubmitted: 'Soumise de nouveau',
  rejected: 'Renvoyée à l’auteur',
  approved: 'Approuvée',
};

export const REVIEW_STATE_LABELS: Record<string, string> = {
  in_review: 'En relecture',
  rejected: 'Renvoyée',
  approved: 'Approuvée',
  closed: 'Relecture close',
};
