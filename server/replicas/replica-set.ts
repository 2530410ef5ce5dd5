import type { ReplicaChoice, ReplicaReads } from '../../src/db/replica-reads.ts';
import type { Logger } from '../logger.ts';
import { type Orm, openOrm, type StatementBudget } from '../orm.ts';
import { ProbeClient } from '../probe-client.ts';
import { replicaFailure } from './failures.ts';
import { lsnValue } from './lsn.ts';
import { type PrimarySample, PrimarySamples } from './primary-samples.ts';

/** How long the probe waits for a server's answer (or a connection) before it counts as none. */
const PROBE_TIMEOUT_MS = 1000;

export interface ReplicaSetOptions {
  /** DATABASE_REPLICA_URLS. */
  urls: readonly string[];
  /** The API's primary pool: its WAL position is sampled by the probe. */
  primary: Orm;
  poolSize: number;
  /** The API pool's statement budget: a replica's statements are held to the same one. */
  budget: StatementBudget;
  /** REPLICA_MAX_LAG: a replica further behind than this serves nothing. */
  maxLagMs: number;
  log: Logger;
}

/** One replica as the probe last saw it. */
export interface Replica {
  readonly host: string;
  readonly port: number;
  readonly orm: Orm;
  /** The probe's own connection (never one of `orm`'s). */
  readonly probe: ProbeClient;
  up: boolean;
  /** What put it down (the probe's or a read's failure), for the log and the snapshot. */
  reason?: string;
  /** pg_last_wal_replay_lsn() at the last probe: a lower bound of what it has replayed since. */
  replay?: { text: string; value: bigint };
}

/** How often the probe looks: a quarter of the lag bound, between 50 ms and 1 s. */
export function probeIntervalMs(maxLagMs: number): number {
  return Math.min(1000, Math.max(50, Math.floor(maxLagMs / 4)));
}

/**
 * The API process's read replicas (docs/scaling.md §4): a small pool each, and a probe that reads
 * each one's replay position against samples of the primary's WAL position. A read goes to a replica
 * only when it is up, within the lag bound, and past the caller's last write; otherwise to the
 * primary. Never an error of its own: anything wrong with a replica sends the read to the primary.
 */
export class ReplicaSet implements ReplicaReads {
  readonly replicas: Replica[];
  readonly maxLagMs: number;
  readonly probeMs: number;
  readonly #primary: ProbeClient;
  readonly #samples: PrimarySamples;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;
  #next = 0;
  #closed = false;

  static async open(opts: ReplicaSetOptions): Promise<ReplicaSet> {
    // A replica that is down at start is no reason not to start: its pool connects lazily.
    const replicas = await Promise.all(
      opts.urls.map(async (url) => {
        const { hostname, port } = new URL(url);
        const orm = await openOrm(url, opts.poolSize, opts.budget, { connectionTimeoutMillis: 1000 });
        const probe = new ProbeClient(url, PROBE_TIMEOUT_MS, 'stockless-replica-probe');
        return {
          host: hostname,
          port: Number(port || 5432),
          orm,
          probe,
          up: false,
          reason: 'not probed yet',
        };
      }),
    );
    const set = new ReplicaSet(replicas, opts);
    await set.probe();
    set.#schedule();
    return set;
  }

  private constructor(replicas: Replica[], opts: ReplicaSetOptions) {
    this.replicas = replicas;
    this.maxLagMs = opts.maxLagMs;
    this.probeMs = probeIntervalMs(opts.maxLagMs);
    this.#primary = new ProbeClient(
      String(opts.primary.config.get('clientUrl')),
      PROBE_TIMEOUT_MS,
      'stockless-replica-probe',
    );
    this.#log = opts.log;
    // Kept long enough that a replica found behind every sample is surely past the bound.
    this.#samples = new PrimarySamples(2 * opts.maxLagMs + 4 * this.probeMs);
  }

  choose(after: string | undefined): ReplicaChoice | undefined {
    const now = Date.now();
    const wanted = after === undefined ? undefined : lsnValue(after);
    const fit = this.replicas.filter(
      (r) =>
        r.up &&
        r.replay !== undefined &&
        (wanted === undefined || r.replay.value >= wanted) &&
        this.lagMs(r, now) <= this.maxLagMs,
    );
    if (fit.length === 0) return undefined;
    const replica = fit[this.#next++ % fit.length] as Replica;
    return { em: replica.orm.em.fork(), failed: (err) => this.#failed(replica, err) };
  }

  /**
   * How far behind the primary the replica's data is, at most: the time since the newest primary
   * sample its replay position covers (Infinity when it covers none, or was never seen).
   */
  lagMs(replica: Replica, now = Date.now()): number {
    if (!replica.replay) return Number.POSITIVE_INFINITY;
    const covered = this.#samples.newestAtOrBelow(replica.replay.value);
    return covered ? Math.max(0, now - covered.at) : Number.POSITIVE_INFINITY;
  }

  #failed(replica: Replica, err: unknown): boolean {
    const failure = replicaFailure(err);
    if (!failure) return false;
    if (failure === 'down') this.#down(replica, errorText(err));
    return true;
  }

  #down(replica: Replica, reason: string) {
    if (replica.up)
      this.#log.warn({ replica: `${replica.host}:${replica.port}`, reason }, 'read replica down');
    replica.up = false;
    replica.reason = reason;
  }

  /** One round: the primary's WAL position first (so a replica is compared with a past sample), then every replica. */
  async probe(): Promise<void> {
    const sample = await this.#samplePrimary();
    if (sample) this.#samples.add(sample);
    await Promise.all(this.replicas.map((r) => this.#probeReplica(r)));
  }

  async #samplePrimary(): Promise<PrimarySample | undefined> {
    // Taken before asking: the position read is at least what the primary had at this instant.
    const at = Date.now();
    try {
      const [row] = await this.#primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      return row ? { at, value: lsnValue(row.lsn) } : undefined;
    } catch {
      return undefined; // The primary's own failure is the requests' to report.
    }
  }

  async #probeReplica(replica: Replica): Promise<void> {
    try {
      const [row] = await replica.probe.query<{ lsn: string | null }>(
        'SELECT pg_last_wal_replay_lsn()::text AS lsn',
      );
      // NULL outside recovery: a promoted or misconfigured server is no replica of this primary.
      if (!row?.lsn) return this.#down(replica, 'not a standby (pg_last_wal_replay_lsn() is null)');
      replica.replay = { text: row.lsn, value: lsnValue(row.lsn) };
      if (!replica.up) this.#log.info({ replica: `${replica.host}:${replica.port}` }, 'read replica up');
      replica.up = true;
      replica.reason = undefined;
    } catch (err) {
      this.#down(replica, errorText(err));
    }
  }

  #schedule() {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      void this.probe().finally(() => this.#schedule());
    }, this.probeMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#primary.close();
    await Promise.all(this.replicas.map(async (r) => Promise.all([r.probe.close(), r.orm.close(true)])));
  }
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}
