// User-facing text of the grants on sections of the tree (French, impersonal).
export const grantMessages = {
  nonePicked: 'Au moins une permission doit être choisie.',
  notGrantable: (keys: string) => `Seules les permissions des pages peuvent être données sur une rubrique (refusées : ${keys}).`,
  roleNotFound: 'Ce rôle n’existe pas.',
  adminRole: 'Le rôle Administrateur détient déjà toutes les permissions sur toutes les pages.',
  grantNotFound: 'Cette permission n’est pas donnée sur cette page (une permission héritée se retire sur la page où elle est donnée).',
  outsideSection: 'Cette page est en dehors des rubriques confiées à ce compte.',
  rootForbidden: 'Ce compte ne peut créer des pages que dans ses rubriques : une page parente est nécessaire.',
  moveOutside: 'Une page ne peut être déplacée que sous une page des rubriques confiées à ce compte.',
  escalation: (keys: string) => `Ce compte ne peut pas donner des permissions qu’il n’a pas lui-même sur tout le site (${keys}).`,
} as const;
