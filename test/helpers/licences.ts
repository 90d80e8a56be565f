// A New York licence's data, shared by the tests that render one (bench/licence-images.ts draws it).
import type { Licence } from '../../bench/licence-images.js';

export const NY_LICENCE: Licence = {
  issuer: '636001',
  jurisdiction: 'NY',
  version: 10,
  number: 'D1234567',
  family: 'DOE',
  first: 'JANE',
  birth: '1980-01-15',
  expiry: '2031-01-15',
  issued: '2023-01-15',
  sex: 'F',
  street: '1 MAIN ST',
  city: 'ALBANY',
  postal: '122070000',
};
