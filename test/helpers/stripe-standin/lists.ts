import { invalidRequest } from './errors.ts';
import { S } from './params.ts';
import type { Obj } from './store.ts';

/** Stripe's list endpoints: cursor pagination (newest first), `created`-style ranges, `expand[]=data.…`. */

export const PAGINATION = ['ending_before', 'limit', 'starting_after'];
export const EXPAND = { expand: S.expand };
export const LIST = { limit: S.limit, starting_after: S.id, ending_before: S.id, expand: S.expand };
export const listExpands = (expands: string[]) => expands.map((e) => `data.${e}`);

export function paginate(items: Obj[], p: Record<string, any>, url: string): Obj {
  if (p.starting_after && p.ending_before)
    throw invalidRequest('You may only specify one of these parameters: starting_after, ending_before.');
  const limit = p.limit ?? 10;
  if (limit > 100)
    throw invalidRequest('This value must be less than or equal to 100.', {
      code: 'parameter_invalid_integer',
      param: 'limit',
    });
  let start = 0;
  let end = items.length;
  if (p.starting_after) {
    const i = items.findIndex((o) => o.id === p.starting_after);
    if (i === -1)
      throw invalidRequest(`No such object: '${p.starting_after}'`, {
        code: 'resource_missing',
        param: 'starting_after',
      });
    start = i + 1;
  }
  if (p.ending_before) {
    const i = items.findIndex((o) => o.id === p.ending_before);
    if (i === -1)
      throw invalidRequest(`No such object: '${p.ending_before}'`, {
        code: 'resource_missing',
        param: 'ending_before',
      });
    end = i;
    start = Math.max(0, end - limit);
  }
  const page = items.slice(start, Math.min(end, start + limit));
  const hasMore = p.ending_before ? start > 0 : start + limit < end;
  return { object: 'list', data: page, has_more: hasMore, url };
}

export function inRange(value: number, range: unknown): boolean {
  if (range === undefined) return true;
  if (typeof range === 'number') return value === range;
  const r = range as Record<string, number>;
  return (
    (r.gt === undefined || value > r.gt) &&
    (r.gte === undefined || value >= r.gte) &&
    (r.lt === undefined || value < r.lt) &&
    (r.lte === undefined || value <= r.lte)
  );
}
