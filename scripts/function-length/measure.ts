/**
 * Counts each function's lines the way Biome's noExcessiveLinesPerFunction does (skipBlankLines on),
 * except that the text of template literals counts too: Biome counts only lines that begin a token,
 * and a template's text is one token, so a function with 40 lines of SQL reads as a few lines.
 *
 * Biome's count, measured against biome 2.5 (test/runtime/function-length.test.ts holds the cases): the lines
 * of the function's body (not its signature) whose first character starts a token other than `{` or `}`;
 * blank lines and comment lines do not count. Here a line also counts when it starts inside a
 * template literal's text.
 */
import { parseSync } from '@swc/core';

export interface FunctionLength {
  name: string;
  /** 1-based line of the function's start. */
  line: number;
  /** Biome's count plus the lines of template literal text: what the limit applies to. */
  lines: number;
  /** Biome's own count, which skips the lines that start inside a literal. */
  biomeLines: number;
}

type Node = { type?: string; span?: { start: number; end: number }; [key: string]: unknown };
type Range = { start: number; end: number };

const FUNCTION_TYPES = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ClassMethod',
  'PrivateMethod',
  'Constructor',
  'MethodProperty',
  'GetterProperty',
  'SetterProperty',
]);

/** Literals whose text may hold `//`, `/*` or a leading `}` that is not code. */
const LITERAL_TYPES = new Set(['StringLiteral', 'TemplateElement', 'RegExpLiteral', 'JSXText']);

/**
 * A line counts when it is code or literal text (a template's SQL); Biome counts only code, and skips
 * a line that starts with a brace.
 */
type LineKind = 'blank' | 'comment' | 'brace' | 'text' | 'code';

export function measureFunctions(source: string): FunctionLength[] {
  // swc's positions count UTF-8 bytes from a base that is not always 1: a leading `;` is an empty
  // statement whose position is the base. A shebang becomes a comment of the same length.
  const code = `;${source.startsWith('#!') ? `//${source.slice(2)}` : source}`;
  const text = Buffer.from(code);
  const module = parseSync(code, { syntax: 'typescript', target: 'es2024' }) as unknown as Node;
  const base = (module.body as Node[])[0]?.span?.start ?? 1;
  const toOffset = (pos: number) => pos - base;

  const functions: { name: string; node: Node; body: Range }[] = [];
  const literals: Range[] = [];
  const inner: Range[] = [];
  const closingTicks = new Set<number>();
  walk(module, '', (node, name) => {
    const span = node.span;
    if (!span) return;
    if (node.type && LITERAL_TYPES.has(node.type)) {
      literals.push({ start: toOffset(span.start), end: toOffset(span.end) });
      // A line that starts a string starts a token; one that starts in a template's text does not.
      const interior = node.type === 'TemplateElement' ? 0 : 1;
      inner.push({ start: toOffset(span.start) + interior, end: toOffset(span.end) });
    }
    if (node.type === 'TemplateLiteral') closingTicks.add(toOffset(span.end) - 1);
    const body = node.type && FUNCTION_TYPES.has(node.type) ? functionBody(node) : undefined;
    if (body?.span) {
      functions.push({
        name,
        node,
        body: { start: toOffset(body.span.start), end: toOffset(body.span.end) },
      });
    }
  });

  const lines = classifyLines(text, { literals, inner, closingTicks });
  return functions.map(({ name, node, body }) => {
    const inBody = lines.filter((l) => l.first >= body.start && l.first < body.end);
    return {
      name,
      line: lineOf(lines, toOffset(node.span?.start ?? 0)),
      lines: inBody.filter((l) => l.kind === 'code' || l.kind === 'text').length,
      biomeLines: inBody.filter((l) => l.kind === 'code').length,
    };
  });
}

function functionBody(node: Node): Node | undefined {
  const direct = node.body as Node | undefined;
  if (direct && typeof direct === 'object') return direct;
  return (node.function as Node | undefined)?.body as Node | undefined;
}

interface Line {
  /** Offset of the line's first character that is not a space; the line's end when blank. */
  first: number;
  start: number;
  kind: LineKind;
}

function lineOf(lines: Line[], offset: number): number {
  let index = lines.findIndex((l) => l.start > offset);
  if (index === -1) index = lines.length;
  return index;
}

