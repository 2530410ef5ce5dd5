import { pino } from 'pino';

export function createLogger(level: string) {
  return pino({
    level,
    base: { service: 'stockless' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', '*.authorization'], censor: '[redacted]' },
  });
}
export type { Logger } from 'pino';
