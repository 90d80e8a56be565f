import { alpha2Of } from '../../identity/chip/countries.js';
import { locale } from './i18n';

/** ISO 3166-1 alpha-2 codes (249): the choices of a country field when a template does not narrow them. */
export const COUNTRY_CODES =
  'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'.split(
    ' ',
  );

/** ISO alpha-2 `codes` with their names in the page's language, sorted by name; a code the browser cannot name is
 * shown as itself (Intl.DisplayNames throws on anything but a region code). */
export function countryOptions(codes: readonly string[]): { code: string; name: string }[] {
  const names = new Intl.DisplayNames([locale()], { type: 'region' });
  const nameOf = (code: string) => {
    try {
      return names.of(code.toUpperCase()) ?? code;
    } catch {
      return code;
    }
  };
  return codes
    .map((code) => ({ code, name: nameOf(code) }))
    .sort((a, b) => a.name.localeCompare(b.name, locale()));
}

/** ICAO 9303 issuing-state codes (a template's `allowed_issuing_countries`: DEU, D, GBR, UTO …) as a list of names
 * in the page's language, sorted, each name once (GBR and GBD are both the United Kingdom); '' for none. */
export function issuingCountriesText(icaoCodes: readonly string[]): string {
  const options = countryOptions(icaoCodes.map((code) => alpha2Of(code.toUpperCase()) ?? code.toUpperCase()));
  const names = [...new Set(options.map((o) => o.name))];
  return new Intl.ListFormat(locale(), { type: 'unit', style: 'short' }).format(names);
}
