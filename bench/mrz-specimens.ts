// The ICAO 9303 specimen passport and ID card (ERIKSSON, ANNA MARIA of Utopia) as our MRZ fields: what PassportEye's
// mrz_test.py expects from its tests/ images. One copy for bench:identity:documents and the identity tests.
import type { MrzFields } from '../identity/document/index.js';

export const SPECIMEN_TD3: MrzFields = {
  format: 'TD3',
  document_type: 'P',
  issuing_country: 'UTO',
  document_number: 'L898902C3',
  surname: 'ERIKSSON',
  given_names: 'ANNA MARIA',
  nationality: 'UTO',
  birth_date: '1974-08-12',
  sex: 'F',
  expiry_date: '2012-04-15',
  optional_data: 'ZE184226B',
};

/** The TD2 card: same person, its own number, no optional data. */
export const SPECIMEN_TD2: MrzFields = {
  ...SPECIMEN_TD3,
  format: 'TD2',
  document_type: 'I',
  document_number: 'D23145890',
  optional_data: null,
};
