// User-facing text of the roles' sign-in policy (SPEC A3 rules: impersonal, «courriel»).
export const signInPolicyMessages = {
  password: 'le mot de passe',
  passkey: 'une clé d’accès',
  useInstead: (ways: string[]) => `La connexion à ce compte se fait avec ${ways.length === 1 ? ways[0] : `${ways.slice(0, -1).join(', ')} ou ${ways.at(-1)}`}.`,
  noWayLeft: 'Aucun moyen de connexion n’est permis à ce compte par ses rôles. Un administrateur peut le rétablir.',
  emptyList: 'Au moins un moyen de connexion doit être permis (ou tous).',
  unknownMethods: (keys: string[]) => `Moyens de connexion inconnus\u00a0: ${keys.join(', ')}.`,
  providerRequired: (roles: string[]) =>
    `Ce fournisseur est le moyen de connexion exigé par ${roles.length === 1 ? 'le rôle' : 'les rôles'} ${roles.map((role) => `« ${role} »`).join(', ')}\u00a0: il faut d’abord modifier ${roles.length === 1 ? 'ce rôle' : 'ces rôles'}.`,
} as const;
