import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Environment, Scope } from '../../../domain/model.ts';
import type { Services } from '../../../services.ts';

export type PublicApp = FastifyInstance<any, any, any, any, TypeBoxTypeProvider> & {
  /** The vendor scope that owns a product or customized product id; NOT_FOUND otherwise. */
  ownerOf(productId: string): Promise<Scope>;
};

export interface PublicContext {
  services: Services;
  environment: Environment;
}
