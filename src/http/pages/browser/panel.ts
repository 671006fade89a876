/**
 * The panel's script on every page: copy buttons (an ID, a licence key, a management link). On a
 * phone the tabs wrap onto more lines, so none needs scrolling into view.
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
