import {
  type Export,
  type ExportLines,
  type ExportWaitOptions,
  readExportLines,
  waitForExport,
} from './exports.ts';
import type { Operations } from './generated/openapi-types.ts';
import { type OperationId, type RetryOptions, Transport } from './http.ts';
import {
  EventStream,
  type EventStreamOptions,
  type EventsPage,
  InventorySync,
  type InventorySyncOptions,
  paginate,
  type StocklessEvent,
} from './pagination.ts';
import { iterateRequests, type RequestTailOptions, tailRequests } from './request-log.ts';

type Query<K extends OperationId> = Operations[K]['query'];
type Body<K extends OperationId> = Operations[K]['body'];
type Result<K extends OperationId> = Promise<Operations[K]['response']>;
/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /** A write's `Idempotency-Key`, to make it safe across your own retries (default: one per call). */
  idempotencyKey?: string;
}

/** Either credential acts as one store: a vendor API key or an app's OAuth access token. */
export type Credential = { apiKey: string; accessToken?: never } | { accessToken: string; apiKey?: never };

export type StocklessOptions = Credential & {
  /** Where the API is, e.g. `http://localhost:3000` (a trailing `/api/v1` is accepted too). */
  baseUrl: string;
  /** A fetch implementation (default: the global `fetch`, looked up on every call). */
  fetch?: typeof globalThis.fetch;
  /**
   * Retries of network errors, 429, 5xx and writes still running elsewhere, honouring `Retry-After`;
   * writes too, each with its `Idempotency-Key`, unless `writes: false`; `false` = never.
   */
  retry?: RetryOptions | false;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
};

/**
 * The Stockless partner API. One method per contract operation, grouped by area; errors are
 * thrown as `StocklessError`.
 *
 * ```ts
 * const stockless = new Stockless({ baseUrl: 'http://localhost:3000', apiKey: process.env.STOCKLESS_API_KEY });
 * for await (const product of stockless.products.iterate({ in_stock: true })) console.log(product.name);
 * ```
 */
export class Stockless {
  readonly #http: Transport;
  readonly #fetch: typeof globalThis.fetch | undefined;

