import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';

/**
 * The bench database is kept between runs (a 2M build takes minutes) but only while it is what a
 * build from this checkout would make. Its fingerprint covers the migrations' checksums and the
 * code that loads it (the seed, and the bench's own loaders in bench/build). It is kept as the database's comment, written once a build completes. A
 * database migrated forward carries the bloat of every table a later migration rewrote, and its
 * figures were not a fresh build's.
 */
const BUILD_SOURCES = ['src/migrations/checksums.json', 'src/demo', 'bench/build'];

export async function buildFingerprint(root = process.cwd()): Promise<string> {
  const hash = createHash('sha256');
  for (const source of BUILD_SOURCES) {
    const path = join(root, source);
    const files = source.includes('.')
      ? [path]
      : (await readdir(path))
          .filter((f) => f.endsWith('.ts'))
          .sort()
          .map((f) => join(path, f));
    for (const file of files) hash.update(file.slice(root.length)).update(await readFile(file));
  }
  return hash.digest('hex').slice(0, 16);
}

const note = (fingerprint: string) => `stockless bench build ${fingerprint}`;

function adminOf(url: string): { admin: string; database: string } {
  const u = new URL(url);
  const database = decodeURIComponent(u.pathname.slice(1));
  u.pathname = '/postgres';
  return { admin: u.toString(), database };
}

async function withAdmin<T>(url: string, fn: (c: pg.Client, database: string) => Promise<T>): Promise<T> {
  const { admin, database } = adminOf(url);
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    return await fn(client, database);
  } finally {
    await client.end();
  }
}

/**
 * Drops and recreates the bench database unless its comment names this checkout's build. Returns
 * whether it was rebuilt.
 */
export async function ensureCurrentBuild(url: string, fingerprint: string): Promise<boolean> {
  return withAdmin(url, async (c, database) => {
    const { rows } = await c.query<{ note: string | null }>(
      `SELECT shobj_description(oid, 'pg_database') AS note FROM pg_database WHERE datname = $1`,
      [database],
    );
    if (rows[0]?.note === note(fingerprint)) return false;
    const quoted = pg.escapeIdentifier(database);
    await c.query(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${quoted}`);
    return true;
  });
}

/** Records that the database is a complete build of this checkout. */
export async function markBuilt(url: string, fingerprint: string): Promise<void> {
  await withAdmin(url, (c, database) =>
    c.query(`COMMENT ON DATABASE ${pg.escapeIdentifier(database)} IS ${pg.escapeLiteral(note(fingerprint))}`),
  );
}
