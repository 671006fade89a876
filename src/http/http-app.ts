import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, RawServerDefault } from 'fastify';
import type { Environment, Scope } from '../domain/model.ts';
import type { Services } from '../services.ts';

/** The Fastify instance every plugin of the app receives: typed by the TypeBox schemas of its routes. */
export type HttpApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What a plugin of one environment (production at /, the sandbox at /sandbox) is registered with. */
export interface EnvironmentContext {
  services: Services;
  environment: Environment;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The vendor and environment the Authorization header grants (set by the v1 auth hook). */
    scope: Scope;
    idempotencyKey: string | null;
  }
  interface FastifyContextConfig {
    /**
     * The route reads or writes stored records, and neither its answer nor what it writes depends on
     * the time: a sandbox request to it skips loading the vendor's clock (a database read on every
     * other sandbox request).
     */
    timeless?: boolean;
    /**
     * A page route's own answer when what it needs is unavailable for a moment (SERVICE_UNAVAILABLE),
     * instead of the problem page: the checkout's form sent again as the buyer typed it.
     */
    whileUnavailable?: (request: FastifyRequest, reply: FastifyReply) => unknown;
  }
}

/** Where each environment lives: production at the root, the sandbox under /sandbox. */
export const ENVIRONMENT_PREFIXES = [
  ['production', ''],
  ['sandbox', '/sandbox'],
] as const satisfies readonly (readonly [Environment, string])[];
