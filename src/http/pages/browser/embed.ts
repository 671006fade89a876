import { pageData } from './page-data.ts';

/**
 * Inside the widget's iframe (the checkout, its receipt, its confirmation page, its closed shop): tell the
 * parent page, and only at the announced origin, what happened; let the customer close. The origin and the
 * message (`paid`, or a declined payment's `failed`; null for none beyond `ready`) come from the page's
 * `opentill-embed` data block; a card the processor's element declines in this page says `failed` too
 * (processor-element.ts). docs/decisions.md §14 and §29.
 */
export interface EmbedData {
  origin: string;
  message: object | null;
}

const data = pageData<EmbedData>('opentill-embed');
if (data && window.parent !== window) embed(window.parent, data);

function embed(parent: Window, { origin, message }: EmbedData) {
  const send = (m: object) => parent.postMessage(Object.assign({ source: 'opentill' }, m), origin);
  send({ type: 'ready' });
  if (message) send(message);
  document.addEventListener('opentill:declined', () => send({ type: 'failed', status: 'DECLINED' }));
  const close = document.getElementById('close');
  if (close) close.addEventListener('click', () => send({ type: 'close' }));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') send({ type: 'close' });
  });
}
