import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Orm, StatementBudget } from '../orm.ts';
import { ReplicaSet } from './replica-set.ts';

/**
 * The API process's read replicas (DATABASE_REPLICA_URLS), or none; `primary` is the API's pool, and
 * `budget` its statement budget, which a replica's statements are held to as well.
 */
export async function openReplicas(
  config: Config,
  primary: Orm,
  budget: StatementBudget,
  log: Logger,
): Promise<ReplicaSet | undefined> {
  if (config.DATABASE_REPLICA_URLS.length === 0) return undefined;
  const replicas = await ReplicaSet.open({
    urls: config.DATABASE_REPLICA_URLS,
    primary,
    poolSize: config.DB_POOL_SIZE,
    budget,
    maxLagMs: config.REPLICA_MAX_LAG,
    log,
  });
  log.info(
    { replicas: replicas.replicas.map((r) => `${r.host}:${r.port}`), max_lag_ms: replicas.maxLagMs },
    'reading from replicas',
  );
  return replicas;
}
