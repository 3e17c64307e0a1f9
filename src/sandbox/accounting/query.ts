/**
 * The subset of Xero's `where` language the sandbox understands (docs/xero-api.md §3): comparisons
 * (== != > >= < <=) of fields with strings, numbers, booleans, null, DateTime(y,m,d[,h,m,s]) and
 * Guid("…"); AND/OR/NOT (also && || !), parentheses, dotted paths (Contact.ContactID) and the string
 * methods Contains/StartsWith/EndsWith/ToLower/ToUpper. Plus `order` and paging.
 */
import { XeroError } from './errors';

/** A calendar date or timestamp as ms, so comparisons work on time, not text. */
export interface DateValue {
  kind: 'date';
  ms: number;
}

export type FieldValue = string | number | boolean | null | undefined | DateValue;
/** Lower-cased field path → getter. */
export type FieldMap<T> = Record<string, (rec: T) => FieldValue>;

type Token =
  | { t: 'str'; v: string }
  | { t: 'num'; v: number }
  | { t: 'id'; v: string }
  | { t: 'op'; v: string }
  | { t: 'punc'; v: string };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input.charAt(i);
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let v = '';
      while (j < input.length && input[j] !== c) {
        if (input[j] === '\\' && j + 1 < input.length) j++;
        v += input[j];
        j++;
      }
      if (j >= input.length) throw new Error('unterminated string');
      tokens.push({ t: 'str', v });
      i = j + 1;
    } else if (/[0-9-]/.test(c) && (c !== '-' || /[0-9]/.test(input.charAt(i + 1)))) {
      const m = /^-?\d+(\.\d+)?[mMdD]?/.exec(input.slice(i));
      if (!m) throw new Error('bad number');
      tokens.push({ t: 'num', v: Number(m[0].replace(/[mMdD]$/, '')) });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(input.slice(i));
      if (!m) throw new Error('bad identifier');
      tokens.push({ t: 'id', v: m[0] });
      i += m[0].length;
    } else {
      const two = input.slice(i, i + 2);
      if (['==', '!=', '>=', '<=', '&&', '||'].includes(two)) {
        tokens.push({ t: 'op', v: two });
        i += 2;
      } else if (['>', '<', '!', '='].includes(c)) {
        tokens.push({ t: 'op', v: c === '=' ? '==' : c });
        i++;
      } else if (['(', ')', ',', '.'].includes(c)) {
        tokens.push({ t: 'punc', v: c });
        i++;
      } else {
        throw new Error(`unexpected character '${c}'`);
      }
    }
  }
  return tokens;
}