  constructor(options: StocklessOptions) {
    const token = options.apiKey ?? options.accessToken;
    if (!token || (options.apiKey && options.accessToken)) {
      throw new TypeError('Stockless: give exactly one of apiKey or accessToken');
    }
    if (!options.baseUrl) throw new TypeError('Stockless: baseUrl is required');
    this.#fetch = options.fetch;
    this.#http = new Transport({
      baseUrl: options.baseUrl,
      token,
      fetch: options.fetch,
      retry: options.retry,
      headers: options.headers,
    });
  }

  /** The base URL requests go to. */
  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /** Catalogue: browse, facets, one product. */
  readonly products = {
    list: (query: Query<'listProducts'> = {}, o: CallOptions = {}): Result<'listProducts'> =>
      this.#http.call('listProducts', { query, ...o }),
    /** Every product matching the filters, page after page (`limit` sets the page size). */
    iterate: (query: Query<'listProducts'> = {}, o: CallOptions = {}) =>
      paginate(async (page) => {
        const r = await this.products.list({ ...query, page }, o);
        return { items: r.products, pagination: r.pagination };
      }, query.page),
    facets: (query: Query<'getProductFacets'> = {}, o: CallOptions = {}): Result<'getProductFacets'> =>
      this.#http.call('getProductFacets', { query, ...o }),
    get: (id: number, o: CallOptions = {}): Result<'getProduct'> =>
      this.#http.call('getProduct', { path: { id }, ...o }),
  };

  /** The store the credential acts as. */
  readonly store = {
    me: (o: CallOptions = {}): Result<'getStore'> => this.#http.call('getStore', o),
  };

  /** The store's listings (`/my-products`); ids in paths are catalogue product ids. */
  readonly listings = {
    list: (query: Query<'listMyProducts'> = {}, o: CallOptions = {}): Result<'listMyProducts'> =>
      this.#http.call('listMyProducts', { query, ...o }),
    iterate: (query: Query<'listMyProducts'> = {}, o: CallOptions = {}) =>
      paginate(async (page) => {
        const r = await this.listings.list({ ...query, page }, o);
        return { items: r.products, pagination: r.pagination };
      }, query.page),
    get: (productId: number, o: CallOptions = {}): Result<'getMyProduct'> =>
      this.#http.call('getMyProduct', { path: { productId }, ...o }),
    add: (body: Body<'addMyProduct'>, o: CallOptions = {}): Result<'addMyProduct'> =>
      this.#http.call('addMyProduct', { body, ...o }),
    bulkAdd: (body: Body<'bulkAddMyProducts'>, o: CallOptions = {}): Result<'bulkAddMyProducts'> =>
      this.#http.call('bulkAddMyProducts', { body, ...o }),
    bulkRemove: (body: Body<'bulkRemoveMyProducts'>, o: CallOptions = {}): Result<'bulkRemoveMyProducts'> =>
      this.#http.call('bulkRemoveMyProducts', { body, ...o }),
    remove: (productId: number, o: CallOptions = {}): Result<'removeMyProduct'> =>
      this.#http.call('removeMyProduct', { path: { productId }, ...o }),
    /** Sets the custom retail price; `{ custom_retail_price_cents: null }` restores the suggested one. */
    setPricing: (
      productId: number,
      body: Body<'setMyProductPricing'>,
      o: CallOptions = {},
    ): Result<'setMyProductPricing'> =>
      this.#http.call('setMyProductPricing', { path: { productId }, body, ...o }),
    setPurchaseMode: (
      productId: number,
      body: Body<'setMyProductPurchaseMode'>,
      o: CallOptions = {},
    ): Result<'setMyProductPurchaseMode'> =>
      this.#http.call('setMyProductPurchaseMode', { path: { productId }, body, ...o }),
    setVendorFulfilled: (
      productId: number,
      body: Body<'setMyProductVendorFulfilled'>,
      o: CallOptions = {},
    ): Result<'setMyProductVendorFulfilled'> =>
      this.#http.call('setMyProductVendorFulfilled', { path: { productId }, body, ...o }),
  };

  /** Orders on the store, wholesale orders, tax invoices. */
  readonly orders = {
    list: (query: Query<'listOrders'> = {}, o: CallOptions = {}): Result<'listOrders'> =>
      this.#http.call('listOrders', { query, ...o }),
    iterate: (query: Query<'listOrders'> = {}, o: CallOptions = {}) =>
      paginate(async (page) => {
        const r = await this.orders.list({ ...query, page }, o);
        return { items: r.orders, pagination: r.pagination };
      }, query.page),
    get: (id: number, o: CallOptions = {}): Result<'getOrder'> =>
      this.#http.call('getOrder', { path: { id }, ...o }),
    /** Places a wholesale order (the store buys from Stockless). API keys only. */
    create: (body: Body<'createWholesaleOrder'>, o: CallOptions = {}): Result<'createWholesaleOrder'> =>
      this.#http.call('createWholesaleOrder', { body, ...o }),
    /** The tax invoice PDF, as bytes (404 `INVOICE_NOT_ISSUED` before the order shipped). */
    invoice: (id: number, o: CallOptions = {}): Promise<Uint8Array> =>
      this.#http.call('getOrderInvoice', { path: { id }, ...o }),
  };

  /** The inventory change feed. */
  readonly inventory = {
    /** One page: pass an earlier `next_cursor` as `updated_since`. */
    list: (query: Query<'listInventory'> = {}, o: CallOptions = {}): Result<'listInventory'> =>
      this.#http.call('listInventory', { query, ...o }),
    /** Follows `next_cursor` until caught up; resumable from a stored cursor (see `InventorySync`). */
    sync: (options: InventorySyncOptions = {}): InventorySync =>
      new InventorySync(
        (cursor) =>
          this.inventory.list({ updated_since: cursor, limit: options.limit }, { signal: options.signal }),
        options.cursor,
      ),
  };

  /**
   * Bulk exports: a whole list (the catalogue under filters, the listings, the orders) as one JSON
   * Lines file, written from one snapshot.
   *
   * ```ts
   * const exp = await stockless.exports.create({ type: 'catalogue', filters: { in_stock: true } });
   * for await (const product of stockless.exports.lines('catalogue', exp.export.id)) console.log(product.sku);
   * ```
   */
  readonly exports = {
    create: (body: Body<'createExport'>, o: CallOptions = {}): Result<'createExport'> =>
      this.#http.call('createExport', { body, ...o }),
    retrieve: (id: string, o: CallOptions = {}): Result<'getExport'> =>
      this.#http.call('getExport', { path: { id }, ...o }),
    list: (query: Query<'listExports'> = {}, o: CallOptions = {}): Result<'listExports'> =>
      this.#http.call('listExports', { query, ...o }),
    /** Polls until the export completes (throws StocklessExportError if it fails or expired). */
    wait: (id: string, o: ExportWaitOptions = {}): Promise<Export> =>
      waitForExport((x) => this.exports.retrieve(x, { signal: o.signal }), id, o),
    /**
     * Waits for the export, downloads its file and yields each line parsed, typed as the list item of
     * its type (`catalogue`: GET /products's, `listings`: GET /my-products's, `orders`: GET /orders's).
     */
    lines: <T extends keyof ExportLines>(
      _type: T,
      id: string,
      o: ExportWaitOptions = {},
    ): AsyncGenerator<ExportLines[T]> => this.#lines<ExportLines[T]>(id, o),
  };

  /** The event log: every event of the store for 30 days, as its webhooks deliver it. */
  readonly events = {
    /** One page (newest first unless `order: 'asc'`); pass `next_cursor` back as `cursor`. */
    list: (query: Query<'listEvents'> = {}, o: CallOptions = {}): Promise<EventsPage> =>
      // The contract's webhook payloads, by `event`, are what each event of the page is.
      this.#http.call('listEvents', { query, ...o }) as Promise<EventsPage>,
    /** One event by its id (`evt_…`, a delivery's `id` and `X-Stockless-Event-Id`). */
    retrieve: (id: string, o: CallOptions = {}): Promise<{ event: StocklessEvent }> =>
      this.#http.call('getEvent', { path: { id }, ...o }) as Promise<{ event: StocklessEvent }>,
    /**
     * Every event from `cursor` on, oldest first unless `order: 'desc'`, page after page; with `follow`,
     * it keeps waiting for new ones (a long poll per request) and never ends (see `EventStream`).
     */
    iterate: (options: EventStreamOptions = {}): EventStream => {
      const order = options.order ?? 'asc';
      if (options.follow && order !== 'asc') throw new TypeError('events.iterate: follow needs order asc');
      const wait = options.follow === true ? 30 : options.follow || undefined;
      const type = typeof options.type === 'string' ? options.type : options.type?.join(',');
      const query = {
        type,
        created_gte: options.created_gte,
        created_lt: options.created_lt,
        limit: options.limit,
        order,
        wait,
      };
      return new EventStream(
        (cursor) => this.events.list({ ...query, cursor }, { signal: options.signal }),
        options.cursor,
        Boolean(options.follow),
      );
    },
  };

  /** The request log: the store's own API requests for 7 days (an app token: its own app's). */
  readonly requests = {
    /** One page, newest first; pass `next_cursor` back as `cursor` for the next older page. */
    list: (query: Query<'listRequests'> = {}, o: CallOptions = {}): Result<'listRequests'> =>
      this.#http.call('listRequests', { query, ...o }),
    /** One request by its id (the `X-Request-Id` of its answer, or `StocklessError.requestId`). */
    get: (requestId: string, o: CallOptions = {}): Result<'getRequest'> =>
      this.#http.call('getRequest', { path: { request_id: requestId }, ...o }),
    /** Every request matching the filters, newest first, page after page. */
    iterate: (query: Query<'listRequests'> = {}, o: CallOptions = {}) =>
      iterateRequests((q, signal) => this.requests.list(q, { signal }), query, o.signal),
    /** Follows the log from now on, each new request once, oldest first (like `stripe logs tail`). */
    tail: (options: RequestTailOptions = {}) =>
      tailRequests((q, signal) => this.requests.list(q, { signal }), options),
  };

  /** Marketplace orders posted by a partner app (the store's own goods). */
  readonly externalOrders = {
    /** Answers the same shape for created (201), already in (200) and held (202): see `result`. */
    post: (body: Body<'postExternalOrder'>, o: CallOptions = {}): Result<'postExternalOrder'> =>
      this.#http.call('postExternalOrder', { body, ...o }),
    cancel: (
      id: number,
      body: Body<'cancelExternalOrder'> = {},
      o: CallOptions = {},
    ): Result<'cancelExternalOrder'> => this.#http.call('cancelExternalOrder', { path: { id }, body, ...o }),
  };

  /**
   * Test mode only (an `sl_test_` key): move test objects as the platform would, to see their events.
   * A live key or an OAuth token is refused (`StocklessError`, code `TEST_MODE_ONLY`).
   */
  readonly testHelpers = {
    orders: {
      /**
       * Moves a test order one status forward, or with `{ to }` through every status up to that one,
       * each move with its events; answers the order as `orders.get` does.
       */
      advance: (
        id: number,
        body: Body<'advanceTestOrder'> = {},
        o: CallOptions = {},
      ): Result<'advanceTestOrder'> => this.#http.call('advanceTestOrder', { path: { id }, body, ...o }),
      /** Cancels a test order (pending, processing or fulfilled), as the store's operator would. */
      cancel: (id: number, o: CallOptions = {}): Result<'cancelTestOrder'> =>
        this.#http.call('cancelTestOrder', { path: { id }, ...o }),
    },
  };

  /** Webhook subscriptions and their delivery log. */
  readonly webhooks = {
    list: (o: CallOptions = {}): Result<'listWebhooks'> => this.#http.call('listWebhooks', o),
    /** Answers the signing secret once (`webhook.secret`). */
    create: (body: Body<'createWebhook'>, o: CallOptions = {}): Result<'createWebhook'> =>
      this.#http.call('createWebhook', { body, ...o }),
    get: (id: number, o: CallOptions = {}): Result<'getWebhook'> =>
      this.#http.call('getWebhook', { path: { id }, ...o }),
    update: (id: number, body: Body<'updateWebhook'>, o: CallOptions = {}): Result<'updateWebhook'> =>
      this.#http.call('updateWebhook', { path: { id }, body, ...o }),
    delete: (id: number, o: CallOptions = {}): Result<'deleteWebhook'> =>
      this.#http.call('deleteWebhook', { path: { id }, ...o }),
    rotateSecret: (id: number, o: CallOptions = {}): Result<'rotateWebhookSecret'> =>
      this.#http.call('rotateWebhookSecret', { path: { id }, ...o }),
    deliveries: (id: number, o: CallOptions = {}): Result<'listWebhookDeliveries'> =>
      this.#http.call('listWebhookDeliveries', { path: { id }, ...o }),
    resend: (id: number, deliveryId: number, o: CallOptions = {}): Result<'resendWebhookDelivery'> =>
      this.#http.call('resendWebhookDelivery', { path: { id, deliveryId }, ...o }),
    /** Sends a `webhook.ping` to the subscription. */
    test: (id: number, o: CallOptions = {}): Result<'testWebhook'> =>
      this.#http.call('testWebhook', { path: { id }, ...o }),
  };

  async *#lines<T>(id: string, o: ExportWaitOptions): AsyncGenerator<T> {
    const exp = await this.exports.wait(id, o);
    // Looked up per call, as the transport does, so a fetch patched after construction is used.
    yield* readExportLines<T>(this.#fetch ?? globalThis.fetch, exp, o.signal);
  }
}
