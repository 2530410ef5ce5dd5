/**
 * A strict reader of Prometheus' text exposition format (version 0.0.4), for tests: every line must
 * be a `# HELP`, a `# TYPE` or a sample of a family declared before it, or the parse throws.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** Family name → its declared type (counter, gauge, histogram, summary, untyped). */
  types: Map<string, string>;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: \\d+)?$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;
const SUFFIXES = ['_bucket', '_sum', '_count', '_total', '_created'];

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text);
    if (!m) throw new Error(`bad labels in: ${line}`);
    labels[m[1] as string] = (m[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

function parseValue(text: string, line: string): number {
  // As Prometheus reads it (Go's ParseFloat): the special values in any case (prom-client prints `Nan`).
  if (/^\+?inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`bad value in: ${line}`);
  return value;
}

/** The family a sample belongs to: its own name, or with a histogram's or counter's suffix off. */
export function familyOf(name: string, types: ReadonlyMap<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const suffix of SUFFIXES) {
    if (name.endsWith(suffix) && types.has(name.slice(0, -suffix.length)))
      return name.slice(0, -suffix.length);
  }
  return undefined;
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('# HELP ')) continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1] as string, type[2] as string);
      continue;
    }
    if (line.startsWith('#')) throw new Error(`unknown comment line: ${line}`);
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const name = m[1] as string;
    if (!familyOf(name, types)) throw new Error(`sample of an undeclared family: ${line}`);
    samples.push({
      name,
      labels: m[2] ? parseLabels(m[2], line) : {},
      value: parseValue(m[3] as string, line),
    });
  }
  return { types, samples };
}

/** The value of the one sample with this name whose labels include `labels` (0 when there is none). */
export function sampleValue(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = e.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}

/** How many series a family's samples (by sample name) have. */
export function seriesCount(e: Exposition, name: string): number {
  return e.samples.filter((s) => s.name === name).length;
}

/** GET <url>/metrics and parse it, checking the content type. */
export async function scrape(baseUrl: string): Promise<Exposition> {
  const res = await fetch(`${baseUrl}/metrics`);
  if (res.status !== 200) throw new Error(`scrape of ${baseUrl} answered ${res.status}`);
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/plain; version=0.0.4')) throw new Error(`content type ${type}`);
  return parseExposition(await res.text());
}
