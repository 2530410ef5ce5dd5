import { type Actor, type AppScope, actorHasScope } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
import { AppError } from '../errors.ts';
import { EXPORT_TYPES, type ExportType } from './schemas.ts';

/** The app scope that reads each kind of export: the one its list endpoint asks. */
export const EXPORT_SCOPE: Record<ExportType, AppScope> = {
  catalogue: 'read_products',
  listings: 'read_products',
  orders: 'read_orders',
};

/** An app (or MCP) token may create or read an export only with its type's read scope: 403 otherwise. */
export function authorizeType(actor: Actor, type: ExportType): void {
  authorize(actor, { write: false, appScope: EXPORT_SCOPE[type] });
}

/** The types this credential may read: every one for API keys, by scope for tokens. */
export function readableTypes(actor: Actor): ExportType[] {
  if (actor.kind === 'api_key') return [...EXPORT_TYPES];
  return EXPORT_TYPES.filter((t) => actorHasScope(actor, EXPORT_SCOPE[t]));
}

/**
 * An export holds what its creator could read: an orders export made with buyer details (by an API
 * key, or an app with `read_customers`) is readable only by a credential that may read them too, as
 * `GET /orders` would show them.
 */
export function mayReadRow(actor: Actor, row: { can_read_customers: boolean }): boolean {
  return !row.can_read_customers || actor.canReadCustomers;
}

/** 403 for an export whose lines hold buyer details this credential may not read. */
export function authorizeRow(actor: Actor, row: { type: ExportType; can_read_customers: boolean }): void {
  authorizeType(actor, row.type);
  if (!mayReadRow(actor, row)) {
    throw new AppError(
      'forbidden',
      'INSUFFICIENT_SCOPE',
      'This export holds buyer details: reading it needs the app scope read_customers',
      { extra: { required_scope: 'read_customers' } },
    );
  }
}
