import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Route schemas compiled once per process rather than once per app. Fastify makes a new Ajv and
 * compiles every route's schemas again for each instance it builds; a process that builds several
 * apps (`serve` beside its admin and metrics listeners, the tests) paid that each time. The route
 * schemas are module constants, so the same object always compiles to the same function: validators
 * share one Ajv per set of options (which caches by schema object), serializers are kept by schema
 * object, status and content type under the key of the options they were built with.
 */
type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type SerializerRoute = { schema: object; httpStatus?: string; contentType?: string };

const validators = AjvCompiler();
const serializers = SerializerSelector();
const builtSerializers = new Map<string, WeakMap<object, Map<string, unknown>>>();

function keptSerializer(key: string, route: SerializerRoute, build: () => unknown) {
  let bySchema = builtSerializers.get(key);
  if (!bySchema) builtSerializers.set(key, (bySchema = new WeakMap()));
  let byReply = bySchema.get(route.schema);
  if (!byReply) bySchema.set(route.schema, (byReply = new Map()));
  const reply = `${route.httpStatus ?? ''} ${route.contentType ?? ''}`;
  if (!byReply.has(reply)) byReply.set(reply, build());
  return byReply.get(reply);
}

export const schemaCompilers: Compilers = {
  buildValidator: validators as Compilers['buildValidator'],
  buildSerializer: ((externalSchemas: unknown, options: unknown) => {
    const build = (serializers as (e: unknown, o: unknown) => (route: SerializerRoute) => unknown)(
      externalSchemas,
      options,
    );
    const key = JSON.stringify([externalSchemas, options]);
    return (route: SerializerRoute) => keptSerializer(key, route, () => build(route));
  }) as Compilers['buildSerializer'],
};
