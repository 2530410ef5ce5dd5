import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { getTRPCErrorFromUnknown } from '@trpc/server';
import type { Logger } from 'pino';
import { type AppError, wireErrorBody } from '../errors.ts';
import type { Context } from '../trpc/context.ts';
import { shapeError } from '../trpc/errors.ts';
import { advertised } from './json-schema.ts';
import { callProcedure, procedureInfo } from './procedures.ts';
import { TOOLS, type ToolDefinition } from './tools.ts';

export interface McpCallDeps {
  /** A fresh context for each tool call, as the HTTP app builds one per request, its actor preset. */
  context(): Context;
  log: Logger;
  version: string;
  /** Tool calls of this request whose arguments the transport refused, by JSON-RPC id. */
  refusedArguments?: ReadonlyMap<string | number, AppError>;
}

/**
 * An answer up to this size is repeated as JSON text for clients that read only text (as the MCP
 * spec advises); a larger one is summed up in a line instead, so it is not sent twice.
 */
export const TEXT_COPY_LIMIT = 4096;

const INSTRUCTIONS =
  'These tools act on one Stockless store: the one whose owner connected you. Stockless holds the stock ' +
  'and ships; the store picks catalogue products to sell (listings) and may set its own retail price. ' +
  'Money is in integer cents (AUD). Listing tools take the catalogue product id. A failed call answers ' +
  'the API error body as JSON: { error, message, code?, details? }.';

/** Each tool with its procedure's schemas, advertised once: JSON Schema generation is not free. */
const RESOLVED = TOOLS.map((tool) => {
  const { type, input, output } = procedureInfo(tool.procedure);
  return {
    tool,
    readOnly: type === 'query',
    input: advertised(input, 'input'),
    output: advertised(output, 'output'),
  };
});

/**
 * One MCP server per HTTP request (stateless Streamable HTTP), its tools bound to the caller. Tool
 * calls go through the tRPC procedures, never around them.
 */
export function createMcpServer(deps: McpCallDeps): McpServer {
  const server = new McpServer(
    { name: 'stockless', title: 'Stockless', version: deps.version },
    { instructions: INSTRUCTIONS },
  );
  for (const { tool, readOnly, input, output } of RESOLVED) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: input,
        outputSchema: output,
        annotations: {
          title: tool.title,
          readOnlyHint: readOnly,
          destructiveHint: !readOnly && (tool.destructive ?? false),
          idempotentHint: readOnly || (tool.idempotent ?? false),
          openWorldHint: tool.openWorld ?? false,
        },
      },
      (args, extra) => runTool(deps, tool, args, extra.requestId),
    );
  }
  // The SDK announces `listChanged` once a tool is registered; this server's tools never change
  // while a client is connected (one server per request), so it never sends the notification.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  return server;
}

/**
 * The procedure's answer as structured content (and as text: the same JSON when small, else a line
 * that sums it up), or its error as a tool error carrying the contract's error body, so the model
 * can read what to fix.
 */
async function runTool(
  deps: McpCallDeps,
  tool: ToolDefinition,
  args: unknown,
  requestId: string | number,
): Promise<CallToolResult> {
  const ctx = deps.context();
  try {
    const refused = deps.refusedArguments?.get(requestId);
    if (refused) throw refused;
    const output = (await callProcedure(ctx, tool.procedure, args)) as Record<string, unknown>;
    return { structuredContent: output, content: [{ type: 'text', text: textOf(tool, output) }] };
  } catch (err) {
    const error = getTRPCErrorFromUnknown(err);
    const shaped = shapeError(error);
    if (shaped.status >= 500)
      deps.log.error({ err: error.cause ?? error, tool: tool.name }, 'mcp tool failed');
    const body = wireErrorBody(shaped.body, { id: ctx.requestId, publicUrl: ctx.settings.publicUrl });
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
  }
}

/** The answer as text: its JSON up to `TEXT_COPY_LIMIT`, else what it holds in a line. */
export function textOf(tool: ToolDefinition, output: Record<string, unknown>): string {
  const json = JSON.stringify(output);
  if (json.length <= TEXT_COPY_LIMIT) return json;
  const kb = Math.round(Buffer.byteLength(json) / 1024);
  return (
    `${tool.title}: ${contents(output)}. The answer (${kb} KB) is in structuredContent and not ` +
    'repeated here; a client that reads only text can ask for fewer items with a smaller `limit`.'
  );
}

/** "20 products, page 1 of 7 (134 in all)": the answer's list and where it stands in the pages. */
function contents(output: Record<string, unknown>): string {
  const list = Object.entries(output).find(([, v]) => Array.isArray(v));
  if (!list) return 'one object';
  const [name, items] = list as [string, unknown[]];
  const page = output.pagination as { page?: number; total_pages?: number; total_count?: number } | undefined;
  const where =
    page?.page !== undefined ? `, page ${page.page} of ${page.total_pages} (${page.total_count} in all)` : '';
  const more = output.has_more === true || typeof output.next_cursor === 'string' ? ', more follow' : '';
  return `${items.length} ${name.replaceAll('_', ' ')}${where}${more}`;
}
