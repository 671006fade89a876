import type { Config } from './config.ts';
import type { VendorClock } from './domain/clock.ts';
import type { EmailSender } from './domain/notifications/index.ts';
import type { Store, WebhookEndpoint } from './domain/ports.ts';
import {
  webhookService,
  type WebhookOptions,
  type WebhookService,
  type WebhookTransport,
} from './domain/webhooks/index.ts';
import { changedTransaction, entry } from './http/presenters.ts';
import { smtpSender } from './mail/smtp-sender.ts';
import { html } from './markup/html.ts';
import { webhookTransport } from './outbound/webhook-transport.ts';

/** The part of `Services` that is outbound webhooks (src/services.ts stays one screen of wiring). */
export interface WebhookServices {
  /** Vendors' webhook endpoints, and the outbox the worker sends (docs/decisions.md §27). */
  readonly webhooks: WebhookService;
}

export interface WebhookOverrides {
  /** The network (node's HTTP client unless given) and the outbox's timings. */
  webhooks?: { transport?: WebhookTransport; options?: WebhookOptions; sender?: EmailSender };
}

/** Tells the vendor by e-mail that an endpoint was disabled, when the operator set SMTP_URL. */
function disabledNotice(config: Config, store: Store, given: EmailSender | undefined) {
  const from = config.smtp?.from;
  const url = config.smtp?.url;
  if ((!given && url === undefined) || from === undefined) return undefined;
  return async (endpoint: WebhookEndpoint) => {
    // A connection of its own, closed after: an endpoint is disabled seldom, and nothing is left open.
    const vendor = await store.vendors.find(endpoint.scope.vendorId);
    if (!vendor) return;
    const sender = given ?? smtpSender(url!);
    const lines = [
      `Your ${endpoint.scope.environment} webhook endpoint ${endpoint.url} was disabled.`,
      endpoint.disabledReason ?? '',
      'Its events wait in the outbox. Fix the receiver, then enable the endpoint again in the panel (Developers) or with opentill webhook enable: what waited is sent then, and the log replays what was given up.',
    ];
    const subject = `Webhook endpoint disabled: ${endpoint.url}`;
    const body = html`<p>${lines[0]}</p><p>${lines[1]}</p><p>${lines[2]}</p>`;
    await sender
      .send({
        subject,
        html: body.text,
        text: lines.join('\n\n'),
        from: { name: 'opentill', address: from },
        replyTo: from,
        to: vendor.email,
        messageId: `<${endpoint.id}.disabled@opentill>`,
      })
      .catch(() => undefined)
      .finally(() => {
        if (!given) sender.close();
      });
  };
}

export function webhookServices(
  config: Config,
  overrides: WebhookOverrides,
  base: { store: Store; clock: VendorClock },
): WebhookServices {
  return {
    webhooks: webhookService(
      {
        store: base.store,
        clock: base.clock,
        transport: overrides.webhooks?.transport ?? webhookTransport(),
        serverSecret: config.secret,
        allowPrivate: config.webhooksAllowPrivate,
        present: { transaction: changedTransaction, entry },
        notifyDisabled: disabledNotice(config, base.store, overrides.webhooks?.sender),
      },
      overrides.webhooks?.options,
    ),
  };
}
