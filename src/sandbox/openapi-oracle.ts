/**
 * Xero's official OpenAPI files as a test oracle (read from ../shared/xero-openapi, never copied into
 * the project). Loads them leniently (docs/xero-api.md §8: `$ref` with siblings, `x-*` keywords, formats like
 * double/int32, /connections dates without offset) and validates answers with Ajv.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import YAML from 'yaml';

export const OPENAPI_DIR = path.resolve(process.cwd(), '../shared/xero-openapi');

type Node = Record<string, unknown>;

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Drop `$ref` siblings (invalid in OpenAPI 3.0 and confusing to Ajv). */
function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean);
  if (!isNode(value)) return value;
  if (typeof value.$ref === 'string') return { $ref: value.$ref };
  const out: Node = {};
  for (const [k, v] of Object.entries(value))
    out[k] = k === 'example' || k === 'examples' ? undefined : clean(v);
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
}

function pointer(...parts: string[]): string {
  return parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
}

export interface Oracle {
  /** Errors (empty when valid) for an answer of `method path` (spec path, e.g. "/Invoices/{InvoiceID}"). */
  validateResponse(
    spec: 'accounting' | 'identity',
    method: string,
    specPath: string,
    status: number,
    body: unknown,
  ): string[];
  /** Errors for a request body sent to `method path`. */
  validateRequest(method: string, specPath: string, body: unknown): string[];
  /** Errors for data against a component schema, e.g. "Invoices". */
  validateComponent(name: string, data: unknown): string[];
}

function format(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? [])
    .slice(0, 10)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

export async function loadOracle(dir = OPENAPI_DIR): Promise<Oracle | null> {
  const accountingFile = path.join(dir, 'xero_accounting.yaml');
  const identityFile = path.join(dir, 'xero-identity.yaml');
  if (!existsSync(accountingFile) || !existsSync(identityFile)) return null;
  const accounting = clean(YAML.parse(await readFile(accountingFile, 'utf8'))) as Node;
  const identity = clean(YAML.parse(await readFile(identityFile, 'utf8'))) as Node;
  // Real /connections dates have no offset ("2019-12-07T18:46:19.5165400"), which strict date-time refuses.
  const conn = ((identity.components as Node).schemas as Node).Connection as Node;
  for (const key of ['createdDateUtc', 'updatedDateUtc'])
    delete ((conn.properties as Node)[key] as Node).format;

  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
  addFormats(ajv);
  ajv.addSchema({ ...accounting, $id: 'accounting' });
  ajv.addSchema({ ...identity, $id: 'identity' });
  const docs = { accounting, identity };
  const cache = new Map<string, ReturnType<Ajv['compile']>>();
  const validator = (ref: string) => {
    let v = cache.get(ref);
    if (!v) {
      v = ajv.compile({ $ref: ref });
      cache.set(ref, v);
    }
    return v;
  };
  const operation = (spec: 'accounting' | 'identity', method: string, specPath: string): Node => {
    const paths = docs[spec].paths as Node;
    const item = paths[specPath];
    if (!isNode(item)) throw new Error(`no path ${specPath} in ${spec}`);
    const op = item[method.toLowerCase()];
    if (!isNode(op)) throw new Error(`no ${method} ${specPath} in ${spec}`);
    return op;
  };
  return {
    validateResponse(spec, method, specPath, status, body) {
      const op = operation(spec, method, specPath);
      let response = (op.responses as Node)[String(status)];
      let base = `${spec}#/paths/${pointer(specPath, method.toLowerCase(), 'responses', String(status))}`;
      if (isNode(response) && typeof response.$ref === 'string') {
        base = `${spec}${response.$ref
          .split('/')
          .map((p, i) => (i === 0 ? p : encodeURIComponent(p)))
          .join('/')}`;
        const name = response.$ref.split('/').pop() ?? '';
        response = ((docs[spec].components as Node).responses as Node)[name];
      }
      if (!isNode(response)) return [`${method} ${specPath} documents no ${status} answer`];
      const content = response.content as Node | undefined;
      if (!content?.['application/json'])
        return body === undefined || body === ''
          ? []
          : [`${method} ${specPath} ${status} documents no JSON body`];
      const validate = validator(`${base}/content/${encodeURIComponent('application~1json')}/schema`);
      return validate(body) ? [] : format(validate.errors);
    },
    validateRequest(method, specPath, body) {
      const op = operation('accounting', method, specPath);
      if (!isNode(op.requestBody)) return [`${method} ${specPath} takes no body`];
      const validate = validator(
        `accounting#/paths/${pointer(specPath, method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema')}`,
      );
      return validate(body) ? [] : format(validate.errors);
    },
    validateComponent(name, data) {
      const validate = validator(`accounting#/components/schemas/${name}`);
      return validate(data) ? [] : format(validate.errors);
    },
  };
}
