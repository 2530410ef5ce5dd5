import { collectDefaultMetrics } from 'prom-client';
import { registry } from '../../src/metrics/registry.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Orm } from '../orm.ts';
import { enableDbGauges } from './db-gauges.ts';
import { type MetricsListener, startMetricsListener } from './listener.ts';
import { forgetPool, instrumentPool } from './pool-metrics.ts';

let defaults = false;

/**
 * This process's metrics, when METRICS_PORT is set: its pools reported, the database gauges when it
 * works (a worker, or `npm start`'s both-in-one, whose one listener answers both sides), and the
 * listener. None when unset: the partner port never serves them either way.
 */
export async function startMetrics(
  config: Config,
  log: Logger,
  p: { orm: Orm; apiOrm?: Orm; work: boolean },
): Promise<MetricsListener | undefined> {
  if (config.METRICS_PORT === undefined) return undefined;
  if (!defaults) collectDefaultMetrics({ register: registry });
  defaults = true;
  if (p.apiOrm) await instrumentPool(p.apiOrm, 'api');
  if (p.work) {
    await instrumentPool(p.orm, 'worker');
    const pool = (await p.orm.driver.getConnection().getNativeClient()) as Parameters<
      typeof enableDbGauges
    >[0];
    enableDbGauges(pool, log);
  }
  const listener = await startMetricsListener(config.METRICS_PORT, config.METRICS_HOST, log);
  log.info({ url: `${listener.url}/metrics` }, 'metrics listening');
  return {
    ...listener,
    close: async () => {
      forgetPool('api');
      forgetPool('worker');
      await listener.close();
    },
  };
}
