import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { formatDecimal, parseExchangeRateDays } from '../../src/domain/money/index.ts';
import {
  cli as runCli,
  failedWith as failedWithReason,
  parseJson,
  ROOT,
  succeeded,
  type CliResult,
} from '../helpers/cli.ts';

/**
 * `opentill rates import` and `opentill rates show` as an operator runs them (through the binary's entry,
 * test/helpers/cli.ts), each test with a data directory of its own.
 */
const SECRET = 'rates-test-secret-0123456789-0123456789'; // 40 characters
const BUNDLED = join(ROOT, 'src', 'files', 'exchange-rates.xml');
const cli = (args: string[], env: Record<string, string>) => runCli(args, { OPENTILL_SECRET: SECRET, ...env });

/** A fresh data directory per test, plus a scratch directory for the files to import. */
function sandboxDir(env: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'opentill-rates-'));
  const dir = join(root, 'data');
  return {
    dir,
    table: join(dir, 'exchange-rates.xml'),
    file(name: string, content: string) {
      const path = join(root, name);
      writeFileSync(path, content);
      return path;
    },
    run: (...args: string[]) => cli(args, { OPENTILL_DATA_DIR: dir, ...env }),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Rates commands fail with one line of reason. */
function failedWith(result: CliResult, message: RegExp) {
  failedWithReason(result, message);
  assert.equal(result.stderr.trim().split('\n').length, 1, `one line of reason:\n${result.stderr}`);
}

const ECB_XML = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<gesmes:subject>Reference rates</gesmes:subject>
	<gesmes:Sender>
		<gesmes:name>European Central Bank</gesmes:name>
	</gesmes:Sender>
	<Cube>
		<Cube time='2026-12-04'>
			<Cube currency='USD' rate='1.0815'/>
			<Cube currency='JPY' rate='162.37'/>
			<Cube currency='GBP' rate='0.85930'/>
			<Cube currency='CHF' rate='0.9612'/>
		</Cube>
	</Cube>
</gesmes:Envelope>
`;

const CSV = [
  '# ECB reference rates of 2026-12-05',
  'currency,rate',
  'USD,1.25',
  'jpy,150',
  'KWD,0.3845',
  'GBP, 0.8600 ',
  '',
].join('\r\n');

// Each test has its own data directory: they run side by side, as much of their time is waiting on files and the store.
describe('opentill rates', { concurrency: 3 }, () => {
  test('rates show prints the bundled table until one is imported', async () => {
    const d = sandboxDir();
    try {
      const text = await d.run('rates', 'show');
      succeeded(text);
      assert.match(text.stdout, /^Exchange rates dated \d{4}-\d{2}-\d{2}: \d+ currencies, units per 1 EUR\.$/m);
      assert.match(text.stdout, /^Source: .*exchange-rates\.xml \(the table bundled with opentill\)$/m);
      assert.match(text.stdout, /^ {2}USD {2}\d+\.\d+$/m);

      const json = parseJson(await d.run('rates', 'show', '--json'));
      assert.equal(json.source, 'bundled');
      // The compiled build carries its own copy of the bundled table.
      assert.deepEqual(readFileSync(json.file), readFileSync(BUNDLED));
      assert.equal(json.perEuro.EUR, '1');
      assert.match(json.perEuro.USD, /^\d+\.\d+$/);
      assert.equal(json.currencies, Object.keys(json.perEuro).length);
      assert.equal(existsSync(d.table), false, 'showing writes nothing');
    } finally {
      d.remove();
    }
  });

  test('rates import of an ECB XML writes the table to the data directory and rates show reads it back exactly', async () => {
    const d = sandboxDir();
    try {
      const imported = await d.run('rates', 'import', d.file('eurofxref-daily.xml', ECB_XML));
      succeeded(imported);
      assert.match(
        imported.stdout,
        /^Imported 5 currencies \(units per 1 EUR\) dated 2026-12-04 into .*exchange-rates\.xml\.$/m,
      );
      assert.match(imported.stdout, /restart it to use these rates/);
      assert.equal(existsSync(d.table), true);
      assert.deepEqual(
        readdirSync(d.dir)
          .filter((f) => f.includes('exchange-rates'))
          .sort(),
        ['exchange-rates-history.xml', 'exchange-rates.xml'],
        'the table and the days kept for tax returns; no temporary file is left behind',
      );

      const shown = parseJson(await d.run('rates', 'show', '--json'));
      assert.equal(shown.source, 'imported');
      assert.equal(shown.file, d.table);
      assert.equal(shown.date, '2026-12-04');
      // Exact decimals, as written: no float ever rounded 0.85930 to 0.8593.
      assert.deepEqual(shown.perEuro, { EUR: '1', USD: '1.0815', JPY: '162.37', GBP: '0.85930', CHF: '0.9612' });

      const text = await d.run('rates', 'show');
      succeeded(text);
      assert.match(text.stdout, /^Source: .*exchange-rates\.xml \(imported with `opentill rates import`\)$/m);
      assert.match(text.stdout, /^ {2}GBP {2}0\.85930$/m);
    } finally {
      d.remove();
    }
  });

  test('rates import of a CSV reads the date comment, the optional header and any case, and --json reports it', async () => {
    const d = sandboxDir();
    try {
      const imported = await d.run('rates', 'import', d.file('rates.csv', CSV), '--json');
      succeeded(imported);
      assert.deepEqual(parseJson(imported), {
        file: d.table,
        date: '2026-12-05',
        currencies: 5,
        restartRequired: true,
        overriddenBy: null,
        history: { file: join(d.dir, 'exchange-rates-history.xml'), days: 1 },
      });

      const shown = parseJson(await d.run('rates', 'show', '--json'));
      assert.equal(shown.date, '2026-12-05');
      assert.deepEqual(shown.perEuro, { EUR: '1', USD: '1.25', JPY: '150', KWD: '0.3845', GBP: '0.8600' });
      // What the service loads is the ECB format, whatever was imported.
      assert.match(
        readFileSync(d.table, 'utf8'),
        /<Cube time="2026-12-05">[\s\S]*<Cube currency="KWD" rate="0.3845"\/>/,
      );
    } finally {
      d.remove();
    }
  });

  test('a CSV without a date comment is dated the day it is imported', async () => {
    const d = sandboxDir();
    try {
      const imported = await d.run('rates', 'import', d.file('undated.csv', 'USD,1.10\nEUR,1\n'), '--json');
      succeeded(imported);
      const out = parseJson(imported);
      assert.equal(out.currencies, 2);
      const today = new Date().toISOString().slice(0, 10);
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10); // a run across midnight UTC
      assert.ok([today, yesterday].includes(out.date), out.date);
    } finally {
      d.remove();
    }
  });

  test('bad files are refused with a one-line reason and the table in use is left untouched', async () => {
    const d = sandboxDir();
    try {
      const bad: [string, string, RegExp][] = [
        ['unknown.csv', 'USD,1.1\nXYZ,2\n', /line 2: "XYZ" is not an ISO 4217 currency code/],
        ['letters.csv', 'USD,1.1\nJPY,abc\n', /line 2: the rate of JPY, "abc", is not a decimal number/],
        ['float.csv', 'USD,1.1e0\n', /the rate of USD, "1\.1e0", is not a decimal number/],
        ['zero.csv', 'USD,1.1\nJPY,0.000\n', /the rate of JPY must be positive/],
        ['negative.csv', 'USD,1.1\nJPY,-160\n', /the rate of JPY must be positive/],
        ['no-usd.csv', '# 2026-12-05\nJPY,160\nGBP,0.86\n', /no USD rate/],
        ['twice.csv', 'USD,1.1\nJPY,160\njpy,161\n', /line 3: JPY is listed twice/],
        ['semicolons.csv', 'USD;1,1\n', /line 1: "USD;1,1" is not "currency,rate"/],
        ['eur.csv', 'USD,1.1\nEUR,1.2\n', /EUR is the base of the table, its rate must be 1/],
        ['empty.csv', '\n', /no rates/],
        ['bad-date.csv', '# 2026-13-45\nUSD,1.1\n', /date "2026-13-45" is not a YYYY-MM-DD date/],
        ['bad.xml', ECB_XML.replace("rate='162.37'", "rate='-162.37'"), /the rate of JPY must be positive/],
        ['undated.xml', ECB_XML.replace(" time='2026-12-04'", ''), /no date/],
      ];

      // Nothing imported yet: a bad file creates no table.
      failedWith(
        await d.run('rates', 'import', d.file('first.csv', 'USD,0\n')),
        /^opentill: .*first\.csv: line 1: the rate of USD must be positive/,
      );
      assert.equal(existsSync(d.table), false);

      succeeded(await d.run('rates', 'import', d.file('good.xml', ECB_XML)));
      const before = readFileSync(d.table, 'utf8');
      for (const [name, content, reason] of bad) {
        const result = await d.run('rates', 'import', d.file(name, content));
        failedWith(result, reason);
        assert.match(
          result.stderr,
          new RegExp(`^opentill: .*${name.replace('.', '\\.')}: `),
          'the reason names the file',
        );
        assert.equal(readFileSync(d.table, 'utf8'), before, `${name} left the table as it was`);
      }
      failedWith(
        await d.run('rates', 'import', join(d.dir, 'missing.csv')),
        /Cannot read the rate table .*missing\.csv/,
      );

      const json = await d.run('rates', 'import', d.file('unknown.csv', 'USD,1.1\nXYZ,2\n'), '--json');
      failedWith(json, /XYZ/);
      assert.equal(parseJson(json).error, 'FAILED');
      assert.match(parseJson(json).message, /"XYZ" is not an ISO 4217 currency code/);

      assert.equal(readFileSync(d.table, 'utf8'), before);
      assert.deepEqual(
        readdirSync(d.dir)
          .filter((f) => f.includes('exchange-rates'))
          .sort(),
        ['exchange-rates-history.xml', 'exchange-rates.xml'],
      );
      assert.equal(parseJson(await d.run('rates', 'show', '--json')).date, '2026-12-04');
    } finally {
      d.remove();
    }
  });

  test('the imported table is the one the service converts prices with from its next start', async () => {
    const d = sandboxDir();
    try {
      const vendor = await d.run('vendor', 'create', '--name', 'Acme', '--email', 'owner@acme.test', '--json');
      succeeded(vendor);
      const vendorId = parseJson(vendor).vendor.id as string;
      const product = await d.run(
        'product',
        'create',
        '--vendor',
        vendorId,
        '--name',
        'Pro',
        '--type',
        'ONETIME',
        '--price',
        'USD:10',
        '--json',
      );
      succeeded(product);
      const purchase = [
        'sandbox',
        'purchase',
        '--vendor',
        vendorId,
        '--product',
        parseJson(product).id as string,
        '--country',
        'US',
        '--currency',
        'JPY',
        '--json',
      ];

      // Each command is a fresh start of the service, as a server restart is.
      const bundled = parseJson(await d.run(...purchase, '--email', 'a@example.com'));
      assert.equal(bundled.transaction.currency, 'JPY');
      assert.notEqual(bundled.transaction.netMinor, 1200);

      succeeded(await d.run('rates', 'import', d.file('rates.csv', CSV)));
      const imported = await d.run(...purchase, '--email', 'b@example.com');
      succeeded(imported);
      // 10.00 USD x 150 JPY/EUR / 1.25 USD/EUR = 1200 JPY exactly.
      assert.equal(parseJson(imported).transaction.netMinor, 1200);
    } finally {
      d.remove();
    }
  });

  test('every day imported is kept for tax returns: the ECB history, then a day again (replaced) and a new one', async () => {
    const d = sandboxDir();
    const days = (rows: [string, string][]) =>
      `<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><Cube>${rows
        .map(([day, usd]) => `<Cube time='${day}'><Cube currency='USD' rate='${usd}'/></Cube>`)
        .join('')}</Cube></gesmes:Envelope>`;
    const kept = () =>
      parseExchangeRateDays(readFileSync(join(d.dir, 'exchange-rates-history.xml'), 'utf8')).map(
        (t) => `${t.date} ${formatDecimal(t.perEuro.get('USD')!)}`,
      );
    try {
      const history = days([
        ['2026-09-30', '1.1'],
        ['2026-09-29', '1.2'],
        ['2026-09-28', '1.3'],
      ]);
      const first = await d.run('rates', 'import', d.file('eurofxref-hist.xml', history), '--json');
      succeeded(first);
      assert.deepEqual([parseJson(first).date, parseJson(first).history.days], ['2026-09-30', 3]);
      const again = await d.run(
        'rates',
        'import',
        d.file(
          'day.xml',
          days([
            ['2026-10-01', '1.4'],
            ['2026-09-29', '1.25'],
          ]),
        ),
      );
      succeeded(again);
      assert.match(again.stdout, /Kept 2 days for tax returns in .*exchange-rates-history\.xml \(4 in all\)/);
      assert.deepEqual(kept(), ['2026-10-01 1.4', '2026-09-30 1.1', '2026-09-29 1.25', '2026-09-28 1.3']);
      failedWith(await d.run('rates', 'import', d.file('bad.xml', '<Cube>')), /rate/i);
      assert.equal(kept().length, 4, 'a refused file keeps nothing');
    } finally {
      d.remove();
    }
  });

  test('RATES_FILE still wins over an imported table, and the import says so', async () => {
    const root = mkdtempSync(join(tmpdir(), 'opentill-rates-file-'));
    try {
      const pinned = join(root, 'pinned.csv');
      writeFileSync(pinned, '# 2020-01-02\nUSD,1.2\n');
      const d = sandboxDir({ RATES_FILE: pinned });
      try {
        const imported = await d.run('rates', 'import', d.file('rates.csv', CSV));
        succeeded(imported);
        assert.match(imported.stdout, /RATES_FILE \(.*pinned\.csv\) takes precedence/);
        const shown = parseJson(await d.run('rates', 'show', '--json'));
        assert.deepEqual([shown.source, shown.file, shown.date], ['RATES_FILE', pinned, '2020-01-02']);
      } finally {
        d.remove();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
