/**
 * The page of a payment still being confirmed asks again after three seconds by following its
 * "Check now" link (a timed meta refresh is an accessibility failure, WCAG 2.2.1; without JavaScript
 * the page refreshes by a meta refresh in <noscript>).
 */
setTimeout(() => location.replace((document.getElementById('check-now') as HTMLAnchorElement).href), 3000);
