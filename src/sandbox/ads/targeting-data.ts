// The sandbox's small but real set of targeting values: what `targeting-options` serves and what
// `targeting add` is validated against. Location ids are the platform's place ids; the rest
// follow the shapes of the notes' examples.
type Item = Record<string, unknown> & { name: string; targeting_type: string; targeting_value: string };

const loc = (name: string, targeting_value: string, location_type: string, country_code: string): Item => ({
  name,
  country_code,
  location_type,
  targeting_value,
  targeting_type: 'LOCATION',
});

export const LOCATIONS: Item[] = [
  loc('United States', '96683cc9126741d1', 'COUNTRIES', 'US'),
  loc('United Kingdom', '6416b8512febefc9', 'COUNTRIES', 'GB'),
  loc('Canada', '3376992a082d67c7', 'COUNTRIES', 'CA'),
  loc('Germany', 'fdcd221ac44fa326', 'COUNTRIES', 'DE'),
  loc('Japan', '06ef846bfc783874', 'COUNTRIES', 'JP'),
  loc('California, US', 'fbd6d2f5a4e4a15e', 'REGIONS', 'US'),
  loc('New York, US', '94965b2c45386f87', 'REGIONS', 'US'),
  loc('San Francisco-Oakland-San Jose CA, US', '5122804691e5fecc', 'METROS', 'US'),
  loc('New York NY, US', 'a3f95ad5ee1b0f2c', 'METROS', 'US'),
  loc('Los Angeles, Los Angeles CA, CA, USA', '3b77caf94bfc81fe', 'CITIES', 'US'),
  loc('San Francisco, San Francisco CA, CA, USA', '5a110d312052166f', 'CITIES', 'US'),
  loc('London, England, GB', '457b4814b4240d87', 'CITIES', 'GB'),
  loc('Berlin, Berlin, DE', '3078869807f9dd36', 'CITIES', 'DE'),
  loc('94103, San Francisco CA, US', 'b8f31b9e1f2a6a4d', 'POSTAL_CODES', 'US'),
];

/** The singular location_type a criterion record carries (notes 5 Proposal). */
export const SINGULAR_LOCATION: Record<string, string> = {
  COUNTRIES: 'COUNTRY',
  REGIONS: 'REGION',
  METROS: 'METRO',
  CITIES: 'CITY',
  POSTAL_CODES: 'POSTAL_CODE',
};

const simple = (targeting_type: string, rows: Array<[string, string]>): Item[] =>
  rows.map(([targeting_value, name]) => ({ name, targeting_type, targeting_value }));

export const LANGUAGES = simple('LANGUAGE', [
  ['en', 'English'],
  ['es', 'Spanish'],
  ['fr', 'French'],
  ['de', 'German'],
  ['ja', 'Japanese'],
  ['pt', 'Portuguese'],
  ['ar', 'Arabic'],
  ['hi', 'Hindi'],
]);

export const INTERESTS = simple('INTEREST', [
  ['1001', 'Books and literature/Biographies and memoirs'],
  ['1002', 'Books and literature/Business and finance books'],
  ['1003', 'Books and literature/Comics'],
  ['3001', 'Business/Advertising'],
  ['3002', 'Business/Marketing'],
  ['6001', 'Food and drink/Cooking'],
  ['6002', 'Food and drink/Beverages'],
  ['13001', 'Sports/Basketball'],
  ['13002', 'Sports/Soccer'],
  ['19001', 'Technology and computing/Computer programming'],
  ['19002', 'Technology and computing/Open source'],
  ['19003', 'Technology and computing/Tech news'],
]);

export const PLATFORMS = simple('PLATFORM', [
  ['0', 'iOS'],
  ['1', 'Android'],
  ['2', 'BlackBerry phones and tablets'],
  ['3', 'Mobile web on other devices'],
  ['4', 'Desktop and laptop computers'],
]);

export const PLATFORM_VERSIONS: Item[] = [
  { name: 'Jelly Bean', number: '4.1', os_type: 'Android', targeting_type: 'PLATFORM_VERSION', targeting_value: '18' },
  { name: 'Android 13', number: '13', os_type: 'Android', targeting_type: 'PLATFORM_VERSION', targeting_value: '250' },
  { name: 'Android 14', number: '14', os_type: 'Android', targeting_type: 'PLATFORM_VERSION', targeting_value: '251' },
  { name: 'iOS 17', number: '17.0', os_type: 'iOS', targeting_type: 'PLATFORM_VERSION', targeting_value: '17' },
  { name: 'iOS 18', number: '18.0', os_type: 'iOS', targeting_type: 'PLATFORM_VERSION', targeting_value: '300' },
];

