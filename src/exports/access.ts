import { type Actor, type AppScope, actorHasScope } from '../auth/actor.ts';
import { authorize } from '../auth/authorize.ts';
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
