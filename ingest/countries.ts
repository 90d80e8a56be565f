// Country name → ISO 3166-1 alpha-2. Written as data: one row per code, the first name is the English short
// name, the rest are spellings met in OFAC, UN, CSL, UK, DPL and FtM data. Lookups are case-, accent- and
// punctuation-insensitive (see normKey), so rows only need one spelling per distinct word sequence.
// XK (Kosovo) is user-assigned but used by every list we ingest.

const COUNTRY_ROWS: readonly (readonly string[])[] = [
  ['AD', 'Andorra'],
  ['AE', 'United Arab Emirates', 'UAE', 'U.A.E.', 'Arab Emirates', 'Dubai', 'Abu Dhabi', 'Sharjah'],
  ['AF', 'Afghanistan'],
  ['AG', 'Antigua and Barbuda', 'Antigua & Barbuda', 'Antigua'],
  ['AI', 'Anguilla'],
  ['AL', 'Albania'],
  ['AM', 'Armenia'],
  ['AO', 'Angola'],
  ['AQ', 'Antarctica'],
  ['AR', 'Argentina'],
  ['AS', 'American Samoa'],
  ['AT', 'Austria'],
  ['AU', 'Australia'],
  ['AW', 'Aruba'],
  ['AX', 'Aland Islands'],
  ['AZ', 'Azerbaijan'],
  [
    'BA',
    'Bosnia and Herzegovina',
    'Bosnia & Herzegovina',
    'Bosnia-Herzegovina',
    'Bosina-Herzegovina',
    'Bosnia',
    'Bosnia and Herzegovina (Republika Srpska)',
  ],
  ['BB', 'Barbados'],
  ['BD', 'Bangladesh'],
  ['BE', 'Belgium'],
  ['BF', 'Burkina Faso'],
  ['BG', 'Bulgaria'],
  ['BH', 'Bahrain'],
  ['BI', 'Burundi'],
  ['BJ', 'Benin'],
  ['BL', 'Saint Barthelemy'],
  ['BM', 'Bermuda'],
  ['BN', 'Brunei', 'Brunei Darussalam'],
  ['BO', 'Bolivia', 'Bolivia, Plurinational State of', 'Plurinational State of Bolivia'],
  ['BQ', 'Bonaire, Sint Eustatius and Saba', 'Caribbean Netherlands'],
  ['BR', 'Brazil'],
  ['BS', 'Bahamas', 'Bahamas, The', 'The Bahamas'],
  ['BT', 'Bhutan'],
  ['BV', 'Bouvet Island'],
  ['BW', 'Botswana'],
  ['BY', 'Belarus', 'Byelorussia', 'Republic of Belarus'],
  ['BZ', 'Belize'],
  ['CA', 'Canada'],
  ['CC', 'Cocos (Keeling) Islands', 'Cocos Islands'],
  [
    'CD',
    'Congo, Democratic Republic of the',
    'Democratic Republic of the Congo',
    'Democratic Republic of Congo',
    'DR Congo',
    'DRC',
    'Congo (Kinshasa)',
    'Congo-Kinshasa',
    'Zaire',
    'The Democratic Republic of the Congo',
    'Congo, The Democratic Republic of the',
    'Democratic Republic of the',
  ],
  ['CF', 'Central African Republic', 'CAR'],
  [
    'CG',
    'Congo, Republic of the',
    'Republic of the Congo',
    'Republic of Congo',
    'Congo',
    'Congo (Brazzaville)',
    'Congo-Brazzaville',
  ],
  ['CH', 'Switzerland'],
  ['CI', "Cote d'Ivoire", 'Cote d Ivoire', 'Ivory Coast', "Côte d'Ivoire"],
  ['CK', 'Cook Islands'],
  ['CL', 'Chile'],
  ['CM', 'Cameroon'],
  ['CN', 'China', "People's Republic of China", 'PRC', 'P.R. China', "China, People's Republic of"],
  ['CO', 'Colombia'],
  ['CR', 'Costa Rica'],
  ['CU', 'Cuba'],
  ['CV', 'Cabo Verde', 'Cape Verde', 'Cabo Verde.  Previously Cape Verde.'],
  ['CW', 'Curacao', 'Curaçao'],
  ['CX', 'Christmas Island'],
  ['CY', 'Cyprus'],
  ['CZ', 'Czech Republic', 'Czechia'],
  ['DE', 'Germany', 'Federal Republic of Germany'],
  ['DJ', 'Djibouti'],
  ['DK', 'Denmark'],
  ['DM', 'Dominica'],
  ['DO', 'Dominican Republic'],
  ['DZ', 'Algeria'],
  ['EC', 'Ecuador'],
  ['EE', 'Estonia'],
  ['EG', 'Egypt', 'Arab Republic of Egypt'],
  ['EH', 'Western Sahara'],
  ['ER', 'Eritrea'],
  ['ES', 'Spain'],
  ['ET', 'Ethiopia'],
  ['FI', 'Finland'],
  ['FJ', 'Fiji'],
  ['FK', 'Falkland Islands', 'Falkland Islands (Malvinas)'],
  ['FM', 'Micronesia', 'Micronesia, Federated States of', 'Federated States of Micronesia'],
  ['FO', 'Faroe Islands'],
  ['FR', 'France'],
  ['GA', 'Gabon'],
  [
    'GB',
    'United Kingdom',
    'UK',
    'U.K.',
    'Great Britain',
    'Britain',
    'England',
    'Scotland',
    'Wales',
    'Northern Ireland',
    'United Kingdom of Great Britain and Northern Ireland',
  ],
  ['GD', 'Grenada'],
  ['GE', 'Georgia'],
  ['GF', 'French Guiana'],
  ['GG', 'Guernsey'],
  ['GH', 'Ghana'],
  ['GI', 'Gibraltar'],
  ['GL', 'Greenland'],
  ['GM', 'Gambia', 'The Gambia', 'Gambia, The'],
  ['GN', 'Guinea', 'Republic of Guinea'],
  ['GP', 'Guadeloupe'],
  ['GQ', 'Equatorial Guinea'],
  ['GR', 'Greece'],
  ['GS', 'South Georgia and the South Sandwich Islands'],
  ['GT', 'Guatemala'],
  ['GU', 'Guam'],
  ['GW', 'Guinea-Bissau', 'Guinea Bissau'],
  ['GY', 'Guyana'],
  [
    'HK',
    'Hong Kong',
    'Hong Kong SAR',
    'Hong Kong, China',
    'China, Hong Kong Special Administrative Region',
    'Hong Kong Special Administrative Region',
    'Kowloon',
  ],
  ['HM', 'Heard Island and McDonald Islands'],
  ['HN', 'Honduras'],
  ['HR', 'Croatia'],
  ['HT', 'Haiti'],
  ['HU', 'Hungary'],
  ['ID', 'Indonesia'],
  ['IE', 'Ireland', 'Republic of Ireland'],
  ['IL', 'Israel'],
  ['IM', 'Isle of Man', 'Man, Isle of'],
  ['IN', 'India', 'Bombay'],
  ['IO', 'British Indian Ocean Territory'],
  ['IQ', 'Iraq', 'Republic of Iraq'],
  ['IR', 'Iran', 'Iran, Islamic Republic of', 'Islamic Republic of Iran', 'Iran (Islamic Republic of)'],
  ['IS', 'Iceland'],
  ['IT', 'Italy'],
  ['JE', 'Jersey'],
  ['JM', 'Jamaica'],
  ['JO', 'Jordan'],
  ['JP', 'Japan'],
  ['KE', 'Kenya'],
  ['KG', 'Kyrgyzstan', 'Kyrgyz Republic', 'Kirghizia'],
  ['KH', 'Cambodia'],
  ['KI', 'Kiribati'],
  ['KM', 'Comoros', 'Comoros Islands'],
  ['KN', 'Saint Kitts and Nevis', 'St Kitts and Nevis', 'St. Kitts & Nevis', 'St. Kitts and Nevis'],
  [
    'KP',
    'Korea, North',
    'North Korea',
    "Democratic People's Republic of Korea",
    "Korea, Democratic People's Republic of",
    'DPRK',
    "Korea (Democratic People's Republic of)",
    'Pyongyang',
  ],
  ['KR', 'Korea, South', 'South Korea', 'Republic of Korea', 'Korea, Republic of'],
  ['KW', 'Kuwait'],
  ['KY', 'Cayman Islands'],
  ['KZ', 'Kazakhstan'],
  ['LA', 'Laos', "Lao People's Democratic Republic", 'Lao PDR'],
  ['LB', 'Lebanon'],
  ['LC', 'Saint Lucia', 'St. Lucia'],
  ['LI', 'Liechtenstein'],
  ['LK', 'Sri Lanka'],
  ['LR', 'Liberia'],
  ['LS', 'Lesotho'],
  ['LT', 'Lithuania'],
  ['LU', 'Luxembourg'],
  ['LV', 'Latvia'],
  ['LY', 'Libya', 'Libyan Arab Jamahiriya', 'Tripoli'],
  ['MA', 'Morocco'],
  ['MC', 'Monaco'],
  ['MD', 'Moldova', 'Moldova, Republic of', 'Republic of Moldova'],
  ['ME', 'Montenegro'],
  ['MF', 'Saint Martin (French part)', 'Saint Martin'],
  ['MG', 'Madagascar'],
  ['MH', 'Marshall Islands'],
  [
    'MK',
    'North Macedonia',
    'North Macedonia, The Republic of',
    'Republic of North Macedonia',
    'Macedonia',
    'Macedonia, The Former Yugoslav Republic of',
    'The Former Yugoslav Republic of Macedonia',
    'Former Yugoslav Republic of Macedonia',
    'FYROM',
  ],
  ['ML', 'Mali', 'Northern Mali', 'Region: Northern Mali'],
  ['MM', 'Burma', 'Myanmar', 'Myanmar (Burma)'],
  ['MN', 'Mongolia'],
  ['MO', 'Macau', 'Macao', 'China, Macao Special Administrative Region'],
  ['MP', 'Northern Mariana Islands'],
  ['MQ', 'Martinique'],
  ['MR', 'Mauritania'],
  ['MS', 'Montserrat'],
  ['MT', 'Malta'],
  ['MU', 'Mauritius'],
  ['MV', 'Maldives'],
  ['MW', 'Malawi'],
  ['MX', 'Mexico'],
  ['MY', 'Malaysia'],
  ['MZ', 'Mozambique'],
  ['NA', 'Namibia'],
  ['NC', 'New Caledonia'],
  ['NE', 'Niger'],
  ['NF', 'Norfolk Island'],
  ['NG', 'Nigeria'],
  ['NI', 'Nicaragua'],
  ['NL', 'Netherlands', 'The Netherlands', 'Holland'],
  ['NO', 'Norway'],
  ['NP', 'Nepal'],
  ['NR', 'Nauru'],
  ['NU', 'Niue'],
  ['NZ', 'New Zealand'],
  ['OM', 'Oman'],
  ['PA', 'Panama'],
  ['PE', 'Peru'],
  ['PF', 'French Polynesia'],
  ['PG', 'Papua New Guinea'],
  ['PH', 'Philippines', 'the Philippines', 'Phillipines'],
  ['PK', 'Pakistan'],
  ['PL', 'Poland'],
  ['PM', 'Saint Pierre and Miquelon'],
  ['PN', 'Pitcairn'],
  ['PR', 'Puerto Rico'],
  [
    'PS',
    'Palestine',
    'Palestinian',
    'State of Palestine',
    'Palestine, State of',
    'Palestinian Authority',
    'Palestinian Territories',
    'Palestinian Territory',
    'Occupied Palestinian Territory',
    'Occupied Palestinian Territories',
    'West Bank',
    'Gaza',
    'Gaza Strip',
    'Region: Gaza',
    'Region: West Bank',
    'Gaza (Palestinian Authority)',
    'West Bank (Palestinian Authority)',
    'possibly Palestinian',
  ],
  ['PT', 'Portugal'],
  ['PW', 'Palau'],
  ['PY', 'Paraguay'],
  ['QA', 'Qatar'],
  ['RE', 'Reunion', 'Réunion'],
  ['RO', 'Romania'],
  ['RS', 'Serbia', 'Republic of Serbia'],
  [
    'RU',
    'Russia',
    'Russian Federation',
    'the Russian Federation',
    'Region: Russia',
    'Moscow',
    'Kaliningrad',
    'Dagestan Republic',
    'Chechen Republic',
    'Chechnya',
  ],
  ['RW', 'Rwanda'],
  ['SA', 'Saudi Arabia', 'Kingdom of Saudi Arabia'],
  ['SB', 'Solomon Islands'],
  ['SC', 'Seychelles'],
  ['SD', 'Sudan', 'Republic of the Sudan'],
  ['SE', 'Sweden'],
  ['SG', 'Singapore'],
  ['SH', 'Saint Helena', 'Saint Helena, Ascension and Tristan da Cunha'],
  ['SI', 'Slovenia'],
  ['SJ', 'Svalbard and Jan Mayen'],
  ['SK', 'Slovakia', 'Slovak Republic'],
  ['SL', 'Sierra Leone'],
  ['SM', 'San Marino'],
  ['SN', 'Senegal'],
  ['SO', 'Somalia'],
  ['SR', 'Suriname'],
  ['SS', 'South Sudan', 'Republic of South Sudan'],
  ['ST', 'Sao Tome and Principe', 'São Tomé and Príncipe'],
  ['SV', 'El Salvador'],
  ['SX', 'Sint Maarten', 'Sint Maarten (Dutch part)'],
  ['SY', 'Syria', 'Syrian Arab Republic'],
  ['SZ', 'Eswatini', 'Swaziland'],
  ['TC', 'Turks and Caicos Islands'],
  ['TD', 'Chad'],
  ['TF', 'French Southern Territories'],
  ['TG', 'Togo'],
  ['TH', 'Thailand'],
  ['TJ', 'Tajikistan'],
  ['TK', 'Tokelau'],
  ['TL', 'Timor-Leste', 'East Timor'],
  ['TM', 'Turkmenistan'],
  ['TN', 'Tunisia', 'Tunisi (Tunisia)'],
  ['TO', 'Tonga'],
  ['TR', 'Turkey', 'Turkiye', 'Türkiye', 'Republic of Turkey'],
  ['TT', 'Trinidad and Tobago', 'Trinidad & Tobago'],
  ['TV', 'Tuvalu'],
  ['TW', 'Taiwan', 'Taiwan, Province of China', 'Republic of China', 'Chinese Taipei'],
  ['TZ', 'Tanzania', 'Tanzania, United Republic of', 'United Republic of Tanzania'],
  ['UA', 'Ukraine', 'Crimea', 'Region: Crimea', 'Donetsk Region', 'Luhansk Region'],
  ['UG', 'Uganda'],
  ['UM', 'United States Minor Outlying Islands'],
  ['US', 'United States', 'United States of America', 'USA', 'U.S.A.', 'U.S.', 'America', 'US'],
  ['UY', 'Uruguay'],
  ['UZ', 'Uzbekistan'],
  ['VA', 'Holy See', 'Vatican', 'Vatican City', 'Holy See (Vatican City State)'],
  [
    'VC',
    'Saint Vincent and the Grenadines',
    'St. Vincent and the Grenadines',
    'St Vincent and the Grenadines',
  ],
  ['VE', 'Venezuela', 'Venezuela, Bolivarian Republic of', 'Bolivarian Republic of Venezuela'],
  ['VG', 'Virgin Islands, British', 'British Virgin Islands', 'BVI'],
  ['VI', 'Virgin Islands, U.S.', 'US Virgin Islands', 'U.S. Virgin Islands'],
  ['VN', 'Vietnam', 'Viet Nam'],
  ['VU', 'Vanuatu'],
  ['WF', 'Wallis and Futuna'],
  ['WS', 'Samoa'],
  ['XK', 'Kosovo', 'Republic of Kosovo'],
  ['YE', 'Yemen'],
  ['YT', 'Mayotte'],
  ['ZA', 'South Africa'],
  ['ZM', 'Zambia'],
  ['ZW', 'Zimbabwe'],
  // Historic states that still appear as nationalities; mapped to the main successor state.
  ['RU', 'USSR', 'Soviet Union', 'former Soviet Union', 'Union of Soviet Socialist Republics'],
  ['RS', 'Yugoslavia', 'ex-Yugoslavia', 'Serbia and Montenegro', 'Federal Republic of Yugoslavia'],
  ['CZ', 'Czechoslovakia'],
  ['CW', 'Netherlands Antilles'],
];

