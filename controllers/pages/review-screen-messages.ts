// Text of the review screens and the editor's review controls (impersonal French).
export const reviewScreenMessages = {
  title: (page: string) => `Relecture de «\u00a0${page}\u00a0»`,
  submitted: 'Page soumise à la relecture\u00a0: les relecteurs en sont informés par courriel.',
  approved: 'Relecture approuvée\u00a0: la page est en ligne.',
  approvedScheduled: (at: string) => `Relecture approuvée\u00a0: la publication est programmée le ${at}.`,
  rejected: 'Page renvoyée à son auteur avec le commentaire.',
} as const;
