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

/** What the panel's routes share with this section: signed-in views and actions, and its page frame. */
export interface PanelRouting {
  services: Services;
  view<P extends Record<string, string>>(
    path: string,
    run: (
      session: PanelSession,
      environment: Environment,
      request: FastifyRequest<{ Params: P }>,
      reply: FastifyReply,
    ) => Promise<unknown>,
  ): unknown;
  action(
    path: string,
    onError: (
      reply: FastifyReply,
      session: PanelSession,
      environment: Environment,
      error: string,
      form: FormBody,
      failure: AppError,
      request: FastifyRequest,
    ) => Promise<unknown>,
    run: (
      session: PanelSession,
      scope: Scope,
      form: FormBody,
      reply: FastifyReply,
      request: FastifyRequest,
    ) => Promise<unknown>,
    config?: { rateLimit?: { max: number; timeWindow: number } },
  ): unknown;
  page(
    reply: FastifyReply,
    session: PanelSession,
    environment: Environment,
    section: Section,
    title: string,
    content: Html,
    options?: PageExtra & { switchPath?: string; styleAttributes?: boolean },
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
