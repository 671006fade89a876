import { loadConfig, type Config } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import type { Services } from '../services.ts';
import { fail, io } from './output.ts';

/** The configuration, or an exit with its reason: a bad setting is the operator's to fix, not a stack trace. */
export function configOrFail(json = false): Config {
  try {
    return loadConfig(io().env);
  } catch (err) {
    fail((err as Error).message, json);
  }
}

/**
 * Runs a command against the domain services and closes the database after it. Every command
 * migrates first (docs/decisions.md, "11. Configuration and operation"); `applied` is what that run did.
 */
export async function withServices<T>(fn: (services: Services, applied: string[]) => Promise<T>): Promise<T> {
  const config = configOrFail();
  // Loaded here, not at the top: `opentill --help` and a mistyped command need none of the application.
  const { createServices } = await import('../services.ts');
  // Typed as `Services`, not the `Wiring` createServices returns: commands reach the domain, never the store.
  const services: Services = createServices(config);
  try {
    const applied = await services.maintenance.migrate();
    return await fn(services, applied);
  } finally {
    await services.close();
  }
}

/**
 * Commands that name a vendor check it before anything else, so a mistyped id is reported as
 * such rather than as a missing product or credential further on.
 */
export async function requireVendor(
  services: Pick<Services, 'catalog'>,
  vendorId: string,
  json: boolean,
): Promise<void> {
  try {
    await services.catalog.requireVendor(vendorId);
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') fail(`There is no vendor ${vendorId}.`, json);
    throw err;
  }
}
