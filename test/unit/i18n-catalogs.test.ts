import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { LOCALES, readCatalog, SURFACES } from '../../src/i18n/index.ts';

/**
 * Every argument and tag a message uses: a translation must use exactly the same. The kind may differ (a
 * language without plurals writes "{days}日" where English has "{days, plural, ...}").
 */
function placeholders(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    if (element.type === TYPE.tag) {
      into.add(`<${element.value}>`);
      placeholders(element.children, into);
      continue;
    }
    into.add(element.value);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      for (const option of Object.values(element.options)) placeholders(option.value, into);
    }
  }
  return into;
}

const sorted = (set: Set<string>) => [...set].sort();

describe('message catalogs', () => {
  it('have at least the surfaces the buyer reads', () => {
    assert.ok(SURFACES.includes('common'), `surfaces: ${SURFACES.join(', ')}`);
  });

  for (const surface of SURFACES) {
    const english = readCatalog(surface, 'en');
    for (const locale of LOCALES) {
      it(`${surface}/${locale}: every English key, no other, with the same placeholders`, () => {
        const catalog = readCatalog(surface, locale);
        assert.deepEqual(Object.keys(catalog).sort(), Object.keys(english).sort());
        for (const [key, message] of Object.entries(catalog)) {
          assert.ok(message.trim(), `${surface}/${locale} ${key} is empty`);
          const theirs = placeholders(parse(message));
          const ours = placeholders(parse(english[key]!));
          assert.deepEqual(sorted(theirs), sorted(ours), `${surface}/${locale} ${key}`);
        }
        // Some words are the same in both ("Total", "{price} {every}"); a catalog mostly English was not translated.
        const same = Object.keys(catalog).filter(
          (key) => /\p{L}{3}/u.test(english[key]!) && catalog[key] === english[key],
        );
        if (locale !== 'en')
          assert.ok(
            same.length <= Math.max(1, Object.keys(catalog).length * 0.15),
            `${surface}/${locale} untranslated: ${same.join(', ')}`,
          );
      });
    }
  }
});
