/** English country names from the runtime's ICU data: nothing to ship or keep up to date. */
const names = new Intl.DisplayNames(['en'], { type: 'region' });

export function countryName(code: string): string {
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}
