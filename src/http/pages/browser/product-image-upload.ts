/**
 * The product image uploads of the Products page (docs/decisions.md §42), one per product: a page form
 * takes 64 KB at most, an image may have 1 MB, so the file goes as it is to the upload URL with the
 * session's token in a header, then the page reloads. Type and size are checked here first, for a
 * message before anything is sent; the server checks again, from the bytes. Where and how to send come
 * from each [data-image-upload]'s data- attributes (src/http/pages/panel/product-form-fields.ts).
 */
document.querySelectorAll<HTMLElement>('[data-image-upload]').forEach(imageUpload);

function imageUpload(w: HTMLElement) {
  w.hidden = false;
  const f = w.querySelector('input[type=file]') as HTMLInputElement;
  const m = w.querySelector('[data-image-message]') as HTMLElement;
  const types = (w.getAttribute('data-types') ?? '').split(',');
  const maxBytes = Number(w.getAttribute('data-max-bytes'));
  const say = (t: string) => {
    m.textContent = t;
    m.hidden = false;
  };
  f.addEventListener('change', () => {
    const file = f.files && f.files[0];
    if (!file) return;
    if (types.indexOf(file.type) < 0) return say(`The image must be a PNG, JPEG or WebP; ${file.name} is not one.`);
    if (file.size > maxBytes)
      return say(
        `The image can be at most ${maxBytes / 1024 / 1024} MB; this one is ${Math.ceil(file.size / 1024)} KB.`,
      );
    say('Uploading the image…');
    const headers = { 'content-type': file.type, [w.getAttribute('data-csrf-header')!]: w.getAttribute('data-csrf')! };
    fetch(w.getAttribute('data-url')!, { method: 'POST', credentials: 'same-origin', headers, body: file })
      .then((r) => {
        if (r.status === 204) return location.assign(w.getAttribute('data-done')!);
        return r.text().then((t) => {
          const p = new DOMParser().parseFromString(t, 'text/html').querySelector('h1 + p');
          say((p && p.textContent) || `The image was not saved (error ${r.status}).`);
        });
      })
      .catch(() => say('The image was not sent: check the connection and try again.'));
  });
}
