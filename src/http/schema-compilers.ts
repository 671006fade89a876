import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Route schemas compiled once per process rather than once per app. Fastify makes a new Ajv and
 * compiles every route's schemas again for each instance it builds; a process that builds several
 * apps (`serve` beside its admin and metrics listeners, the tests, which build one or two for each
 * suite) paid that each time: a quarter of the API tests' CPU. A validator or serializer depends only
 * on its schema's content and the compiler's options, so both are kept by that content: a route that
 * builds its schema object afresh for each app (a plugin's options, both environments) finds the
 * function the first app compiled. Serializers are also kept by status and content type. Each is
 * compiled at its first use (`atFirstUse`).
 */
type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type Route = { schema: object; httpStatus?: string; contentType?: string };
type Build = (externalSchemas: unknown, options: unknown) => (route: Route) => unknown;

/** Each schema object's JSON, worked out once per object. */
const contents = new WeakMap<object, string>();
const contentOf = (schema: object) => {
  let json = contents.get(schema);
  if (json === undefined) contents.set(schema, (json = JSON.stringify(schema)));
  return json;
};

/** A compiler factory whose functions are kept by the compiler's options and the schema's content (and `part`). */
function kept(factory: Build, part: (route: Route) => string): Build {
  const byCompiler = new Map<string, Map<string, Compiled>>();
  return (externalSchemas, options) => {
    const build = factory(externalSchemas, options);
    const compiler = JSON.stringify([externalSchemas, options]);
    let built = byCompiler.get(compiler);
    if (!built) byCompiler.set(compiler, (built = new Map()));
    return (route) => {
      const key = `${part(route)}\0${contentOf(route.schema)}`;
      let compiled = built.get(key);
      if (compiled === undefined) built.set(key, (compiled = atFirstUse(() => build(route))));
      return compiled;
    };
  };
}

type Compiled = ((...args: unknown[]) => unknown) & { errors?: unknown; schemaEnv?: unknown };

/**
 * A validator or serializer compiled when a request first needs it, not when the app is built: a
 * server start compiled every route's schemas (Ajv 144 ms and fast-json-stringify 39 ms of a 1.25 s
 * start, in a --cpu-prof), though a process answers a few of its routes, or none (a worker, a CLI
 * command). Fastify reads an Ajv validator's `schemaEnv` before calling it and its `errors` after,
 * so both are passed through; reading `schemaEnv` compiles.
 */
function atFirstUse(compile: () => unknown): Compiled {
  let compiled: Compiled | undefined;
  const get = () => (compiled ??= compile() as Compiled);
  const call = (...args: unknown[]) => get()(...args);
  Object.defineProperties(call, {
    schemaEnv: { get: () => get().schemaEnv },
    errors: { get: () => compiled?.errors },
  });
  return call;
}

export const schemaCompilers: Compilers = {
  buildValidator: kept(AjvCompiler() as unknown as Build, () => '') as unknown as Compilers['buildValidator'],
  buildSerializer: kept(
    SerializerSelector() as unknown as Build,
    (route) => `${route.httpStatus ?? ''} ${route.contentType ?? ''}`,
  ) as unknown as Compilers['buildSerializer'],
};
