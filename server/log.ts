import { pino } from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  // JSON on stdout always; operators pipe through pino-pretty if they want colours.
  return pino({ level, base: { service: 'veriscreen' }, timestamp: pino.stdTimeFunctions.isoTime });
}
