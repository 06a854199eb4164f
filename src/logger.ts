import pino from 'pino';

export type Logger = pino.Logger;

/** JSON logs; credentials in headers and known secret fields are redacted. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'kgrag' },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-api-key"]',
          'req.headers.cookie',
          '*.api_key',
          '*.apiKey',
          '*.password',
          'config.catalog.providers[*].api_key',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
