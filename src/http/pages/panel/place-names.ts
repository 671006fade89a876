/**
 * Where a buyer is, in the panel's English: "United States, California", not "US, CA", which reads
 * like two countries. Country names come from the runtime's ICU data (Intl.DisplayNames); ICU names
 * no subdivisions, so the regions a price can depend on (the tax dataset's US states, Canadian
 * provinces and Spain's territories outside the VAT area) are named here. Any other region is shown
 * as given.
 */
const countries = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

const REGIONS: Record<string, Record<string, string>> = {
  US: {
    AL: 'Alabama',
    AK: 'Alaska',
    AZ: 'Arizona',
    AR: 'Arkansas',
    CA: 'California',
    CO: 'Colorado',
    CT: 'Connecticut',
    DE: 'Delaware',
    DC: 'District of Columbia',
    FL: 'Florida',
    GA: 'Georgia',
    HI: 'Hawaii',
    ID: 'Idaho',
    IL: 'Illinois',
    IN: 'Indiana',
    IA: 'Iowa',
    KS: 'Kansas',
    KY: 'Kentucky',
    LA: 'Louisiana',
    ME: 'Maine',
    MD: 'Maryland',
    MA: 'Massachusetts',
    MI: 'Michigan',
    MN: 'Minnesota',
    MS: 'Mississippi',
    MO: 'Missouri',
    MT: 'Montana',
    NE: 'Nebraska',
    NV: 'Nevada',
    NH: 'New Hampshire',
    NJ: 'New Jersey',
    NM: 'New Mexico',
    NY: 'New York',
    NC: 'North Carolina',
    ND: 'North Dakota',
    OH: 'Ohio',
    OK: 'Oklahoma',
    OR: 'Oregon',
    PA: 'Pennsylvania',
    RI: 'Rhode Island',
    SC: 'South Carolina',
    SD: 'South Dakota',
    TN: 'Tennessee',
    TX: 'Texas',
    UT: 'Utah',
    VT: 'Vermont',
    VA: 'Virginia',
    WA: 'Washington',
    WV: 'West Virginia',
    WI: 'Wisconsin',
    WY: 'Wyoming',
    PR: 'Puerto Rico',
  },
  CA: {
    AB: 'Alberta',
    BC: 'British Columbia',
    MB: 'Manitoba',
    NB: 'New Brunswick',
    NL: 'Newfoundland and Labrador',
    NS: 'Nova Scotia',
    NT: 'Northwest Territories',
    NU: 'Nunavut',
    ON: 'Ontario',
    PE: 'Prince Edward Island',
    QC: 'Quebec',
    SK: 'Saskatchewan',
    YT: 'Yukon',
  },
  ES: { CE: 'Ceuta', ML: 'Melilla', GC: 'Las Palmas (Canary Islands)', TF: 'Santa Cruz de Tenerife (Canary Islands)' },
};

/** A country's English name; its code when ICU has none. */
export function countryName(code: string): string {
  try {
    return countries.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** The country, and the region within it when there is one: "United States, California". */
export function placeName(country: string, region: string | null | undefined): string {
  const name = countryName(country);
  if (!region) return name;
  return `${name}, ${REGIONS[country.toUpperCase()]?.[region.toUpperCase()] ?? region}`;
}
