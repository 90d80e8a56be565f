// ICAO 9303's specimen MRZs (Utopia), as lines, for the MRZ step tests.
export const TD3_LINES = [
  'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<',
  'L898902C36UTO7408122F1204159ZE184226B<<<<<10',
];
export const TD2_LINES = ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D231458907UTO7408122F1204159<<<<<<<6'];
export const TD1_LINES = [
  'I<UTOD231458907<<<<<<<<<<<<<<<',
  '7408122F1204159UTO<<<<<<<<<<<6',
  'ERIKSSON<<ANNA<MARIA<<<<<<<<<<',
];
/** ICAO 9303-5's long document number: '<' where its check digit would be, the rest in the optional data. */
export const TD1_LONG_LINES = [
  'I<UTOD23145890<7349<<<<<<<<<<<',
  '3407127M9507122UTO<<<<<<<<<<<2',
  'STEVENSON<<PETER<JOHN<<<<<<<<<',
];
export const MRVA_LINES = [
  'V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<',
  'L8988901C4XXX4009078F96121096ZE184226B<<<<<<',
];
export const MRVB_LINES = ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'L8988901C4XXX4009078F9612109<<<<<<<<'];
