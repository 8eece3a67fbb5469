// User-facing text of revisions, drafts and scheduled publishing (impersonal, French).
export const revisionMessages = {
  conflict: 'La page a été modifiée depuis la version sur laquelle repose cet envoi : le contenu actuel est joint, le travail envoyé n’a pas été enregistré.',
  revisionNotFound: 'Révision introuvable.',
  draftNotFound: 'Aucun brouillon en attente pour cette page.',
  nothingToPublish: 'Aucun brouillon à publier : la page en ligne est déjà à jour.',
  scheduleNotFound: 'Aucune publication programmée pour cette page.',
  scheduleInPast: 'La date de publication programmée doit être dans le futur ; sans date, le brouillon est publié tout de suite.',
  scheduleInvalid: 'La date de publication doit être une date ISO avec l’heure, par exemple 2030-01-31T09:00:00Z.',
  scheduleTooFar: 'La date de publication programmée ne peut pas dépasser l’an 9999.',
} as const;
