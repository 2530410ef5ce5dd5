import type { ProcedurePath } from './procedures.ts';

/**
 * The vendor MCP endpoint's tools: each is one partner operation, called through its tRPC procedure,
 * so input, output, scopes and limits are exactly the REST operation's.
 */
export interface ToolDefinition {
  name: string;
  procedure: ProcedurePath;
  title: string;
  description: string;
  /** It takes something away from the store (a listing, a subscription). */
  destructive?: boolean;
  /** Repeating it with the same arguments changes nothing more. */
  idempotent?: boolean;
  /** It makes the store send data to a URL the caller names. */
  openWorld?: boolean;
}

const MONEY = 'Money is in cents (AUD).';

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'get_store',
    procedure: 'store.me',
    title: 'The store',
    description: 'The store this connection acts as: name, currency and order statistics.',
  },
  {
    name: 'search_catalogue',
    procedure: 'catalogue.list',
    title: 'Search the catalogue',
    description:
      'Searches the Stockless catalogue the store can sell from, with filters (brand, category, price, stock, ' +
      `readiness and more), sorting and pages. Each product shows the store's earn per sale and minimum retail price. ${MONEY}`,
  },
  {
    name: 'catalogue_facets',
    procedure: 'catalogue.facets',
    title: 'Catalogue facet counts',
    description:
      'For each catalogue filter, its values and how many products each leaves, given the other filters sent: ' +
      'use it to narrow a search before listing products.',
  },
  {
    name: 'get_catalogue_product',
    procedure: 'catalogue.get',
    title: 'A catalogue product',
    description: `One catalogue product with images, options, variants and their stock. ${MONEY}`,
  },
  {
    name: 'list_listings',
    procedure: 'listings.list',
    title: "The store's listings",
    description:
      'The products the store sells (its listings), newest first. `include: "variants"` adds per-variant stock.',
  },
  {
    name: 'get_listing',
    procedure: 'listings.get',
    title: 'A listing',
    description: `One listing by its catalogue product id: effective price, options and variant stock. ${MONEY}`,
  },
  {
    name: 'add_listing',
    procedure: 'listings.add',
    title: 'Add a product to the store',
    description:
      'Lists a catalogue product in the store, optionally at a custom retail price (at least its ' +
      `minimum_price_cents). A product already listed fails with ALREADY_LISTED: reprice it instead. ${MONEY}`,
  },
  {
    name: 'remove_listing',
    procedure: 'listings.remove',
    title: 'Remove a product from the store',
    description: 'Takes a listing off the store. Adding the product again restores it with its settings.',
    destructive: true,
    idempotent: true,
  },
  {
    name: 'set_listing_price',
    procedure: 'listings.setPricing',
    title: 'Reprice a listing',
    description:
      'Sets the custom retail price of a listing, or clears it with `custom_retail_price_cents: null` to use the ' +
      `suggested price. Below the minimum price fails with PRICE_BELOW_MINIMUM. ${MONEY}`,
    idempotent: true,
  },
  {
    name: 'list_orders',
    procedure: 'orders.list',
    title: "The store's orders",
    description:
      'Orders of the store, newest first, filtered by status, channel, dates or a search. Buyer details show ' +
      `only if the connection was granted read_customers. ${MONEY}`,
  },
  {
    name: 'get_order',
    procedure: 'orders.get',
    title: 'An order',
    description: `One order with its items, shipping, tracking and invoice fields. ${MONEY}`,
  },
  {
    name: 'advance_test_order',
    procedure: 'testHelpers.advanceOrder',
    title: 'Advance a test order',
    description:
      'Test mode only: moves a test order one status forward, or with `to` through every status up to it, firing ' +
      'each move’s order events and issuing the test invoice when it ships. MCP connections act in live mode ' +
      'today, so this answers TEST_MODE_ONLY: use an sl_test_ API key over REST or the SDK.',
  },
  {
    name: 'cancel_test_order',
    procedure: 'testHelpers.cancelOrder',
    title: 'Cancel a test order',
    description:
      'Test mode only: cancels a pending, processing or fulfilled test order (order.cancelled). MCP connections ' +
      'act in live mode today, so this answers TEST_MODE_ONLY: use an sl_test_ API key over REST or the SDK.',
  },
  {
    name: 'read_inventory',
    procedure: 'inventory.feed',
    title: 'Stock the store can sell',
    description:
      'Stock of every product the store lists, oldest change first. Pass `next_cursor` back as `updated_since` ' +
      'to read on, or later to get only what changed since.',
  },
  {
    name: 'list_requests',
    procedure: 'requests.list',
    title: "The store's API request log",
    description:
      "The store's own API requests of the last 7 days, newest first: method, path, operation, status, error " +
      'code, duration, which key or app made each. Filter with `status_class: "4xx"` or `"5xx"` to find the ' +
      "calls of an integration that fail. With manage_webhooks it reads every credential's requests; without, " +
      "only this connection's own app's.",
  },
  {
    name: 'list_webhooks',
    procedure: 'webhooks.list',
    title: 'Webhook subscriptions',
    description:
      "The store's webhook subscriptions (without their secrets) and the event names they may use.",
  },
  {
    name: 'create_webhook',
    procedure: 'webhooks.create',
    title: 'Subscribe a URL to events',
    description:
      'Subscribes a public https URL to store events (at most 10 subscriptions). The answer carries the signing ' +
      'secret, shown this once: tell the user to store it.',
    openWorld: true,
  },
  {
    name: 'update_webhook',
    procedure: 'webhooks.update',
    title: 'Change a webhook subscription',
    description:
      'Changes the URL, the events or `active` of a subscription; `active: true` re-enables a disabled one.',
    idempotent: true,
    openWorld: true,
  },
  {
    name: 'delete_webhook',
    procedure: 'webhooks.delete',
    title: 'Delete a webhook subscription',
    description: 'Deletes a subscription with its pending deliveries and delivery log.',
    destructive: true,
    idempotent: true,
  },
  {
    name: 'create_export',
    procedure: 'exports.create',
    title: 'Export a whole list',
    description:
      'Starts a bulk export of the catalogue (with the filters of search_catalogue, no page or sort), the ' +
      "store's listings, or its orders (with list_orders' filters): a JSON Lines file written in the background " +
      'from one snapshot. Poll get_export until `status` is `completed`, then give the user its `url` (a signed ' +
      'download link valid one hour). One export runs at a time (EXPORT_ALREADY_RUNNING names it).',
  },
  {
    name: 'get_export',
    procedure: 'exports.get',
    title: 'An export',
    description:
      'An export by its id (`exp_…`): its status, progress (`rows_written`) and, once completed, a freshly ' +
      'signed download `url` and the row count.',
  },
];
