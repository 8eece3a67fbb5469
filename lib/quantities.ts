// Numbers as French readers expect them on the screens: «Aucun compte», «1 compte»,
// «1 234 comptes» (narrow no-break space between thousands), «40,7 Kio».
// Built on first use: the first French formatter loads the locale's data, which a start
// need not wait for.
const integers = lazyFormat(() => new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 0 }));
const oneDecimal = lazyFormat(() => new Intl.NumberFormat('fr-FR', { minimumFractionDigits: 0, maximumFractionDigits: 1 }));

function lazyFormat(make: () => Intl.NumberFormat): (value: number) => string {
  let formatter: Intl.NumberFormat | undefined;
  return (value) => (formatter ??= make()).format(value);
}

/** «1 234». */
export function frenchNumber(value: number): string {
  return integers(value);
}

/**
 * A count with its noun: `none` for 0 («Aucun compte»), else the number and the
 * singular (1) or plural form («1 compte», «12 comptes»).
 */
export function countOf(value: number, singular: string, plural: string, none: string): string {
  if (value === 0) return none;
  return `${frenchNumber(value)}\u00a0${value === 1 ? singular : plural}`;
}

const UNITS = ['octets', 'Kio', 'Mio', 'Gio'];

/** «512 octets», «40,7 Kio», «1,5 Mio»: binary units, one decimal at most. */
export function fileSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // French puts 0 and 1 in the singular.
  if (unit === 0) return `${frenchNumber(value)}\u00a0${value < 2 ? 'octet' : 'octets'}`;
  return `${oneDecimal(value)}\u00a0${UNITS[unit]}`;
}
