import { Type } from '@sinclair/typebox';

export const HealthOut = Type.Record(Type.String(), Type.String(), { title: 'HealthOut' });
