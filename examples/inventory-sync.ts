/**
 * Keeps a local copy of the store's sellable stock in step with Stockless's inventory feed.
 *
 *   npm run example -- inventory-sync            # catch up once, then exit
 *   npm run example -- inventory-sync --follow   # then keep polling every 10 s (Ctrl-C to stop)
 *
 * The feed's cursor is stored in a file after every page (INVENTORY_CURSOR_FILE, default
 * examples/.inventory-cursor), so a stopped or crashed run resumes where it left off and a later
 * run receives only what changed since. Delete the file to start from the beginning.
 */
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { StocklessError } from '@stockless/sdk';
import { clientFromEnv, loadCursor, saveCursor } from './shared.ts';

const stockless = clientFromEnv();
const cursorFile = resolve(
  process.env.INVENTORY_CURSOR_FILE ?? resolve(import.meta.dirname, '.inventory-cursor'),
);
const follow = process.argv.includes('--follow');

async function catchUp(): Promise<number> {
  const sync = stockless.inventory.sync({ cursor: await loadCursor(cursorFile), limit: 200 });
  let changes = 0;
  for await (const page of sync) {
    for (const item of page.items) {
      // Apply the change to your own system here (a marketplace listing, a spreadsheet, …).
      const state = item.listed ? `${item.stock_quantity} in stock` : 'no longer listed';
      console.log(`${item.sku.padEnd(16)} ${state.padEnd(18)} ${item.name}`);
    }
    changes += page.items.length;
    // Only after the page is applied: a crash before this line re-reads the page, never skips it.
    if (sync.cursor) await saveCursor(cursorFile, sync.cursor);
  }
  return changes;
}

try {
  do {
    const changes = await catchUp();
    console.log(`${changes} change(s); cursor saved to ${cursorFile}`);
    if (follow) await sleep(10_000);
  } while (follow);
} catch (error) {
  if (error instanceof StocklessError && error.code === 'INVALID_CURSOR') {
    console.error(
      `The stored cursor was refused (another store's, or edited): delete ${cursorFile} to resync.`,
    );
  } else if (error instanceof StocklessError) {
    console.error(
      `${error.status} ${error.category}/${error.code}: ${error.message} (request ${error.requestId})`,
    );
  } else {
    throw error;
  }
  process.exitCode = 1;
}
