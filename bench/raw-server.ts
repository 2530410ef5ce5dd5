import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import pg from 'pg';
import { rawWholesaleOrder } from './raw-wholesale.ts';

/**
 * The raw baseline: node:http + pg, no framework, no validation, no ORM. For each benchmarked URL it
 * replays the statements the API ran for that URL (recorded by bench/capture.ts), in the same groups
 * (statements the API ran concurrently run concurrently here too), and writes the rows as JSON.
 */
interface Step {
  sql: string;
  parameters: unknown[];
  /** Planner settings the API ran the statement under (src/db/sql.ts scanRows): replayed the same. */
  settings?: Record<string, string>;
}
type Plan = Record<string, Step[][]>;

const plan = JSON.parse(readFileSync(process.env.BENCH_PLAN_FILE ?? '', 'utf8')) as Plan;
// The API's statement budget (API_STATEMENT_TIMEOUT) holds here too: a statement the API would stop
// at 2 s is a failure on both sides, not a raw figure of minutes that holds the bench up. So does its
// serial execution (server/orm.ts StatementBudget.serial): replayed with parallel workers, the same
// statements cost the machine up to three times the CPU and the raw side was the slower one.
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DB_POOL_SIZE ?? 10),
  statement_timeout: Number(process.env.API_STATEMENT_TIMEOUT ?? 2000),
  options: '-c max_parallel_workers_per_gather=0',
  // Kept like the API's (mikro-orm.config.ts): a new backend faults in each shared buffer it touches
  // the first time, and a pool that closed its connections between two runs measured that instead.
  idleTimeoutMillis: 300_000,
});

/** A step on its own connection when it ran under settings, which last only for it. */
async function replay(step: Step) {
  if (!step.settings) return pool.query(step.sql, step.parameters);
  const client = await pool.connect();
  try {
    for (const [name, value] of Object.entries(step.settings))
      await client.query(`SELECT set_config($1, $2, false)`, [name, value]);
    return await client.query(step.sql, step.parameters);
  } finally {
    for (const name of Object.keys(step.settings))
      await client.query(`RESET ${pg.escapeIdentifier(name)}`).catch(() => undefined);
    client.release();
  }
}

const server = createServer(async (req, res) => {
  if (req.method === 'POST' && req.url === '/api/v1/orders') return rawWholesaleOrder(pool, req, res);
  const groups = plan[req.url ?? ''];
  if (!groups) {
    res.statusCode = 404;
    return res.end('{}');
  }
  try {
    const results: unknown[][] = [];
    for (const group of groups) {
      const out = await Promise.all(group.map(replay));
      for (const r of out) results.push(r.rows);
    }
    // Every result set, as the API serialises every row it reads.
    const body = JSON.stringify({ results });
    res.setHeader('content-type', 'application/json');
    res.end(body);
  } catch (err) {
    res.statusCode = 500;
    res.end(String(err));
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
