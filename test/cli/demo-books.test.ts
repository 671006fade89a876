import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/cli.ts';

/**
 * `npm run demo:books` (issue 34): a quarter of books made through the services, its statements as CSV
 * and PDF and its returns as CSV; the script itself fails unless statements plus balances are the
 * ledger's income and the returns' tax the ledger's tax.
 */
test('npm run demo:books writes a quarter of statements and returns that add up', async () => {
  const out = mkdtempSync(join(tmpdir(), 'opentill-demo-books-'));
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'scripts', 'demo-books.ts'), '--out', out],
      { cwd: ROOT },
    );
    assert.match(stdout, /^\d+ sales in 2026-Q3, 2 vendors; wrote to /);
    const files = readdirSync(out);
    const pdfs = files.filter((f) => f.endsWith('.pdf'));
    assert.ok(pdfs.length >= 6, files.join(' '));
    for (const pdf of pdfs) {
      assert.equal(readFileSync(join(out, pdf)).subarray(0, 5).toString(), '%PDF-', pdf);
      assert.ok(files.includes(pdf.replace(/\.pdf$/, '.csv')), `${pdf} has its CSV`);
    }
    const oss = readFileSync(join(out, 'tax-2026-Q3-nordlicht-oss.csv'), 'utf8');
    assert.match(oss, /^2026-Q3,oss,domestic,DE,0\.19,/m);
    assert.match(oss, /^2026-Q3,oss,reverse-charge,FR,0,FR40303265045,EUR,/m);
    assert.match(readFileSync(join(out, 'tax-2026-Q3-acme-us.csv'), 'utf8'), /^2026-Q3,us,sales,US-CA,/m);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
