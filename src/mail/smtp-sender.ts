import { createRequire } from 'node:module';
import type Nodemailer from 'nodemailer';
import type { EmailSender, OutgoingEmail, SendResult } from '../domain/notifications/index.ts';

/** nodemailer, loaded when the first transport is made: without SMTP_URL nothing needs its 39 modules. */
const require = createRequire(import.meta.url);
const nodemailer = () => require('nodemailer') as typeof Nodemailer;

/** What nodemailer's errors carry: the SMTP reply code when the server answered, a code of its own otherwise. */
interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
}

/**
 * Customer e-mails over SMTP (nodemailer): one pool of connections per process, bounded waits so a
 * server that stops answering holds the e-mail loop for seconds, not for its lease. A send given up
 * (its `signal` aborted) takes the pool down with it, so the next send connects anew instead of
 * queueing behind a connection that will never answer.
 */
export function smtpSender(url: string): EmailSender {
  const connect = () =>
    nodemailer().createTransport({
      url,
      pool: true,
      maxConnections: 2,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
  let transport = connect();
  return {
    async send(email: OutgoingEmail, signal?: AbortSignal): Promise<SendResult> {
      const sending = transport;
      const drop = () => {
        sending.close();
        if (transport === sending) transport = connect();
      };
      signal?.addEventListener('abort', drop, { once: true });
      try {
        await sending.sendMail({
          from: email.from,
          replyTo: email.replyTo,
          to: email.to,
          subject: email.subject,
          text: email.text,
          html: email.html,
          messageId: email.messageId,
        });
        return { status: 'SENT' };
      } catch (err) {
        return refusal(err as SmtpError);
      } finally {
        signal?.removeEventListener('abort', drop);
      }
    },
    close: () => transport.close(),
  };
}

/**
 * A server's 5xx to the message or its recipient is final (no such mailbox, refused content): trying
 * again cannot help. Everything else (4xx, a connection refused or cut, a timeout, a login refused
 * until the operator fixes it) is tried again. The reason is the server's reply or the error's code,
 * which carries no message content.
 */
export function refusal(err: SmtpError): SendResult {
  const code = err.responseCode;
  const permanent =
    code !== undefined && code >= 500 && code < 600 && (err.code === 'EENVELOPE' || err.code === 'EMESSAGE');
  const reason = (err.response ?? `${err.code ?? 'ERROR'}: ${err.message}`).replace(/\s+/g, ' ').slice(0, 300);
  return { status: 'REFUSED', permanent, reason };
}

/** Where SMTP_URL points, without its user or password: what logs and `opentill doctor` may show. */
export function smtpHost(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}`;
}

/** Connects and logs in as a send would, sending nothing: undefined when the server took it, else why not. */
export async function smtpProbe(url: string): Promise<string | undefined> {
  const transport = nodemailer().createTransport({
    url,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 10_000,
  });
  try {
    await transport.verify();
    return undefined;
  } catch (err) {
    const refused = refusal(err as SmtpError);
    return refused.status === 'REFUSED' ? refused.reason : undefined;
  } finally {
    transport.close();
  }
}
