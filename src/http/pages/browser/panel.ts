/**
 * The panel's script on every page: copy buttons (an ID, a licence key, a management link), and the
 * e-mail preview's frame made as tall as its e-mail. On a phone the tabs wrap onto more lines, so none
 * needs scrolling into view.
 */
document.querySelectorAll('[data-copy]').forEach((b) => {
  b.addEventListener('click', () => {
    const text = document.getElementById(b.getAttribute('data-copy')!)!.textContent as string;
    navigator.clipboard.writeText(text).then(
      () => {
        b.textContent = 'Copied';
      },
      () => {
        b.textContent = 'Select and copy';
      },
    );
  });
});

// The e-mail preview's frame (same origin, no script of its own) as tall as the e-mail, so it reads
// as one page instead of a box scrolling inside another; without this script it keeps its fixed height.
document.querySelectorAll<HTMLIFrameElement>('iframe.email-frame').forEach((frame) => {
  const fit = () => {
    const height = frame.contentDocument?.documentElement.scrollHeight;
    if (height) frame.style.height = `${height + 2}px`;
  };
  frame.addEventListener('load', fit);
  fit();
});
