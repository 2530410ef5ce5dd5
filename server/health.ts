import type { Orm } from './orm.ts';

/** Liveness with a real dependency check: the database must answer within a second. */
export async function checkHealth(orm: Orm): Promise<{ status: number; body: Record<string, string> }> {
  try {
    await Promise.race([
      orm.em.fork().execute('SELECT 1'),
      new Promise((_, reject) => setTimeout(() => reject(new Error('database timeout')), 1000).unref()),
    ]);
    return { status: 200, body: { status: 'ok', database: 'ok' } };
  } catch {
    return { status: 503, body: { status: 'unavailable', database: 'unreachable' } };
  }
}
