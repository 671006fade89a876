import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidInput } from '../domain/errors.ts';

/** True when a string anywhere in value (keys included) holds U+0000. Iterative: bodies may nest deeply. */
function containsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return true;
    } else if (Array.isArray(item)) {
      for (const element of item) stack.push(element);
    } else if (item !== null && typeof item === 'object') {
      // for…in, not Object.entries: no array per object on every request's params and query.
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue;
        if (key.includes('\u0000')) return true;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
  }
  return false;
}

/** The 400 for a part of a request holding U+0000, or undefined when it holds none. */
export function nulIn(part: 'path' | 'query' | 'body', value: unknown): Error | undefined {
  return containsNul(value)
    ? invalidInput(`The ${part} contains the NUL character (U+0000), which no field may hold.`)
    : undefined;
}

/**
 * No store can keep U+0000 in text (PostgreSQL refuses it): refuse it as input, before any handler
 * runs. A hook that reads the store earlier (a licence key sent alone, licence-key-access.ts) asks `nulIn` itself.
 */
export function refuseNul(app: FastifyInstance) {
  // Synchronous: it runs on every API request, and a promise per request is measurable on the read path.
  app.addHook('preValidation', (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    done(nulIn('path', request.params) ?? nulIn('query', request.query) ?? nulIn('body', request.body));
  });
}
