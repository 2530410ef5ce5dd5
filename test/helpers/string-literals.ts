/** A string in TypeScript source: a quoted string's value or one literal part of a template. */
export interface SourceString {
  text: string;
  line: number;
}

/** Characters after which a `/` starts a regular expression rather than a division. */
const REGEX_AFTER = new Set([
  '',
  '(',
  ',',
  '=',
  ':',
  '[',
  '!',
  '&',
  '|',
  '?',
  '{',
  '}',
  ';',
  '+',
  '-',
  '*',
  '%',
  '<',
  '>',
  '~',
  '^',
]);

/**
 * Every string of `src` outside comments and regular expressions. A small lexer rather than the
 * compiler's parser: TypeScript 7 has no JavaScript API to parse with (see .dependency-cruiser.cjs).
 */
export function stringsOf(src: string): SourceString[] {
  const found: SourceString[] = [];
  const templateDepths: number[] = [];
  let depth = 0;
  let line = 1;
  let prev = '';
  let i = 0;
  const readTemplate = () => {
    const start = line;
    let text = '';
    while (i < src.length) {
      const c = src[i] as string;
      if (c === '\\') {
        text += src.slice(i, i + 2);
        i += 2;
        continue;
      }
      if (c === '\n') line++;
      if (c === '`') {
        i++;
        found.push({ text, line: start });
        return;
      }
      if (c === '$' && src[i + 1] === '{') {
        i += 2;
        found.push({ text, line: start });
        templateDepths.push(depth);
        return;
      }
      text += c;
      i++;
    }
  };
  while (i < src.length) {
    const c = src[i] as string;
    const next = src[i + 1];
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === '/' && next === '/') {
      while (i < src.length && src[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      line += src.slice(i, stop).split('\n').length - 1;
      i = stop;
    } else if (c === '/' && REGEX_AFTER.has(prev)) {
      let inClass = false;
      for (i++; i < src.length && src[i] !== '\n'; i++) {
        if (src[i] === '\\') i++;
        else if (src[i] === '[') inClass = true;
        else if (src[i] === ']') inClass = false;
        else if (src[i] === '/' && !inClass) break;
      }
      i++;
      prev = '/';
    } else if (c === "'" || c === '"') {
      let text = '';
      for (i++; i < src.length && src[i] !== c && src[i] !== '\n'; i++) {
        if (src[i] === '\\') text += src[i++];
        text += src[i];
      }
      i++;
      found.push({ text, line });
      prev = c;
    } else if (c === '`') {
      i++;
      readTemplate();
      prev = '`';
    } else if (c === '}' && templateDepths.at(-1) === depth) {
      templateDepths.pop();
      i++;
      readTemplate();
      prev = '`';
    } else {
      if (c === '{') depth++;
      if (c === '}') depth--;
      prev = c;
      i++;
    }
  }
  return found;
}

/**
 * The strings of `src` that spell an event name as code: the name itself, an event key built on it
 * (`order.shipped:9001`), or the name quoted inside SQL text (`'order.created'`). Prose that mentions
 * a name (a description saying "Emits `product.updated`") is not code.
 */
export function eventSpellings(src: string, names: readonly string[]): SourceString[] {
  return stringsOf(src).filter(({ text }) =>
    names.some((n) => text === n || text.startsWith(`${n}:`) || text.includes(`'${n}'`)),
  );
}
