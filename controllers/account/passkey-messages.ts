// Text of the profile's passkeys section.
export const passkeyPageMessages = {
  removed: 'La clé d’accès est retirée.',
} as const;