type Node =
  | { k: 'and' | 'or'; a: Node; b: Node }
  | { k: 'not'; a: Node }
  | { k: 'cmp'; op: string; a: Node; b: Node }
  | { k: 'lit'; v: FieldValue }
  | { k: 'field'; path: string }
  | { k: 'call'; target: Node; method: string; args: Node[] };

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }

  private next(): Token {
    const t = this.tokens[this.i++];
    if (!t) throw new Error('unexpected end of expression');
    return t;
  }

  private isWord(word: string): boolean {
    const t = this.peek();
    return t?.t === 'id' && t.v.toUpperCase() === word;
  }

  private expect(v: string): void {
    const t = this.next();
    if (t.t !== 'punc' || t.v !== v) throw new Error(`expected '${v}'`);
  }

  parse(): Node {
    const node = this.or();
    if (this.i < this.tokens.length) throw new Error('unexpected text after expression');
    return node;
  }

  private or(): Node {
    let a = this.and();
    while (this.isWord('OR') || (this.peek()?.t === 'op' && this.peek()?.v === '||')) {
      this.next();
      a = { k: 'or', a, b: this.and() };
    }
    return a;
  }

  private and(): Node {
    let a = this.unary();
    while (this.isWord('AND') || (this.peek()?.t === 'op' && this.peek()?.v === '&&')) {
      this.next();
      a = { k: 'and', a, b: this.unary() };
    }
    return a;
  }

  private unary(): Node {
    if (this.isWord('NOT') || (this.peek()?.t === 'op' && this.peek()?.v === '!')) {
      this.next();
      return { k: 'not', a: this.unary() };
    }
    const left = this.operand();
    const t = this.peek();
    if (t?.t === 'op' && ['==', '!=', '>', '>=', '<', '<='].includes(t.v)) {
      this.next();
      return { k: 'cmp', op: t.v, a: left, b: this.operand() };
    }
    return left;
  }

  private operand(): Node {
    const t = this.next();
    if (t.t === 'punc' && t.v === '(') {
      const inner = this.or();
      this.expect(')');
      return inner;
    }
    if (t.t === 'str') return { k: 'lit', v: t.v };
    if (t.t === 'num') return { k: 'lit', v: t.v };
    if (t.t !== 'id') throw new Error(`unexpected '${t.v}'`);
    const word = t.v;
    const upper = word.toUpperCase();
    if (upper === 'TRUE') return { k: 'lit', v: true };
    if (upper === 'FALSE') return { k: 'lit', v: false };
    if (upper === 'NULL') return { k: 'lit', v: null };
    if (upper === 'DATETIME' && this.peek()?.v === '(') {
      this.next();
      const nums: number[] = [];
      while (this.peek()?.v !== ')') {
        const n = this.next();
        if (n.t === 'num') nums.push(n.v);
        else if (n.t === 'str') nums.push(...(n.v.match(/\d+/g) ?? []).map(Number));
        else if (!(n.t === 'punc' && n.v === ',')) throw new Error('bad DateTime');
      }
      this.expect(')');
      const [y = NaN, mo = 1, d = 1, h = 0, mi = 0, s = 0] = nums;
      const ms = Date.UTC(y, mo - 1, d, h, mi, s);
      if (Number.isNaN(ms)) throw new Error('bad DateTime');
      return { k: 'lit', v: { kind: 'date', ms } };
    }
    if (upper === 'GUID' && this.peek()?.v === '(') {
      this.next();
      const g = this.next();
      if (g.t !== 'str') throw new Error('bad Guid');
      this.expect(')');
      return { k: 'lit', v: g.v.toLowerCase() };
    }
    let path = word;
    let node: Node | null = null;
    while (this.peek()?.t === 'punc' && this.peek()?.v === '.') {
      this.next();
      const part = this.next();
      if (part.t !== 'id') throw new Error('bad member access');
      if (this.peek()?.v === '(') {
        this.next();
        const args: Node[] = [];
        while (this.peek()?.v !== ')') {
          args.push(this.operand());
          if (this.peek()?.v === ',') this.next();
        }
        this.expect(')');
        node = { k: 'call', target: node ?? { k: 'field', path }, method: part.v.toLowerCase(), args };
      } else if (node) {
        throw new Error('member access after a method call');
      } else {
        path += `.${part.v}`;
      }
    }
    return node ?? { k: 'field', path };
  }
}

function norm(v: FieldValue): string | number | boolean | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'object') return v.ms;
  if (typeof v === 'string') return v.toLowerCase();
  return v;
}

function compare(op: string, a: FieldValue, b: FieldValue): boolean {
  let x = norm(a);
  let y = norm(b);
  // Dates compared with date literals; a date field against a string: parse the string.
  if (typeof a === 'object' && a !== null && typeof y === 'string') y = Date.parse(y);
  if (typeof b === 'object' && b !== null && typeof x === 'string') x = Date.parse(x);
  switch (op) {
    case '==':
      return x === y;
    case '!=':
      return x !== y;
  }
  if (x === null || y === null) return false;
  switch (op) {
    case '>':
      return x > y;
    case '>=':
      return x >= y;
    case '<':
      return x < y;
    case '<=':
      return x <= y;
  }
  return false;
}

export type Predicate<T> = (rec: T) => boolean;

