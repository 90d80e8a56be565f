/** The AML dataset categories, in the index's bit order. Plain data (no TypeBox) so the dashboard bundle can take it. */
export const AML_DATASET_VALUES = [
  'sanctions',
  'pep',
  'pep_rca',
  'wanted',
  'debarment',
  'soe',
  'crypto_wallets',
] as const;
