import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Scope } from '../domain/model.ts';
import type { Services } from '../services.ts';

export type V1App = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;

declare module 'fastify' {
  interface FastifyRequest {
    /** The vendor and environment the Authorization header grants (set by the v1 auth hook). */
    scope: Scope;
    idempotencyKey: string | null;
  }
}

export interface V1Context {
  services: Services;
  environment: Scope['environment'];
}

export const scopeOf = (request: FastifyRequest): Scope => request.scope;
