// Text of the profile's passkeys section.
export const passkeyPageMessages = {
  removed: 'La clé d’accès est retirée.',
  renamed: 'La clé d’accès est renommée.',
} as const;
