import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { getTRPCErrorFromUnknown } from '@trpc/server';
import type { Logger } from 'pino';
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
}

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
      (args) => runTool(deps, tool, args),
    );
  }
  return server;
}

/**
 * The procedure's answer as structured content (and as text, for clients that read only text), or
 * its error as a tool error carrying the contract's error body, so the model can read what to fix.
 */
async function runTool(deps: McpCallDeps, tool: ToolDefinition, args: unknown): Promise<CallToolResult> {
  const ctx = deps.context();
  try {
    const output = (await callProcedure(ctx, tool.procedure, args)) as Record<string, unknown>;
    return { structuredContent: output, content: [{ type: 'text', text: JSON.stringify(output) }] };
  } catch (err) {
    const error = getTRPCErrorFromUnknown(err);
    const shaped = shapeError(error);
    if (shaped.status >= 500)
      deps.log.error({ err: error.cause ?? error, tool: tool.name }, 'mcp tool failed');
    const body = { ...shaped.body, request_id: ctx.requestId };
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
  }
}
