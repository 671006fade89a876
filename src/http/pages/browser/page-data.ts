/**
 * The parameters the server wrote for a page script: a `<script type="application/json" id=…>` data
 * block (sendPage's `data`, escaped so it cannot end early), which the browser never runs. Null when
 * the page has none.
 */
export function pageData<T>(id: string): T | null {
  const block = document.getElementById(id);
  return block ? (JSON.parse(block.textContent ?? 'null') as T | null) : null;
}
