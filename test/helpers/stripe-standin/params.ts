import { invalidRequest, missingParam, unknownParam, unmodelledParam } from './errors.ts';

/**
 * Stripe's request encoding: `application/x-www-form-urlencoded` (or the query string) with bracket
 * notation, `metadata[k]=v`, `expand[0]=a`, `card[number]=…`, `expand[]=a`. Parsed into nested nodes,
 * then checked against the parameters Stripe documents for the endpoint.
 */
export type FormNode = string | FormObject;
export interface FormObject {
  [key: string]: FormNode;
}

export function parseForm(text: string): FormObject {
  const root: FormObject = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const open = rawKey.indexOf('[');
    const path =
      open === -1
        ? [rawKey]
        : [rawKey.slice(0, open), ...[...rawKey.slice(open).matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!)];
    if (
      open !== -1 &&
      path
        .slice(1)
        .map((p) => `[${p}]`)
        .join('') !== rawKey.slice(open)
    )
      throw invalidRequest(`Invalid parameter name: ${rawKey}`);
    let node = root;
    for (let i = 0; i < path.length; i++) {
      let key = path[i]!;
      if (key === '' && i > 0) key = String(Object.keys(node).length); // `expand[]=a`: the next index
      if (i === path.length - 1) {
        if (typeof node[key] === 'object')
          throw invalidRequest(`Invalid ${describe(path, i)}: cannot be both a value and a hash`, {
            param: describe(path, i),
          });
        node[key] = value;
      } else {
        const next = node[key];
        if (typeof next === 'string')
          throw invalidRequest(`Invalid ${describe(path, i)}: cannot be both a value and a hash`, {
            param: describe(path, i),
          });
        node = next ?? (node[key] = {});
      }
    }
  }
  return root;
}

const describe = (path: string[], upTo: number) =>
  path[0] +
  path
    .slice(1, upTo + 1)
    .map((p) => `[${p}]`)
    .join('');

export type Schema =
  | { t: 'string'; enum?: readonly string[]; max?: number; unsettable?: boolean; lower?: boolean }
  | { t: 'integer'; min?: number }
  | { t: 'boolean' }
  | { t: 'metadata' }
  | { t: 'array'; of: Schema; unsettable?: boolean }
  | {
      t: 'object';
      props: Record<string, Schema>;
      documented?: readonly string[];
      required?: readonly string[];
      unsettable?: boolean;
    }
  /** An integer timestamp or a range `{gt, gte, lt, lte}` (list filters such as `created`). */
  | { t: 'range' };

export interface EndpointSchema {
  /** Every top-level parameter Stripe documents for this endpoint (from the SDK's types for API 2026-10-28). */
  documented: readonly string[];
  /** The ones the stand-in models. */
  props: Record<string, Schema>;
  required?: readonly string[];
}

export type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

const oneOf = (values: readonly string[]) =>
  values.length <= 2 ? values.join(' or ') : `${values.slice(0, -1).join(', ')}, or ${values[values.length - 1]}`;

