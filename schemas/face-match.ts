import { type Static, Type } from '@sinclair/typebox';

/** One input line of `veriscreen face-match`: two image files to compare (paths relative to the working directory). */
export const FaceMatchIn = Type.Object(
  {
    ref: Type.Optional(Type.String({ maxLength: 200 })),
    a: Type.String({ minLength: 1, maxLength: 4096 }),
    b: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false, title: 'FaceMatchIn' },
);
export type FaceMatchIn = Static<typeof FaceMatchIn>;
