import { Gauge } from 'prom-client';
import { registry } from '../../src/metrics/registry.ts';
import type { ReadinessCheck } from '../health-probes.ts';
import type { ReplicaSet } from './replica-set.ts';
import { replicaSnapshot } from './snapshot.ts';

/**
 * Read replicas on /health/ready and /metrics. Stated, not critical: a replica past its bound or down
 * is skipped and the primary answers, so it never makes a process unready; an operator still sees it.
 */
export function replicaReadiness(replicas: ReplicaSet): ReadinessCheck {
  return {
    name: 'replicas',
    critical: false,
    run: async () => {
      const all = replicaSnapshot(replicas);
      const detail = all
        .map((r) =>
          r.serving
            ? `${r.host}:${r.port} serving, lag ${r.replayLagMs} ms`
            : `${r.host}:${r.port} skipped (${r.up ? `lag ${r.replayLagMs ?? 'unknown'} ms` : (r.reason ?? 'down')})`,
        )
        .join('; ');
      return { ok: all.every((r) => r.serving), detail };
    },
  };
}

let observed: ReplicaSet | undefined;

/** Replay lag and serving state per replica (labelled host:port, a bounded set an operator configured). */
new Gauge({
  name: 'stockless_replica_lag_seconds',
  help:
    'How far behind the primary each read replica is, as this API process last measured it; +Inf when ' +
    'older than every sample kept or never seen (alert on it as on any lag past the bound).',
  labelNames: ['replica'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const r of replicaSnapshot(observed)) {
      this.set(
        { replica: `${r.host}:${r.port}` },
        r.replayLagMs === null ? Number.POSITIVE_INFINITY : r.replayLagMs / 1000,
      );
    }
  },
});

new Gauge({
  name: 'stockless_replica_serving',
  help: 'Whether each read replica is up and within REPLICA_MAX_LAG (1), or skipped for the primary (0).',
  labelNames: ['replica'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const r of replicaSnapshot(observed))
      this.set({ replica: `${r.host}:${r.port}` }, r.serving ? 1 : 0);
  },
});

/** Reports this process's replicas on /metrics (none set: the gauges have no series). */
export function observeReplicas(replicas: ReplicaSet | undefined): void {
  observed = replicas;
}
