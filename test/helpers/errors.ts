import { TRPCError } from '@trpc/server';
import { expect } from 'vitest';
import { AppError } from '../../src/errors.ts';

/**
 * Awaits a call that must fail and returns the domain error it failed with: thrown by a service
 * directly, or by a procedure through a caller (tRPC wraps it as the cause of a TRPCError).
 */
export async function failure(call: Promise<unknown>): Promise<AppError> {
  const outcome = await call.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected the call to fail, got ${JSON.stringify(outcome.value)}`);
  const error = outcome.error instanceof TRPCError ? outcome.error.cause : outcome.error;
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}
