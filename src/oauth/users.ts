import type { EntityManager } from '@mikro-orm/postgresql';
import { rows, sql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { hashPassword, verifyPassword } from './passwords.ts';

/** A dashboard user of a store: who signs in on the consent page. */
export async function createUser(
  em: EntityManager,
  input: { storeId: number; email: string; password: string },
) {
  const [store] = await rows<{ id: number }>(em, sql`SELECT id FROM stores WHERE id = ${input.storeId}`);
  if (!store) throw notFound(`No store with id ${input.storeId}`, 'STORE_NOT_FOUND');
  const email = input.email.trim().toLowerCase();
  const hash = await hashPassword(input.password);
  const [user] = await rows<{ id: number }>(
    em,
    sql`INSERT INTO dashboard_users (store_id, email, password_hash) VALUES (${input.storeId}, ${email}, ${hash})
      ON CONFLICT (email) DO NOTHING RETURNING id`,
  );
  if (!user) throw new AppError('conflict', 'USER_EXISTS', `A user with the email ${email} exists`);
  return { id: user.id, store_id: input.storeId, email };
}

/** The user, or undefined for a wrong email or password alike (same work either way). */
export async function signIn(em: EntityManager, email: string, password: string) {
  const [user] = await rows<{ id: number; store_id: number; password_hash: string }>(
    em,
    sql`SELECT id, store_id, password_hash FROM dashboard_users WHERE email = ${email.trim().toLowerCase()}`,
  );
  const ok = await verifyPassword(password, user?.password_hash);
  return ok && user ? { id: user.id, storeId: user.store_id } : undefined;
}
