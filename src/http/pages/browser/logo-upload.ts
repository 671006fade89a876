/**
 * The logo upload of the Settings page (a page form takes 64 KB at most, a logo may have 100 KB): the
 * file goes as it is to the upload URL with the session's token in a header, then the page reloads.
 * Type and size are checked here first, for a message before anything is sent; the server checks again.
 * What it checks against and where it sends come from #logo-upload's data- attributes (settings.ts).
 * Harmless on the other panel pages, which have no #logo-upload.
 */
const upload = document.getElementById('logo-upload');
if (upload) logoUpload(upload);

function logoUpload(w: HTMLElement) {
  w.hidden = false;
  const f = document.getElementById('logo-file') as HTMLInputElement;
  const m = document.getElementById('logo-message')!;
  const types = (w.getAttribute('data-types') ?? '').split(',');
  const maxBytes = Number(w.getAttribute('data-max-bytes'));
  const say = (t: string) => {
    m.textContent = t;
    m.hidden = false;
  };
  f.addEventListener('change', () => {
    const file = f.files && f.files[0];
    if (!file) return;
    if (types.indexOf(file.type) < 0) return say(`The logo must be a PNG or JPEG image; ${file.name} is not one.`);
    if (file.size > maxBytes)
      return say(`The logo can be at most ${maxBytes / 1024} KB; this one is ${Math.ceil(file.size / 1024)} KB.`);
    say('Uploading the logo…');
    const headers = { 'content-type': file.type, [w.getAttribute('data-csrf-header')!]: w.getAttribute('data-csrf')! };
    fetch(w.getAttribute('data-url')!, { method: 'POST', credentials: 'same-origin', headers, body: file })
      .then((r) => {
        if (r.status === 204) return location.assign(w.getAttribute('data-done')!);
        return r.text().then((t) => {
          const p = new DOMParser().parseFromString(t, 'text/html').querySelector('h1 + p');
          say((p && p.textContent) || `The logo was not saved (error ${r.status}).`);
        });
      })
      .catch(() => say('The logo was not sent: check the connection and try again.'));
  });
}
