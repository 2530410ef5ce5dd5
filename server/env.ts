import { existsSync } from 'node:fs';
import { config as loadDotenv } from 'dotenv';

/** Loads `.env` (if present) without overriding variables already set in the environment. */
export function loadEnvFile(path = '.env'): void {
  if (existsSync(path)) loadDotenv({ path, quiet: true });
}
