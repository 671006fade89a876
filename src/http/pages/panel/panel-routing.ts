import type { FastifyReply, FastifyRequest } from 'fastify';
import { localeFromAcceptLanguage } from '../../../domain/money/index.ts';
import type { AppError } from '../../../domain/errors.ts';
import type { Environment, Scope } from '../../../domain/model.ts';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import type { Services } from '../../../services.ts';
import type { FormBody } from '../form-body.ts';
import type { Html } from '../layout.ts';
import type { Section } from './panel-layout.ts';

export type PageExtra = { status?: number; notice?: string | undefined; error?: string | undefined; form?: FormBody };

/** What a signed-in GET page does, once the session and the environment are known. */
export type ViewRun<P extends Record<string, string>> = (
  session: PanelSession,
  environment: Environment,
  request: FastifyRequest<{ Params: P }>,
  reply: FastifyReply,
) => Promise<unknown>;

/** What a form shows when the domain refuses it: its page again, with the error and what was typed. */
export type ActionError = (
  reply: FastifyReply,
  session: PanelSession,
  environment: Environment,
  error: string,
  form: FormBody,
  failure: AppError,
  request: FastifyRequest,
) => Promise<unknown>;

/** What a form does, in the scope of the environment it was sent in. */
export type ActionRun = (
  session: PanelSession,
  scope: Scope,
  form: FormBody,
  reply: FastifyReply,
  request: FastifyRequest,
) => Promise<unknown>;

export type ActionConfig = { rateLimit?: { max: number; timeWindow: number } };

/** How one panel page is framed, beyond its section, title and content. */
export type PageOptions = PageExtra & { switchPath?: string; styleAttributes?: boolean };

/**
 * The one context every section of the panel registers its routes over (panel-context.ts builds it):
 * signed-in views and actions, and its page frame.
 */
export interface PanelRouting {
  services: Services;
  view<P extends Record<string, string>>(path: string, run: ViewRun<P>): unknown;
  action(path: string, onError: ActionError, run: ActionRun, config?: ActionConfig): unknown;
  page(
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    section: Section,
    title: string,
    content: Html,
    options?: PageOptions,
  ): Promise<unknown>;
  notFound(
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    section: Section,
    what: string,
  ): Promise<unknown>;
  to(reply: FastifyReply, path: string, environment: Environment, done: string): unknown;
  noticeOf(request: FastifyRequest): string | undefined;
}

/** Amounts in the vendor's locale, from its browser (Accept-Language), else en-US. */
export const vendorLocale = (request: FastifyRequest) =>
  localeFromAcceptLanguage(request.headers['accept-language'], 'en-US');

/** The signed-in vendor's scope in the environment a page shows. */
export const scopeOf = (session: PanelSession, environment: Environment): Scope => ({
  vendorId: session.user.vendorId,
  environment,
});

/** A file to download (a CSV, a PDF): never cached, never sniffed as something else. */
export function sendDownload(reply: FastifyReply, filename: string, type: string, body: string | Buffer) {
  return reply
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .type(type)
    .send(body);
}
