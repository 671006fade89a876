/**
 * A child process for the SIGKILL tests of customer e-mails: it opens the test's database and runs
 * the e-mail worker until nothing is due, through real SMTP to the test's loopback server. It can
 * kill itself just before handing the n-th message to SMTP (`killBefore`), or just after the server
 * accepted it and before the outbox heard (`killAfterAccept`: the one window where a message may go
 * twice), and it can pause a random moment around each message so a kill from outside lands anywhere.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../src/config.ts';
import type { EmailSender } from '../../src/domain/notifications/customer-email-model.ts';
import { smtpSender } from '../../src/mail/smtp-sender.ts';
import { createServices } from '../../src/services.ts';
import { openPostgres } from '../../src/store/postgres-database.ts';
import { openSqlite } from '../../src/store/sqlite-database.ts';

export interface EmailChildJob {
  url?: string | undefined;
  file?: string | undefined;
  smtpUrl: string;
  leaseMs: number;
  killBefore?: number;
  killAfterAccept?: number;
  pauseMs?: number;
}

const job = JSON.parse(process.argv[2]!) as EmailChildJob;
const database = job.url ? openPostgres(job.url, 2) : openSqlite(job.file!);
const config = loadConfig({
  OPENTILL_SECRET: 'email-child-secret-0123456789-0123456789',
  OPENTILL_DATA_DIR: '/tmp/opentill-email-child',
  LOG_LEVEL: 'silent',
  SMTP_URL: job.smtpUrl,
  SMTP_FROM: 'receipts@opentill.test',
  SMTP_SANDBOX_TO: 'customers',
});
const smtp = smtpSender(job.smtpUrl);
const pause = () => (job.pauseMs ? sleep(Math.random() * job.pauseMs) : Promise.resolve());
let n = 0;
const sender: EmailSender = {
  async send(email) {
    const i = n++;
    if (i === job.killBefore) process.kill(process.pid, 'SIGKILL');
    await pause();
    const result = await smtp.send(email);
    if (i === job.killAfterAccept) process.kill(process.pid, 'SIGKILL');
    await pause();
    process.stdout.write(`sent ${i}\n`);
    return result;
  },
  close: () => smtp.close(),
};
const services = createServices(config, {
  database,
  emails: { sender, options: { leaseMs: job.leaseMs, batchSize: 3 } },
});
const report = await services.emails.runDue(Infinity);
process.stdout.write(`report ${JSON.stringify(report)}\n`);
await services.close();
