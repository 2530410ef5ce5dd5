import { type DestinationStream, pino } from 'pino';
import { PinoPretty } from 'pino-pretty';

/** `json`: one JSON object a line (production, log shippers); `pretty`: coloured lines for a person. */
export type LogFormat = 'json' | 'pretty';

/**
 * The process's logger. `pretty` formats in-process (no transport thread), colourised when the
 * output is a colour terminal; it is for development, where a few lines a second cost nothing.
 * `destination` (stdout when absent) lets a test read what would be printed.
 */
export function createLogger(level: string, format: LogFormat = 'json', destination?: DestinationStream) {
  const options = {
    level,
    base: { service: 'stockless' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', '*.authorization'], censor: '[redacted]' },
  };
  if (format === 'pretty') {
    const pretty = PinoPretty({
      destination: destination ?? 1,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service',
      singleLine: true,
      // Written as it is logged, so the last lines before an exit (a failed start) are not lost.
      sync: true,
    });
    return pino(options, pretty);
  }
  return destination ? pino(options, destination) : pino(options);
}
export type { Logger } from 'pino';
