import type { IncomingHttpHeaders } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Actor } from '../auth/actor.ts';

/** Settings the domain needs at request time (a subset of the server's config). */
export interface DomainSettings {
  publicUrl: string;
  pageSizeMax: number;
  operatorToken: string | undefined;
}

export interface Context {
  em: EntityManager;
  requestId: string;
  headers: IncomingHttpHeaders;
  settings: DomainSettings;
  log: Logger;
  /** Resolved by the partner procedure from the bearer credential, or preset by an in-process caller. */
  actor?: Actor;
}
