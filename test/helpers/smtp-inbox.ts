import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on loopback that keeps what it accepts, parsed: where the tests' customer
 * e-mails land. It can refuse for a while (451 to every recipient, as a full or throttling server
 * answers), reject one address for good (550), or hang on a message until the test lets it answer.
 */
export interface SmtpInbox {
  /** `smtp://127.0.0.1:<port>` for SMTP_URL. */
  url: string;
  messages: ParsedMail[];
  /** While true, every message is refused with a temporary 451. */
  refusing: boolean;
  /** Addresses answered with a permanent 550 (no such mailbox). */
  unknownMailboxes: Set<string>;
  /** Called as each message is accepted, before the client hears so. */
  onAccept?: (mail: ParsedMail) => void;
  /**
   * From now on, a message's data is read but not answered (a server that hangs) until `release`:
   * then it is accepted or refused (451) as told. `arrived` resolves when the first held message is in.
   */
  hold(): { arrived: Promise<void>; release(outcome: 'accept' | 'refuse'): void };
  /** The messages to an address. */
  to(address: string): ParsedMail[];
  close(): Promise<void>;
}

export async function startSmtpInbox(): Promise<SmtpInbox> {
  let held: { arrive: () => void; outcome: Promise<'accept' | 'refuse'> } | undefined;
  const inbox: SmtpInbox = {
    url: '',
    messages: [],
    refusing: false,
    unknownMailboxes: new Set(),
    to: (address) =>
      inbox.messages.filter((m) =>
        [m.to].flat().some((t) => t?.value.some((v) => v.address?.toLowerCase() === address.toLowerCase())),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    hold() {
      let arrive!: () => void;
      let release!: (outcome: 'accept' | 'refuse') => void;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const outcome = new Promise<'accept' | 'refuse'>((resolve) => (release = resolve));
      held = { arrive, outcome };
      return {
        arrived,
        release(answer) {
          held = undefined;
          release(answer);
        },
      };
    },
  };
  const refuse = (message: string, responseCode: number) => Object.assign(new Error(message), { responseCode });
  const server = new SMTPServer({
    authOptional: true,
    // Loopback without TLS: a login is taken as it would be over TLS, and any user may log in.
    allowInsecureAuth: true,
    onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (inbox.refusing) return callback(refuse('Try again later', 451));
      if (inbox.unknownMailboxes.has(address.address.toLowerCase())) return callback(refuse('No such mailbox', 550));
      callback();
    },
    onData(stream, _session, callback) {
      const hold = held;
      simpleParser(stream)
        .then(async (mail) => {
          if (hold) {
            hold.arrive();
            if ((await hold.outcome) === 'refuse') return callback(refuse('Try again later', 451));
          }
          inbox.messages.push(mail);
          inbox.onAccept?.(mail);
          callback();
        })
        .catch(callback);
    },
  });
  // A client killed mid-conversation resets its connection: that is what some tests do, not a failure of the server.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  inbox.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return inbox;
}
