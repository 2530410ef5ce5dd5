import type {
  ListEventsQuery,
  ListEventsResponse,
  ListInventoryResponse,
  WebhookPayloads,
} from './generated/openapi-types.ts';

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

/**
 * An event as the event log (GET /api/v1/events) answers it and as its webhook deliveries carry it: one
 * of the contract's webhook payloads, told apart by `event` (`if (e.event === 'order.shipped') e.data.order`).
 */
export type StocklessEvent = WebhookPayloads[keyof WebhookPayloads];

/** One page of the event log: `events`, `next_cursor` (store it) and `has_more`. */
export type EventsPage = Omit<ListEventsResponse, 'events'> & { events: StocklessEvent[] };

export interface EventStreamOptions {
  /** A `next_cursor` stored from an earlier walk; absent = the start (`asc`) or the newest (`desc`). */
  cursor?: string;
  /** Event names and `<group>.*` prefixes (`['order.*', 'invoice.issued']`); absent = every kind readable. */
  type?: string | readonly string[];
  created_gte?: string;
  created_lt?: string;
  /** Events per request (1–100, default 20). */
  limit?: number;
  /** `asc` (oldest first, the default here: a walk that can resume) or `desc` (newest first). */
  order?: ListEventsQuery['order'];
  /**
   * Keep following the log once caught up (`asc` only): each request then waits up to this many
   * seconds (`true`: 30) for the next event, and the walk never ends; stop it with `break` or `signal`.
   */
  follow?: boolean | number;
  signal?: AbortSignal;
}

/**
 * The event log as an async iterator of events, following `next_cursor`. `cursor` holds the position
 * after the last page read to its end: store it once you have handled that page's events, and pass it
 * back later to resume (a walk stopped mid-page resumes at that page, so an event may come twice: key
 * your processing on `id` or `event_key`, as for webhooks).
 *
 * ```ts
 * const events = client.events.iterate({ cursor: await load(), follow: true });
 * for await (const event of events) {
 *   await handle(event);
 *   await save(events.cursor);
 * }
 * ```
 */
export class EventStream implements AsyncIterable<StocklessEvent> {
  /** The cursor after the last page read to its end (the start cursor before that). */
  cursor: string | undefined;
  readonly #fetchPage: (cursor: string | undefined) => Promise<EventsPage>;
  readonly #follow: boolean;

  constructor(
    fetchPage: (cursor: string | undefined) => Promise<EventsPage>,
    cursor?: string,
    follow = false,
  ) {
    this.#fetchPage = fetchPage;
    this.cursor = cursor;
    this.#follow = follow;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<StocklessEvent, void, undefined> {
    for (;;) {
      const page = await this.#fetchPage(this.cursor);
      yield* page.events;
      this.cursor = page.next_cursor;
      // Caught up: the walk ends, or, following, the next request waits for what comes next.
      if (!page.has_more && !this.#follow) return;
    }
  }
}
