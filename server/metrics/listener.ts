import { createServer, type Server } from 'node:http';
import { registry } from '../../src/metrics/registry.ts';
import type { Logger } from '../logger.ts';

export interface MetricsListener {
  /** http://<host>:<port> */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * The metrics listener: `GET /metrics` (Prometheus' text format) and nothing else, on its own port
 * (METRICS_PORT, METRICS_HOST), never the partner port, so no partner route, load balancer or CORS
 * rule ever reaches it (docs/decisions.md, "Metrics endpoint").
 */
export async function startMetricsListener(
  port: number,
  host: string,
  log: Logger,
): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found: this port serves /metrics only\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('Use GET\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' }).end(text);
      },
      (err: unknown) => {
        log.error({ err }, 'metrics scrape failed');
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('scrape failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown === '0.0.0.0' ? '127.0.0.1' : shown}:${bound}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
