/**
 * Escaped HTML, shared by the pages (src/http/pages) and the e-mails (src/mail): a tagged template that
 * escapes every interpolated value unless it is already `Html`.
 */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}

const render = (value: unknown): string => (value instanceof Html ? value.text : escapeHtml(String(value ?? '')));

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += (Array.isArray(value) ? value.map(render).join('') : render(value)) + strings[i + 1]!;
  });
  return new Html(out);
}
