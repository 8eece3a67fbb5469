// What the settings rules say, in French (the fields are named in each refusal's details).
export const settingsMessages = {
  titleInvalid: 'Le titre du site compte de 1 à 120 caractères.',
  accentInvalid: 'La couleur d’accent s’écrit #rrggbb (six chiffres hexadécimaux), par exemple #1d4ed8.',
  homePageInvalid: 'La page d’accueil doit être une page publiée et publique.',
  timeZoneInvalid: 'Ce fuseau horaire n’existe pas : il s’écrit comme Europe/Paris ou America/Montreal.',
  themeInvalid: 'Ce thème n’est pas installé.',
  themeUnusable: (problem: string) => `Ce thème ne peut pas être activé : ${problem}`,
  themeManifestMissing: 'Le dossier du thème n’a pas de fichier theme.json lisible.',
  themeNameMismatch: (declared: string, folder: string) => `theme.json, name : « ${declared} » doit être le nom du dossier du thème, « ${folder} ».`,
  themeNameTaken: (name: string) => `Un thème intégré porte déjà le nom « ${name} » : renommez le dossier et le nom dans theme.json.`,
  imageUnreadable: 'Cette image ne peut pas être lue : le fichier est abîmé ou incomplet.',
} as const;