/** Compile a `where` expression, or throw Xero's QueryParseException. */
export function compileWhere<T>(
  expression: string | undefined,
  fields: FieldMap<T>,
  entity: string,
): Predicate<T> | null {
  if (!expression || !expression.trim()) return null;
  let ast: Node;
  try {
    ast = new Parser(tokenize(expression)).parse();
  } catch (error) {
    throw XeroError.queryParse(`Operator or expression expected: ${(error as Error).message}`);
  }
  const check = (node: Node): void => {
    if (node.k === 'field' && !fields[node.path.toLowerCase()])
      throw XeroError.queryParse(`No property or field '${node.path}' exists in type '${entity}'`);
    if (node.k === 'and' || node.k === 'or' || node.k === 'cmp') {
      check(node.a);
      check(node.b);
    }
    if (node.k === 'not') check(node.a);
    if (node.k === 'call') {
      check(node.target);
      node.args.forEach(check);
      if (!['contains', 'startswith', 'endswith', 'tolower', 'toupper'].includes(node.method))
        throw XeroError.queryParse(`No applicable method '${node.method}' exists`);
    }
  };
  check(ast);
  const value = (node: Node, rec: T): FieldValue => {
    switch (node.k) {
      case 'lit':
        return node.v;
      case 'field':
        return fields[node.path.toLowerCase()]?.(rec);
      case 'call': {
        const target = value(node.target, rec);
        const s = typeof target === 'string' ? target.toLowerCase() : '';
        const arg = node.args[0] ? value(node.args[0], rec) : '';
        const a = typeof arg === 'string' ? arg.toLowerCase() : String(arg ?? '');
        if (node.method === 'tolower' || node.method === 'toupper') return s;
        if (typeof target !== 'string') return false;
        if (node.method === 'contains') return s.includes(a);
        if (node.method === 'startswith') return s.startsWith(a);
        return s.endsWith(a);
      }
      default:
        return test(node, rec);
    }
  };
  const test = (node: Node, rec: T): boolean => {
    switch (node.k) {
      case 'and':
        return test(node.a, rec) && test(node.b, rec);
      case 'or':
        return test(node.a, rec) || test(node.b, rec);
      case 'not':
        return !test(node.a, rec);
      case 'cmp':
        return compare(node.op, value(node.a, rec), value(node.b, rec));
      default:
        return value(node, rec) === true;
    }
  };
  return (rec) => test(ast, rec);
}

/** Compile `order` ("Date DESC, InvoiceNumber") into a comparator. */
export function compileOrder<T>(
  order: string | undefined,
  fields: FieldMap<T>,
  entity: string,
): ((a: T, b: T) => number) | null {
  if (!order || !order.trim()) return null;
  const keys = order.split(',').map((part) => {
    const [name = '', dir = 'ASC'] = part.trim().split(/\s+/);
    const getter = fields[name.toLowerCase()];
    if (!getter) throw XeroError.queryParse(`No property or field '${name}' exists in type '${entity}'`);
    if (!['ASC', 'DESC'].includes(dir.toUpperCase()))
      throw XeroError.queryParse(`Invalid sort direction '${dir}'`);
    return { getter, sign: dir.toUpperCase() === 'DESC' ? -1 : 1 };
  });
  return (a, b) => {
    for (const { getter, sign } of keys) {
      const x = norm(getter(a));
      const y = norm(getter(b));
      if (x === y) continue;
      if (x === null) return -sign;
      if (y === null) return sign;
      return (x < y ? -1 : 1) * sign;
    }
    return 0;
  };
}

export interface Paging {
  page: number;
  pageSize: number;
}

/** `page` (1-based) and `pageSize` (default 100, at most 1000); null when unpaged. */
export function readPaging(q: Record<string, string | undefined>): Paging | null {
  const pageText = q.page;
  if (pageText === undefined || pageText === '') return null;
  const page = Number.parseInt(pageText, 10);
  const sizeText = q.pagesize;
  const requested = sizeText ? Number.parseInt(sizeText, 10) : 100;
  const pageSize = Math.min(1000, Math.max(1, Number.isFinite(requested) ? requested : 100));
  return { page: Number.isFinite(page) && page > 0 ? page : 1, pageSize };
}

export function paginate<T>(
  items: T[],
  paging: Paging | null,
): { items: T[]; pagination?: { page: number; pageSize: number; pageCount: number; itemCount: number } } {
  if (!paging) return { items };
  const start = (paging.page - 1) * paging.pageSize;
  return {
    items: items.slice(start, start + paging.pageSize),
    pagination: {
      page: paging.page,
      pageSize: paging.pageSize,
      pageCount: Math.ceil(items.length / paging.pageSize),
      itemCount: items.length,
    },
  };
}

export function listParam(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}
