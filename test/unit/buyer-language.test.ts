import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { buyerTranslator } from '../../src/http/pages/buyer-language.ts';

const request = (query: unknown, acceptLanguage?: string) =>
  ({ query, headers: { 'accept-language': acceptLanguage } }) as unknown as FastifyRequest;

describe("a buyer page's language", () => {
  it('takes ?locale=, then the purchase, then Accept-Language, then English', () => {
    assert.equal(buyerTranslator(request({ locale: 'ja' }, 'de'), 'fr').locale, 'ja');
    assert.equal(buyerTranslator(request({}, 'de'), 'fr').locale, 'fr');
    assert.equal(buyerTranslator(request({}, 'de')).locale, 'de');
    assert.equal(buyerTranslator(request({})).locale, 'en');
  });

  it('passes over a repeated or odd ?locale= instead of failing the page', () => {
    assert.equal(buyerTranslator(request({ locale: ['de', 'fr'] }, 'ko')).locale, 'ko');
    assert.equal(buyerTranslator(request({ locale: { x: 1 } })).locale, 'en');
  });
});
