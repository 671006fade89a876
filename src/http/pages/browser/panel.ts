/**
 * The panel's script on every page: copy buttons, and on a phone, where the tab bar scrolls sideways,
 * the bar scrolled so that the current tab is in view (in the middle when it can be). Without it every
 * tab is still there to scroll to.
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

const nav = document.querySelector<HTMLElement>('.panel nav');
const current = nav && nav.querySelector<HTMLElement>('[aria-current]');
if (nav && current && nav.scrollWidth > nav.clientWidth)
  nav.scrollLeft = current.offsetLeft - nav.offsetLeft - (nav.clientWidth - current.offsetWidth) / 2;
