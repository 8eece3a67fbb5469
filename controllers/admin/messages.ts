// User-facing text of the administration screens and the profile page (impersonal,
// «courriel», never «avec succès»).
import { OUTBOX_FOR_VISITORS, outboxPlace } from '../../lib/messages.js';

export const adminMessages = {
  // `outbox`: the folder the message was written to instead of sent (MAIL_OUTBOX), said on the screen.
  userInvited: (email: string, outbox?: string) =>
    outbox
      ? `Le compte est créé. L’invitation pour ${email} n’est pas envoyée : ${outboxPlace(outbox)}.`
      : `Le compte est créé. Une invitation est envoyée à ${email}.`,
  userInvitationFailed: (email: string) =>
    `Le compte est créé, mais l’invitation n’a pas pu être envoyée à ${email}. Le bouton « Renvoyer l’invitation » permet de réessayer plus tard.`,
  invitationResent: (email: string, outbox?: string) =>
    outbox
      ? `Une nouvelle invitation pour ${email} est prête, sans être envoyée : ${outboxPlace(outbox)}. Le lien précédent ne fonctionne plus.`
      : `Une nouvelle invitation est envoyée à ${email} ; le lien précédent ne fonctionne plus.`,
  userCreated: 'Le compte est créé ; la connexion est possible avec le mot de passe choisi.',
  userSaved: 'Les modifications du compte sont enregistrées.',
  userEmailPending: (email: string, outbox?: string) =>
    outbox
      ? `Un lien de confirmation pour ${email} est prêt, sans être envoyé : ${outboxPlace(outbox)}, avec l’avis à l’adresse actuelle. Le courriel du compte changera une fois ce lien suivi.`
      : `Un lien de confirmation est envoyé à ${email}. Le courriel du compte changera une fois ce lien suivi ; l’adresse actuelle en est informée.`,
  userEmailMoved: (email: string, outbox?: string) =>
    outbox
      ? `Le courriel du compte est maintenant ${email}. Une nouvelle invitation pour cette adresse est prête, sans être envoyée : ${outboxPlace(outbox)}. Le lien de l’invitation précédente ne fonctionne plus.`
      : `Le courriel du compte est maintenant ${email}. Une nouvelle invitation y est envoyée ; le lien de l’invitation précédente ne fonctionne plus.`,
  userPasswordSaved: 'Le mot de passe du compte est défini ; ses sessions sont fermées.',
  userVerified: 'Le courriel est marqué comme vérifié.',
  userSuspended: (name: string) => `Le compte de ${name} est suspendu ; ses sessions sont fermées.`,
  userRestored: (name: string) => `Le compte de ${name} est rétabli ; la connexion est de nouveau possible.`,
  userDeleted: (name: string) => `Le compte de ${name} est supprimé.`,
  resetSent: (email: string, outbox?: string) =>
    outbox
      ? `Un lien de réinitialisation pour ${email} est prêt, sans être envoyé : ${outboxPlace(outbox)}.`
      : `Un lien de réinitialisation est envoyé à ${email}.`,
  roleAssigned: 'Le rôle est attribué.',
  roleAlreadyHeld: 'Ce compte a déjà ce rôle.',
  roleRevoked: 'Le rôle est retiré.',
  roleCreated: 'Le rôle est créé.',
  roleSaved: 'Le rôle est enregistré.',
  signInPassword: 'Mot de passe',
  signInPasskey: 'Clé d’accès',
  signInProvider: (label: string, enabled: boolean) => (enabled ? label : `${label} (désactivé)`),
  adminAccessTicked:
    'Rien n’est enregistré : les permissions choisies servent dans l’administration, qui demande aussi « Accéder à l’administration ». Cette case est maintenant cochée ; enregistrez pour confirmer, ou décochez-la si ce rôle doit rester sans accès à l’administration.',
  roleDeleted: 'Le rôle est supprimé.',
  roleSavedEnrolNow:
    'Le rôle est enregistré. Il exige la vérification en deux étapes, que ce compte n’a pas encore activée : elle doit l’être maintenant pour retrouver l’accès au reste du site.',
  requirementLocksYouOut:
    'Ce compte a ce rôle sans avoir activé la vérification en deux étapes : s’il l’exige, ce compte devra l’activer avant d’accéder à toute autre page.',
  roleOutranksManager: 'Ce rôle détient des permissions que ce compte n’a pas : il ne peut être ni modifié ni supprimé depuis celui-ci.',
  profileNameSaved: 'Le nom est enregistré.',
  reviewEmailsOn: 'Les courriels de relecture sont activés.',
  reviewEmailsOff: 'Les courriels de relecture sont désactivés.',
  // Said to any account holder: where the message is kept, not the server's folders.
  profileEmailPending: (email: string, outbox?: string) =>
    outbox
      ? `Un lien de confirmation pour ${email} est prêt, sans être envoyé : ${OUTBOX_FOR_VISITORS}. Le courriel du compte changera une fois ce lien suivi.`
      : `Un lien de confirmation est envoyé à ${email}. Le courriel du compte changera une fois ce lien suivi ; l’ancienne adresse en est informée.`,
  profileEmailConfirmed: 'Le nouveau courriel est confirmé.',
  emailConfirmPage: {
    title: 'Confirmation du nouveau courriel',
    description: 'Le courriel du compte change une fois ce bouton utilisé ; l’ancienne adresse ne sert plus à se connecter.',
  },
  profileEmailInvalid: 'Ce lien de confirmation est invalide ou a expiré. Une nouvelle demande est nécessaire.',
  providerUnlinked: (label: string) => `Le compte n’est plus lié à ${label}.`,
  providerCreated: (label: string) => `Le fournisseur ${label} est ajouté. L’adresse de retour ci-dessous est à déclarer chez lui.`,
  providerSaved: 'Le fournisseur est enregistré.',
  providerDeleted: (label: string) => `Le fournisseur ${label} est supprimé, et les liaisons des comptes avec lui.`,
  profilePasswordSaved: 'Le mot de passe est modifié. Les autres sessions sont fermées.',
  passwordsDiffer: 'Les deux mots de passe ne correspondent pas.',
  pictureSaved: 'La photo est enregistrée.',
  pictureRemoved: 'La photo est retirée.',
  sessionRevoked: 'La session est déconnectée.',
  otherSessionsRevoked: (count: number) =>
    count === 0
      ? 'Aucune autre session n’était ouverte.'
      : `${count} autre${count > 1 ? 's' : ''} session${count > 1 ? 's' : ''} déconnectée${count > 1 ? 's' : ''}.`,
} as const;

