import { AppError } from '../errors.ts';
import {
  type Actor,
  type AppScopeRule,
  actorHasScope,
  isAppScope,
  type McpOnlyScope,
  type OAuthScope,
} from './actor.ts';

export interface OperationRule {
  write: boolean;
  appScope: AppScopeRule;
  /** Where apps are refused (`appScope: null`), the MCP-only scope that still lets an MCP token in. */
  mcpScope?: McpOnlyScope;
}

/**
 * The scope an OAuth token needs for an operation: `*` any, `null` none would do. An MCP token follows
 * the app rule, except where apps are refused and the operation names an MCP-only scope.
 */
export function requiredScope(kind: Actor['kind'], op: OperationRule): OAuthScope | '*' | null {
  if (kind === 'mcp' && op.appScope === null) return op.mcpScope ?? null;
  return op.appScope;
}

/**
 * The two rules every partner operation applies, whatever the transport: a `read` credential may
 * only read (GET/HEAD), and an OAuth token needs the operation's scope (`null`: refused).
 */
export function authorize(actor: Actor, op: OperationRule): void {
  if (op.write && actor.scope !== 'read_write') {
    throw new AppError(
      'forbidden',
      'INSUFFICIENT_SCOPE',
      'This credential is read-only; this operation needs read_write',
      {
        extra: { required_scope: 'read_write' },
      },
    );
  }
  if (actor.kind === 'api_key') return;
  const needed = requiredScope(actor.kind, op);
  if (needed === null) {
    throw new AppError('forbidden', 'APP_TOKEN_NOT_ALLOWED', 'App tokens cannot use this operation');
  }
  if (needed !== '*' && !actorHasScope(actor, needed)) {
    throw new AppError(
      'forbidden',
      'INSUFFICIENT_SCOPE',
      `This operation needs the ${isAppScope(needed) ? 'app scope' : 'scope'} ${needed}`,
      {
        extra: { required_scope: needed },
      },
    );
  }
}
