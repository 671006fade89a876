/**
 * One cell of a CSV file (RFC 4180): quoted when it holds a quote, a comma or a line break. Text that a
 * spreadsheet would run as a formula (starting with =, +, -, @, a tab or a carriage return) is kept text
 * with a leading apostrophe; a plain number, negative amounts included, is left a number.
 */
export function csvCell(value: unknown): string {
  let text = String(value ?? '');
  if (/^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
