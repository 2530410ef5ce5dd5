import type { Actor } from '../auth/actor.ts';

/**
 * One finished request as the edge hands it to the request log: only what the edge already holds
 * when the response is sent (no body, no lookup). The operation, the kept query and the credential's
 * prefix are worked out when the batch is written, off the request path.
 */
export interface RequestRecord {
  storeId: number;
  livemode: boolean;
  requestId: string;
  method: string;
  path: string;
  /** The query string as sent, without `?` (redacted when written: `keptQuery`). */
  search: string;
  status: number;
  errorType: string | null;
  errorCode: string | null;
  durationMs: number;
  credentialType: Actor['kind'];
  credentialId: number;
  appId: number | null;
  idempotencyKey: string | null;
  replayed: boolean;
  userAgent: string | null;
  /** When the request arrived (epoch ms). */
  createdAt: number;
}

/** What the contract says of a request's operation: its operationId and declared query parameters. */
export interface OperationInfo {
  operation: string;
  query: readonly string[];
}

/** Finds a request's operation by method and path (the edge's route table); undefined when none. */
export type DescribeOperation = (method: string, path: string) => OperationInfo | undefined;
