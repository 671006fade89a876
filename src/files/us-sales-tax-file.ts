import { readFileSync } from 'node:fs';
import { invalidInput } from '../domain/errors.ts';
import { formatUsSalesTaxCsv, parseUsSalesTaxCsv, type UsSalesTaxTable } from '../domain/tax/index.ts';
import { writeFileAtomically } from './atomic-write.ts';

/**
 * The ZIP-level US sales tax table as a file: what `opentill tax import` reads and writes into the
 * data directory, and what the server loads at start. The domain parses and checks the text.
 */

/** Reads and checks a table file in full; errors name the file and the line. */
export function loadUsSalesTax(file: string): UsSalesTaxTable {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw invalidInput(`Cannot read the sales tax table ${file}: ${(err as Error).message}`);
  }
  try {
    return parseUsSalesTaxCsv(text);
  } catch (err) {
    if (err instanceof Error) err.message = `${file}: ${err.message}`;
    throw err;
  }
}

/** Writes the table atomically (a flushed temporary file renamed over the old one), private to opentill's account. */
export function writeUsSalesTaxFile(file: string, table: UsSalesTaxTable): void {
  writeFileAtomically(file, formatUsSalesTaxCsv(table), 0o600);
}
