/*
 * Ledgerlink boot guard (docs/product/shell.md §2 "A fatal startup error shows Critical Error"; issue 17 item
 * 9). A plain script loaded before the app: when the app's own script cannot be fetched (network, a deploy
 * that removed it) or has not drawn anything well after the page loaded, it shows "Critical Error" with
 * Refresh Page instead of a blank page. No inline script (the CSP forbids them); styles are set from here
 * because the app's stylesheet may be missing too.
 */
(function () {
  'use strict';
  var shown = false;

  function isDark() {
    var root = document.documentElement;
    if (root.classList.contains('dark')) return true;
    try {
      var stored = window.localStorage.getItem('theme');
      if (stored === 'dark') return true;
      if (stored === 'light') return false;
    } catch {
      /* storage blocked: follow the system */
    }
    return Boolean(window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches);
  }

  function show() {
    if (shown) return;
    shown = true;
    var dark = isDark();
    var container = document.getElementById('root') || document.body;
    container.replaceChildren();
    document.body.style.margin = '0';
    document.body.style.background = dark ? '#0b1220' : '#f8fafc';
    var box = document.createElement('main');
    box.setAttribute('role', 'alert');
    box.style.cssText =
      'display:flex;min-height:100vh;flex-direction:column;align-items:center;justify-content:center;gap:12px;' +
      'padding:16px;box-sizing:border-box;text-align:center;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;' +
      'color:' +
      (dark ? '#e5e7eb' : '#111827') +
      ';';
    var title = document.createElement('h1');
    title.textContent = 'Critical Error';
    title.style.cssText = 'margin:0;font-size:20px;font-weight:600;';
    var text = document.createElement('p');
    text.textContent = 'Ledgerlink could not load. Check your internet connection, then refresh the page.';
    text.style.cssText =
      'margin:0;max-width:28rem;font-size:14px;line-height:1.5;color:' + (dark ? '#cbd5e1' : '#374151') + ';';
    var button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Refresh Page';
    button.style.cssText =
      'margin-top:8px;border:0;border-radius:8px;padding:10px 16px;font:inherit;font-size:14px;font-weight:500;cursor:pointer;' +
      'background:' +
      (dark ? '#e5e7eb' : '#111827') +
      ';color:' +
      (dark ? '#111827' : '#ffffff') +
      ';';
    button.addEventListener('click', function () {
      window.location.reload();
    });
    box.append(title, text, button);
    container.append(box);
    button.focus();
  }

  // The app's script (or a module it preloads) failed to download.
  window.addEventListener(
    'error',
    function (event) {
      var target = event.target;
      if (!target || target === window || !target.tagName) return;
      var tag = target.tagName.toLowerCase();
      var isAppScript = tag === 'script' && target.type === 'module';
      var isPreload = tag === 'link' && target.rel === 'modulepreload';
      if ((isAppScript || isPreload) && !(document.getElementById('root') || {}).firstChild) show();
    },
    true,
  );

  // Nothing drawn long after the page loaded (the script ran into an error before React could start).
  window.addEventListener('load', function () {
    window.setTimeout(function () {
      var root = document.getElementById('root');
      if (root && !root.firstChild) show();
    }, 8000);
  });
})();