export const adminTwoFactorMessages = {
  reset: (email: string) => `La vérification en deux étapes de ${email} est désactivée ; un courriel l’en informe.`,
} as const;

export const twoFactorPageMessages = {
  title: 'Vérification en deux étapes',
  setupStarted: 'La clé est prête : elle doit être ajoutée à l’application d’authentification, puis confirmée par un premier code.',
  disabled: 'La vérification en deux étapes est désactivée. La connexion ne demande plus que le mot de passe.',
  enabled: 'La vérification en deux étapes est activée. Ces codes de secours ne seront plus affichés : ils doivent être conservés maintenant.',
  renewed: 'Voici les nouveaux codes de secours ; les anciens ne servent plus. Ils ne seront plus affichés : ils doivent être conservés maintenant.',
} as const;

/** Titles of the administration and profile screens (tab title and heading). */
export const adminTitles = {
  users: 'Utilisateurs',
  inviteUser: 'Inviter un utilisateur',
  suspendUser: (name: string) => `Suspendre ${name}`,
  deleteUser: (name: string) => `Supprimer ${name}`,
  roles: 'Rôles',
  newRole: 'Nouveau rôle',
  role: (label: string) => `Rôle ${label}`,
  deleteRole: (label: string) => `Supprimer le rôle ${label}`,
  audit: 'Journal',
  signIn: 'Moyens de connexion',
  profile: 'Mon profil',
  deleteOwnAccount: 'Supprimer mon compte',
};