export const DEVICES: Item[] = [
  { name: 'iPhone 4', manufacturer: 'Apple', os_type: 'iOS', targeting_type: 'DEVICE', targeting_value: '1r' },
  { name: 'iPhone 15', manufacturer: 'Apple', os_type: 'iOS', targeting_type: 'DEVICE', targeting_value: '8x' },
  { name: 'iPad Air', manufacturer: 'Apple', os_type: 'iOS', targeting_type: 'DEVICE', targeting_value: '1q' },
  { name: 'Galaxy S23', manufacturer: 'Samsung', os_type: 'Android', targeting_type: 'DEVICE', targeting_value: '9k' },
  { name: 'Pixel 8', manufacturer: 'Google', os_type: 'Android', targeting_type: 'DEVICE', targeting_value: '9p' },
];

export const NETWORK_OPERATORS: Item[] = [
  ['US', '1b', 'Aeris'],
  ['US', '2l', 'AT&T'],
  ['US', '2m', 'Verizon Wireless'],
  ['US', '2n', 'T-Mobile US'],
  ['GB', '3a', 'EE'],
  ['GB', '3b', 'Vodafone UK'],
  ['DE', '4a', 'Telekom Deutschland'],
].map(([country_code, targeting_value, name]) => ({
  country_code,
  name: name!,
  targeting_type: 'NETWORK_OPERATOR',
  targeting_value: targeting_value!,
}));

export const EVENTS: Item[] = [
  ['1ex', 'Sandbox Developer Conference', 'CONFERENCE', 'US', '2026-06-08T00:00:00Z', '2026-06-12T00:00:00Z'],
  ['1ey', 'New Year', 'HOLIDAY', null, '2026-12-31T00:00:00Z', '2027-01-02T00:00:00Z'],
  ['1ez', 'Sandbox Cup Final', 'SPORTS', 'GB', '2026-05-30T00:00:00Z', '2026-05-31T00:00:00Z'],
  ['1f0', 'Summer Music Festival', 'MUSIC_AND_ENTERTAINMENT', 'DE', '2026-07-10T00:00:00Z', '2026-07-13T00:00:00Z'],
].map(([targeting_value, name, event_type, country_code, start_time, end_time]) => ({
  name: name!,
  targeting_type: 'EVENT',
  targeting_value: targeting_value!,
  event_type,
  country_code,
  is_global: country_code === null,
  start_time,
  end_time,
  reach: { total_reach: 1_000_000 },
}));

export const CONVERSATIONS: Item[] = [
  ['a1', 'NFL', 'SPORTS'],
  ['a2', 'NBA', 'SPORTS'],
  ['b1', 'Technology', 'NEWS'],
  ['b2', 'Open source', 'PRODUCTS'],
  ['c1', 'Jazz', 'MUSIC_GENRES'],
].map(([targeting_value, name, conversation_type]) => ({
  name: name!,
  targeting_type: 'CONVERSATION',
  targeting_value: targeting_value!,
  conversation_type,
}));

export const APP_STORE_CATEGORIES: Item[] = [
  ['qouq', 'Games', 'IOS'],
  ['qour', 'Productivity', 'IOS'],
  ['r0a1', 'Games', 'ANDROID'],
  ['r0a2', 'Tools', 'ANDROID'],
].map(([targeting_value, name, os_type]) => ({
  name: `${os_type === 'IOS' ? 'iOS' : 'Android'} App Store: ${name}`,
  os_type,
  targeting_type: 'APP_STORE_CATEGORY',
  targeting_value: targeting_value!,
}));

export const TV_MARKETS = [
  { name: 'United States', country_code: 'US', locale: 'en-US' },
  { name: 'United Kingdom', country_code: 'GB', locale: 'en-GB' },
  { name: 'Japan', country_code: 'JP', locale: 'ja-JP' },
];

export const TV_SHOWS: Item[] = [
  ['10027243420', 'Sandbox Tonight', 'en-US', 5_400_000],
  ['10027243421', 'Morning Code', 'en-US', 1000],
  ['10027243422', 'The Great Bake', 'en-GB', 2_100_000],
  ['10027243423', 'Anime Hour', 'ja-JP', 800_000],
].map(([targeting_value, name, locale, estimated_users]) => ({
  name: String(name),
  locale,
  estimated_users,
  targeting_type: 'TV_SHOW',
  targeting_value: String(targeting_value),
}));

/** The lookup data by targeting_type, for validating criteria. */
export const BY_TYPE: Record<string, Item[]> = {
  LOCATION: LOCATIONS,
  LANGUAGE: LANGUAGES,
  INTEREST: INTERESTS,
  PLATFORM: PLATFORMS,
  PLATFORM_VERSION: PLATFORM_VERSIONS,
  DEVICE: DEVICES,
  NETWORK_OPERATOR: NETWORK_OPERATORS,
  EVENT: EVENTS,
  CONVERSATION: CONVERSATIONS,
  APP_STORE_CATEGORY: APP_STORE_CATEGORIES,
  APP_STORE_CATEGORY_LOOKALIKE: APP_STORE_CATEGORIES,
  TV_SHOW: TV_SHOWS,
};