interface Literals {
  /** Where comment markers are not comments. */
  literals: Range[];
  /** Where a line that starts there is literal text, not a new token. */
  inner: Range[];
  closingTicks: Set<number>;
}

function classifyLines(text: Buffer, { literals, inner, closingTicks }: Literals): Line[] {
  const comments = commentRanges(text, literals);
  const inside = (ranges: Range[], at: number) => ranges.some((r) => at >= r.start && at < r.end);
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf(0x0a, start);
    if (end === -1) end = text.length;
    let first = start;
    while (first < end && isSpace(text[first] ?? 0)) first++;
    let kind: LineKind = 'code';
    if (first === end) kind = 'blank';
    else if (inside(comments, first)) kind = 'comment';
    else if (
      inside(inner, first) ||
      closingTicks.has(first) ||
      text.toString('latin1', first, first + 2) === '${'
    )
      kind = 'text';
    else if (text[first] === 0x7b || text[first] === 0x7d) kind = 'brace';
    lines.push({ first, start, kind });
    start = end + 1;
  }
  return lines;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d;
}

/** Comments are what starts with `//` or `/*` outside the literals the parser found. */
function commentRanges(text: Buffer, literals: Range[]): Range[] {
  const skips = [...literals].sort((a, b) => a.start - b.start);
  const comments: Range[] = [];
  let next = 0;
  for (let i = 0; i < text.length; i++) {
    while (next < skips.length && (skips[next]?.end ?? 0) <= i) next++;
    const skip = skips[next];
    if (skip && skip.start <= i) {
      i = skip.end - 1;
      continue;
    }
    if (text[i] !== 0x2f) continue;
    const after = text[i + 1];
    if (after === 0x2f || after === 0x2a) {
      const close = after === 0x2f ? text.indexOf(0x0a, i) : text.indexOf('*/', i + 2);
      const end = close === -1 ? text.length : after === 0x2f ? close : close + 2;
      comments.push({ start: i, end });
      i = end - 1;
    }
  }
  return comments;
}

/** Visits every node, with the name a reader would look for: `insertBatch`, `Run.deliver`. */
function walk(node: unknown, name: string, visit: (node: Node, name: string) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, name, visit);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const n = node as Node;
  const own = ownName(n, name);
  visit(n, own);
  for (const [key, value] of Object.entries(n)) {
    if (key !== 'span' && value && typeof value === 'object') walk(value, childName(n, own, name), visit);
  }
}

function keyName(key: unknown): string {
  const k = key as Node | undefined;
  if (k?.type === 'Identifier' || k?.type === 'StringLiteral') return String(k.value);
  if (k?.type === 'PrivateName') return `#${String(k.value)}`;
  return '[computed]';
}

/** The name of a function node itself, from its declaration or from where it is assigned. */
function ownName(node: Node, outer: string): string {
  switch (node.type) {
    case 'FunctionDeclaration':
      return keyName(node.identifier);
    case 'FunctionExpression':
    case 'ArrowFunctionExpression':
      return node.identifier ? keyName(node.identifier) : outer || '(anonymous)';
    case 'ClassMethod':
    case 'PrivateMethod':
    case 'MethodProperty':
    case 'GetterProperty':
    case 'SetterProperty':
      return qualified(outer, keyName(node.key));
    case 'Constructor':
      return qualified(outer, 'constructor');
    default:
      return outer;
  }
}

/** What the nodes under this one are called: a declarator's or a property's name, or a callback. */
function childName(node: Node, own: string, outer: string): string {
  switch (node.type) {
    case 'VariableDeclarator':
      return keyName(node.id);
    case 'KeyValueProperty':
    case 'ClassProperty':
    case 'PrivateProperty':
      return qualified(outer, keyName(node.key));
    case 'ClassDeclaration':
    case 'ClassExpression':
      return node.identifier ? keyName(node.identifier) : outer;
    case 'CallExpression':
    case 'NewExpression':
      return outer.endsWith(' callback') ? outer : `${outer || '(module)'} callback`;
    case 'ExportDefaultDeclaration':
      return 'default';
    default:
      return FUNCTION_TYPES.has(node.type ?? '') ? own : outer;
  }
}

function qualified(outer: string, name: string): string {
  return outer ? `${outer}.${name}` : name;
}
