import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../auth/actor.ts';
import type { AppError, ShapedError } from '../errors.ts';
import type { ChargedLimits } from '../ratelimit/limiter.ts';

/**
 * One HTTP request as its edge and its procedure share it: created once where the request arrives
 * (server/request-state.ts), passed down (the tRPC context carries it as `request`), and read by
 * the edge when it answers. In-process callers (tests, dashboards, the worker) have none.
 */
export interface RequestState {
  readonly id: string;
  /** The deployment's public URL, which error bodies' `doc_url` links under. */
  readonly publicUrl: string;
  /** The method as sent: HEAD is routed as GET, and a 405 names what was sent. */
  readonly sentMethod: string | undefined;
  /** The request target, once it read as one (`undefined`: refused before routing). */
  target?: { path: string; search: string };
  /**
   * What the idempotency layer (server/idempotency.ts) settled before a keyed REST write's procedure
   * runs: the credential of the request's own header (the procedure still authorises it), and the
   * transaction the write runs in.
   */
  keyed?: { credential?: Actor; em?: EntityManager };
  /**
   * Who called, once the credential resolved (before the scope check, so a refusal is the store's
   * request too): the request log records the store.
   */
  actor?: Actor;
  /**
   * Input the edge refused (an unknown query parameter, a body that is no JSON object). The order
   * rule: it is answered only after the credential, the scope and the limits have had their say,
   * as a zod failure of the same input would be, so an anonymous caller learns nothing about the
   * input (401 before 400) and a refused input still counts against the limits.
   */
  refusedInput?: AppError;
  /**
   * The limits a keyed REST write was counted against before its key was looked at, outside its
   * transaction (a replay counts as the request would): its procedure charges no other.
   */
  precharged?: ChargedLimits;
  /**
   * Run by the idempotency layer once a keyed write's transaction has committed, before its answer
   * is sent, on an EntityManager apart from it (the write mark of read-your-writes, replica-routing.ts).
   */
  afterCommit?: (em: EntityManager) => Promise<void>;
  /** Headers the answer carries whatever it is (rate-limit headers), success or error. */
  readonly headers: Record<string, string>;
  /** The success status when an operation varies it (200/201/202); the procedure's meta otherwise. */
  status?: number;
  /** The request's error as the contract answers it, shaped once and read by every writer. */
  error?: ShapedError;
}

export function newRequestState(id: string, sentMethod: string | undefined, publicUrl: string): RequestState {
  return { id, sentMethod, publicUrl, headers: {} };
}
