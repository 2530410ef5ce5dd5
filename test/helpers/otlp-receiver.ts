import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One exported span, flattened from OTLP/JSON (ids are hex there). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  status: { code?: number };
  service: string;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: ReceivedSpan[];
  /** How many export requests came in, and their content types. */
  requests: string[];
  /** Waits until `pick` is satisfied by the spans received so far, or throws after `timeoutMs`. */
  waitFor<T>(pick: (spans: ReceivedSpan[]) => T | undefined, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: AnyValue }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number };
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: AnyValue }[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

function plainValue(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  return v.boolValue ?? '';
}

function attributesOf(list: { key: string; value: AnyValue }[] = []) {
  return Object.fromEntries(list.map((a) => [a.key, plainValue(a.value)]));
}

/** The spans of one OTLP/HTTP JSON export request (ExportTraceServiceRequest). */
export function spansOf(request: ExportRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        kind: s.kind,
        attributes: attributesOf(s.attributes),
        links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
        status: s.status ?? {},
        service,
      })),
    );
  });
}

/**
 * An OTLP/HTTP collector in the test's process: `POST /v1/traces` with the JSON encoding, which is what
 * @opentelemetry/exporter-trace-otlp-http sends (gzip when OTEL_EXPORTER_OTLP_COMPRESSION says so).
 * Anything else is refused with 415, so an exporter that switched to protobuf fails the test loudly.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = String(req.headers['content-type'] ?? '');
      requests.push(type);
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !type.startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      spans.push(...spansOf(JSON.parse(body.toString('utf8')) as ExportRequest));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    async waitFor(pick, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = pick(spans);
        if (found !== undefined) return found;
        if (Date.now() > deadline)
          throw new Error(`spans not received in ${timeoutMs} ms:\n${summary(spans)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function summary(spans: ReceivedSpan[]): string {
  return spans
    .slice(-60)
    .map((s) => `${s.traceId.slice(0, 8)} ${s.spanId} <- ${s.parentSpanId || '-'} ${s.kind} ${s.name}`)
    .join('\n');
}
