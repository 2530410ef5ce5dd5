import { type Actor, actorHasScope, OAUTH_SCOPES, type OAuthScope } from '../auth/actor.ts';
import { type OperationRule, requiredScope } from '../auth/authorize.ts';
import { type ProcedurePath, procedureInfo } from './procedures.ts';
import { TOOLS } from './tools.ts';

/** A tool's rule is its procedure's: the same method and scope rule as the REST operation. */
function ruleOf(procedure: ProcedurePath): OperationRule {
  const { type, meta } = procedureInfo(procedure);
  return { write: type !== 'query', appScope: meta.appScope ?? null, mcpScope: meta.mcpScope };
}

const RULES = new Map(TOOLS.map((t) => [t.name, ruleOf(t.procedure)]));

/** The scope an MCP token lacks for a tool, or undefined when it may call it (or the tool is unknown). */
export function missingToolScope(actor: Actor, toolName: string): OAuthScope | undefined {
  const rule = RULES.get(toolName);
  if (!rule) return undefined;
  const needed = requiredScope(actor.kind, rule);
  if (needed === null || needed === '*') return undefined;
  return actorHasScope(actor, needed) ? undefined : needed;
}

/**
 * The scopes the tools need between them: what a client connecting for the first time is asked to
 * request (the 401 challenge's `scope`). Buyer details (`read_customers`) and scopes no tool uses are
 * left out; a client may still ask for them, as the resource's metadata lists every scope.
 */
export const TOOL_SCOPES: readonly OAuthScope[] = (() => {
  const needed = new Set<string>();
  for (const rule of RULES.values()) {
    const scope = requiredScope('mcp', rule);
    if (scope !== null && scope !== '*') needed.add(scope);
  }
  return OAUTH_SCOPES.filter((s) => needed.has(s));
})();
