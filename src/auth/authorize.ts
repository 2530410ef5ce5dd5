import { AppError } from '../trpc/errors.ts';
import { type Actor, type AppScopeRule, appHasScope } from './actor.ts';

/**
 * The two rules every partner operation applies, whatever the transport: a `read` credential may
 * only read (GET/HEAD), and an app token needs the operation's app scope (`null`: apps refused).
 */
export function authorize(actor: Actor, op: { write: boolean; appScope: AppScopeRule }): void {
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
  if (actor.kind !== 'app') return;
  if (op.appScope === null) {
    throw new AppError('forbidden', 'APP_TOKEN_NOT_ALLOWED', 'App tokens cannot use this operation');
  }
  if (op.appScope !== '*' && !appHasScope(actor.appScopes, op.appScope)) {
    throw new AppError(
      'forbidden',
      'INSUFFICIENT_SCOPE',
      `This operation needs the app scope ${op.appScope}`,
      {
        extra: { required_scope: op.appScope },
      },
    );
  }
}
