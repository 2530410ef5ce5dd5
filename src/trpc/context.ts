import type { IncomingHttpHeaders } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Actor } from '../auth/actor.ts';
import type { ReplicaReads } from '../db/replica-reads.ts';
import type { ExportSettings, Merchant, WebhookSettings } from '../settings.ts';
import type { RequestState } from './request-state.ts';

/** Settings the domain needs at request time (a subset of the server's config). */
export interface DomainSettings {
  publicUrl: string;
  pageSizeMax: number;
  operatorToken: string | undefined;
  merchant: Merchant;
  /** Requests per minute of the named limits. */
  rateLimits: { inventory: number; external_orders: number; app: number };
  webhooks: WebhookSettings;
  /** Bulk exports; the defaults (DEFAULT_EXPORT_SETTINGS) when absent. */
  exports?: ExportSettings;
}

export interface Context {
  em: EntityManager;
  requestId: string;
  headers: IncomingHttpHeaders;
  settings: DomainSettings;
  log: Logger;
  /** Preset by trusted in-process callers, or by the REST transport from this request's own bearer credential. */
  actor?: Actor;
  /** The HTTP request this call answers, shared with its edge; absent for in-process callers. */
  request?: RequestState;
  /** The process's read replicas (server/replicas/); none: every statement goes to the primary. */
  replicas?: ReplicaReads;
}

/**
 * What every use case takes first, `(ctx, input)`: the request's EntityManager (a transaction's when
 * one is open), the settings and a logger. An operator's use cases take this; the procedure's own
 * context fits it, and so does a test's or a job's.
 */
export type UseCaseContext = Pick<Context, 'em' | 'settings' | 'log'>;

/** A partner's use case: also who acts, and so for which store (`actor.storeId`). */
export type PartnerContext = UseCaseContext & { actor: Actor };
