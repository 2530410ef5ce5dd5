import type { ReplicaSet } from './replica-set.ts';

/** One replica as /metrics and /health/ready show it: never its credentials or database name. */
export interface ReplicaSnapshot {
  host: string;
  port: number;
  up: boolean;
  /** How far behind the primary its data is at most, in ms; null when never seen or past every sample. */
  replayLagMs: number | null;
  /** pg_last_wal_replay_lsn() at the last probe, or null. */
  replayLsn: string | null;
  /** Whether it is within REPLICA_MAX_LAG now: the reads it may serve. */
  serving: boolean;
  /** Why it is down, when it is. */
  reason: string | null;
}

/** The read replicas of this API process (none configured: an empty list). Read-only and cheap. */
export function replicaSnapshot(replicas: ReplicaSet | undefined, now = Date.now()): ReplicaSnapshot[] {
  if (!replicas) return [];
  return replicas.replicas.map((r) => {
    const lag = replicas.lagMs(r, now);
    const finite = Number.isFinite(lag);
    return {
      host: r.host,
      port: r.port,
      up: r.up,
      replayLagMs: finite ? Math.round(lag) : null,
      replayLsn: r.replay?.text ?? null,
      serving: r.up && finite && lag <= replicas.maxLagMs,
      reason: r.up ? null : (r.reason ?? null),
    };
  });
}
