import type { Mutant } from './mutant.ts';

const API = 'test/api/checkout-lang.test.ts';
const UNIT = 'test/unit/checkout-lang-views.test.ts';
const WIDGET = 'test/widget/checkout-lang-widget.test.ts';

/** Mutants of the checkout, receipt and client script in the buyer's language (issue 36, docs/decisions.md §33). */
export const checkoutLanguageMutants: Mutant[] = [
  {
    id: 'checkout-lang-receipt-trial-then-from-purchase-day',
    file: 'src/http/pages/checkout/checkout-price-lines.ts',
    find: 'date: tr.date(t.nextCharge),',
    replace: 'date: tr.date(t.createdAt),',
    tests: [API, UNIT],
  },
  {
    id: 'checkout-lang-stored-locale-over-explicit',
    file: 'src/http/pages/buyer-language.ts',
    find: 'resolveLocale([explicitLocale(request), stored]',
    replace: 'resolveLocale([stored, explicitLocale(request)]',
    tests: [API],
  },
  {
    id: 'checkout-lang-countries-sorted-in-english',
    file: 'src/http/pages/checkout/checkout-countries.ts',
    find: 'new Intl.Collator(tr.lang)',
    replace: "new Intl.Collator('en')",
    tests: [UNIT],
  },
  {
    id: 'checkout-lang-purchase-forgets-locale',
    file: 'src/http/pages/checkout/checkout-form.ts',
    find: '    locale,\n  };',
    replace: '    locale: undefined,\n  };',
    tests: [API],
  },
  {
    id: 'checkout-lang-receipt-link-window-doubled',
    file: 'src/http/pages/checkout/checkout-confirm.ts',
    find: 'if (!(age < RECEIPT_LINK_WINDOW_MS)) return null;',
    replace: 'if (!(age < 2 * RECEIPT_LINK_WINDOW_MS)) return null;',
    tests: [API],
  },
  {
    id: 'checkout-lang-script-locale-dropped',
    file: 'src/http/routes/public/checkout-start.ts',
    find: 'body.productId, body, locale)',
    replace: 'body.productId, body)',
    tests: [API],
  },
  {
    id: 'checkout-lang-widget-locale-not-sent',
    file: 'src/widget/widget.ts',
    find: "'payload', 'locale', 'quantity'] as const;",
    replace: "'payload', 'quantity'] as const;",
    tests: [WIDGET],
  },
  {
    id: 'checkout-lang-widget-overlay-named-in-english',
    file: 'src/widget/widget.ts',
    find: "overlay.setAttribute('aria-label', label);",
    replace: "overlay.setAttribute('aria-label', 'Checkout');",
    tests: [WIDGET],
  },
];