function check(node: FormNode, schema: Schema, param: string): Value {
  if (node === '' && schema.t !== 'string') {
    if ('unsettable' in schema && schema.unsettable) return null;
    if (schema.t === 'metadata') return null;
    throw emptyError(param);
  }
  switch (schema.t) {
    case 'string': {
      if (typeof node !== 'string')
        throw invalidRequest(`Invalid string: ${param} must be a string, not a hash`, { param });
      if (node === '') {
        if (schema.unsettable) return null;
        throw emptyError(param);
      }
      const value = schema.lower ? node.toLowerCase() : node;
      if (schema.enum && !schema.enum.includes(value))
        throw invalidRequest(`Invalid ${param}: must be one of ${oneOf(schema.enum)}`, { param });
      if (schema.max !== undefined && value.length > schema.max)
        throw invalidRequest(`Invalid string: ${value}; must be at most ${schema.max} characters`, { param });
      return value;
    }
    case 'integer': {
      if (typeof node !== 'string' || !/^-?\d+$/.test(node))
        throw invalidRequest(`Invalid integer: ${typeof node === 'string' ? node : 'hash'}`, {
          code: 'parameter_invalid_integer',
          param,
        });
      const value = Number(node);
      if (!Number.isSafeInteger(value))
        throw invalidRequest(`Invalid integer: ${node}`, { code: 'parameter_invalid_integer', param });
      if (schema.min !== undefined && value < schema.min)
        throw invalidRequest(`This value must be greater than or equal to ${schema.min}.`, {
          code: 'parameter_invalid_integer',
          param,
        });
      return value;
    }
    case 'boolean':
      if (node === 'true') return true;
      if (node === 'false') return false;
      throw invalidRequest(`Invalid boolean: ${typeof node === 'string' ? node : 'hash'}`, { param });
    case 'metadata': {
      if (typeof node === 'string')
        throw invalidRequest('Invalid metadata: metadata must be a set of key-value pairs', { param });
      const entries = Object.entries(node);
      if (entries.length > 50) throw invalidRequest('Invalid metadata: metadata can have at most 50 keys', { param });
      const out: Record<string, string> = {};
      for (const [key, value] of entries) {
        if (typeof value !== 'string')
          throw invalidRequest(`Invalid metadata: ${param}[${key}] must be a string, not a hash`, {
            param: `${param}[${key}]`,
          });
        if (key.length > 40)
          throw invalidRequest(`Invalid metadata: keys can be at most 40 characters long (${key})`, {
            param: `${param}[${key}]`,
          });
        if (value.length > 500)
          throw invalidRequest(`Invalid metadata: values can be at most 500 characters long`, {
            param: `${param}[${key}]`,
          });
        out[key] = value;
      }
      return out;
    }
    case 'array': {
      if (typeof node === 'string') throw invalidRequest(`Invalid array`, { param });
      const keys = Object.keys(node);
      if (!keys.every((k) => /^\d+$/.test(k))) throw invalidRequest(`Invalid array`, { param });
      return keys
        .map(Number)
        .sort((a, b) => a - b)
        .map((i) => check(node[String(i)]!, schema.of, `${param}[${i}]`));
    }
    case 'object': {
      if (typeof node === 'string') throw invalidRequest(`Invalid object`, { param });
      return checkObject(node, schema.props, schema.documented, schema.required ?? [], (k) => `${param}[${k}]`);
    }
    case 'range': {
      if (typeof node === 'string') return check(node, { t: 'integer' }, param);
      return checkObject(
        node,
        { gt: { t: 'integer' }, gte: { t: 'integer' }, lt: { t: 'integer' }, lte: { t: 'integer' } },
        undefined,
        [],
        (k) => `${param}[${k}]`,
      );
    }
  }
}

const emptyError = (param: string) =>
  invalidRequest(
    `You passed an empty string for '${param}'. We assume empty values are an attempt to unset a parameter; however '${param}' cannot be unset. You should remove '${param}' from your request or supply a non-empty value.`,
    { code: 'parameter_invalid_empty', param },
  );

function checkObject(
  node: FormObject,
  props: Record<string, Schema>,
  documented: readonly string[] | undefined,
  required: readonly string[],
  name: (key: string) => string,
): { [key: string]: Value } {
  for (const key of Object.keys(node)) {
    if (props[key]) continue;
    if (documented?.includes(key)) throw unmodelledParam(name(key));
    throw unknownParam(name(key));
  }
  for (const key of required) if (node[key] === undefined) throw missingParam(name(key));
  const out: { [key: string]: Value } = {};
  for (const [key, value] of Object.entries(node)) out[key] = check(value, props[key]!, name(key));
  return out;
}

/** Checks a request's parameters against the endpoint: unknown → parameter_unknown, missing → parameter_missing, wrong type → parameter_invalid_*. */
export function validate(params: FormObject, schema: EndpointSchema): Record<string, Value> {
  return checkObject(params, schema.props, schema.documented, schema.required ?? [], (k) => k);
}

// Shared pieces of schemas.
export const S = {
  string: { t: 'string' } as Schema,
  unsettableString: { t: 'string', unsettable: true } as Schema,
  id: { t: 'string' } as Schema,
  boolean: { t: 'boolean' } as Schema,
  metadata: { t: 'metadata' } as Schema,
  expand: { t: 'array', of: { t: 'string' } } as Schema,
  limit: { t: 'integer', min: 1 } as Schema,
  enum: (...values: string[]): Schema => ({ t: 'string', enum: values }),
};