// Values that mean "no country" — accepted silently instead of being reported as unknown.
const NO_COUNTRY = [
  'None Identified',
  'undetermined',
  'unknown',
  'stateless',
  'n/a',
  '-',
  '-0-',
  'Region: Commonwealth of Independent States',
  'Commonwealth of Independent States',
  // FtM: EU institutions and "global" are not countries.
  'eu',
  'zz',
];

// FtM / OpenSanctions codes that are not ISO alpha-2 but have a clear mapping.
const CODE_ALIASES: Record<string, string> = {
  suhh: 'RU',
  csxx: 'RS',
  yucs: 'RS',
  cshh: 'CZ',
  ddde: 'DE',
  anhh: 'CW',
  uk: 'GB',
  'ge-ab': 'GE',
  'ua-cri': 'UA',
  'ua-dpr': 'UA',
  'ua-lpr': 'UA',
  'ua-zap': 'UA',
  'ua-khe': 'UA',
  'md-pmr': 'MD',
  'cy-trnc': 'CY',
  'az-nk': 'AZ',
  'so-som': 'SO',
  'ge-so': 'GE',
  'iq-kr': 'IQ',
  xk: 'XK',
};

export function normKey(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

const BY_NAME = new Map<string, string>();
const CODES = new Set<string>();
for (const [code, ...names] of COUNTRY_ROWS) {
  if (code === undefined) continue;
  CODES.add(code);
  for (const n of names) {
    const k = normKey(n);
    if (!BY_NAME.has(k)) BY_NAME.set(k, code);
  }
}
const NONE = new Set(NO_COUNTRY.map(normKey));

export type CountryLookup = { code: string } | { none: true } | { unknown: true };

/** Map a country name or code to ISO alpha-2. `none` = an explicit "no country" value. With `codes` false
 * (lists that only write names), a bare "na"/"NA" means "not available", not Namibia. */
export function lookupCountry(raw: string, codes = true): CountryLookup {
  const key = codes ? raw : `\u0000${raw}`;
  let r = CACHE.get(key);
  if (r === undefined) {
    r = lookupUncached(raw, codes);
    // Lists repeat a few hundred spellings; the bound only guards against pathological input.
    if (CACHE.size < 50_000) CACHE.set(key, r);
  }
  return r;
}

const CACHE = new Map<string, CountryLookup>();

function lookupUncached(raw: string, codes: boolean): CountryLookup {
  const s = raw.trim();
  if (s === '' || NONE.has(normKey(s))) return { none: true };
  if (!codes && normKey(s) === 'na') return { none: true };
  // Bare codes: alpha-2 (upper or lower case, as CSL and FtM write them) or FtM's extended codes.
  if (codes && /^[A-Za-z]{2}$/.test(s)) {
    const up = s.toUpperCase();
    if (up === 'UK') return { code: 'GB' };
    if (CODES.has(up)) return { code: up };
  }
  const alias = codes ? CODE_ALIASES[s.toLowerCase()] : undefined;
  if (alias !== undefined) return { code: alias };
  // FtM subdivision-style codes ("gb-nir", "ua-cri") → the parent country.
  const sub = codes ? /^([A-Za-z]{2})-[A-Za-z0-9]{1,4}$/.exec(s) : null;
  if (sub !== null && CODES.has(sub[1]!.toUpperCase())) return { code: sub[1]!.toUpperCase() };
  const byName = BY_NAME.get(normKey(s));
  if (byName !== undefined) return { code: byName };
  // "Region: X" and "the X" prefixes.
  const stripped = normKey(s)
    .replace(/^(region|the|republic of|kingdom of|state of)\s+/, '')
    .trim();
  const again = BY_NAME.get(stripped);
  if (again !== undefined) return { code: again };
  return { unknown: true };
}

/** Convenience: the code or undefined (unknown and "none" both give undefined). */
export function countryCode(raw: string): string | undefined {
  const r = lookupCountry(raw);
  return 'code' in r ? r.code : undefined;
}

export function isCountryCode(code: string): boolean {
  return CODES.has(code);
}
