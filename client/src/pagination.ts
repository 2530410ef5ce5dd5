import type { ListInventoryResponse } from './generated/openapi-types.ts';

/** The contract's pagination envelope (page-numbered lists). */
export interface Pagination {
  page: number;
  limit: number;
  total_count: number;
  total_pages: number;
}

/**
 * Walks a page-numbered list from `startPage` to its last page, yielding items. Pages are read one
 * at a time as the loop asks for them; breaking out of the loop stops the reads.
 */
export async function* paginate<T>(
  fetchPage: (page: number) => Promise<{ items: T[]; pagination: Pagination }>,
  startPage = 1,
): AsyncGenerator<T, void, undefined> {
  for (let page = startPage; ; page++) {
    const { items, pagination } = await fetchPage(page);
    yield* items;
    if (items.length === 0 || page >= pagination.total_pages) return;
  }
}

/** One page of the inventory feed: `items`, `next_cursor` (store it) and `has_more`. */
export type InventoryPage = ListInventoryResponse;

export interface InventorySyncOptions {
  /** A `next_cursor` stored from an earlier sync; absent = from the beginning. */
  cursor?: string;
  /** Items per page (at most the platform page size; default the page size). */
  limit?: number;
  signal?: AbortSignal;
}

/**
 * The inventory change feed as an async iterator of pages. It follows `next_cursor` until the feed
 * has no more (`has_more: false`), and `cursor` always holds the position after the last page
 * yielded: store it once you have applied the page, and pass it back later to resume from there.
 *
 * ```ts
 * const sync = client.inventory.sync({ cursor: await load() });
 * for await (const page of sync) {
 *   await apply(page.items);
 *   await save(sync.cursor); // === page.next_cursor
 * }
 * ```
 */
export class InventorySync implements AsyncIterable<InventoryPage> {
  /** The cursor after the last page yielded (the start cursor before the first). */
  cursor: string | undefined;
  readonly #fetchPage: (cursor: string | undefined) => Promise<InventoryPage>;

  constructor(fetchPage: (cursor: string | undefined) => Promise<InventoryPage>, cursor?: string) {
    this.#fetchPage = fetchPage;
    this.cursor = cursor;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<InventoryPage, void, undefined> {
    for (;;) {
      const page = await this.#fetchPage(this.cursor);
      const moved = page.next_cursor !== this.cursor;
      this.cursor = page.next_cursor;
      yield page;
      // An empty page that did not move the cursor would be read again forever: stop there too.
      if (!page.has_more || (!moved && page.items.length === 0)) return;
    }
  }
}
