// Writing help in the page editor (JavaScript only; the form works the same without):
// a toolbar on each paragraph for its Markdown (bold, italic, link, list), with the
// shortcuts Ctrl+B, Ctrl+I and Ctrl+K, and a live preview beside the form: the form as
// it stands, unsaved, rendered by the site's own renderer (POST …/live-preview, nothing
// saved) into a sandboxed frame, 300 ms after typing stops.
(function () {
  'use strict';
  var form = document.getElementById('page-editor');
  if (!form) return;

  // The toolbar. Each action edits the text area's text (setRangeText keeps the undo
  // history simple) and reports an input, so the autosave and the preview follow.
  function wrap(area, before, after, placeholder) {
    var start = area.selectionStart;
    var end = area.selectionEnd;
    var chosen = area.value.slice(start, end) || placeholder;
    area.setRangeText(before + chosen + after, start, end, 'end');
    area.setSelectionRange(start + before.length, start + before.length + chosen.length);
  }

  function link(area) {
    var start = area.selectionStart;
    var end = area.selectionEnd;
    var label = area.value.slice(start, end) || 'texte du lien';
    area.setRangeText('[' + label + '](https://)', start, end, 'end');
    // The address is selected, ready to be typed over.
    var address = start + label.length + 3;
    area.setSelectionRange(address, address + 'https://'.length);
  }

  function list(area) {
    var value = area.value;
    var start = value.lastIndexOf('\n', area.selectionStart - 1) + 1;
    var endAt = value.indexOf('\n', area.selectionEnd);
    var end = endAt < 0 ? value.length : endAt;
    var lines = value.slice(start, end).split('\n');
    var listed = lines.every(function (line) {
      return /^- /.test(line);
    });
    var changed = lines
      .map(function (line) {
        return listed ? line.replace(/^- /, '') : '- ' + line;
      })
      .join('\n');
    area.setRangeText(changed, start, end, 'select');
  }

  var ACTIONS = {
    bold: function (area) {
      wrap(area, '**', '**', 'texte en gras');
    },
    italic: function (area) {
      wrap(area, '*', '*', 'texte en italique');
    },
    link: link,
    list: list,
  };
  var SHORTCUTS = { b: 'bold', i: 'italic', k: 'link' };

  function run(area, action) {
    ACTIONS[action](area);
    area.focus();
    area.dispatchEvent(new Event('input', { bubbles: true }));
  }

  function button(action, label, text, hint) {
    var item = document.createElement('button');
    item.type = 'button';
    item.className = 'md-button md-' + action;
    item.setAttribute('data-md', action);
    item.setAttribute('aria-label', label);
    item.title = label + (hint ? ' (' + hint + ')' : '');
    item.textContent = text;
    item.tabIndex = -1;
    return item;
  }

  function addToolbar(card) {
    var type = card.querySelector('input[name$=".type"]');
    var area = card.querySelector('textarea[name$=".text"]');
    if (!type || type.value !== 'paragraph' || !area || card.querySelector('.md-toolbar')) return;
    var bar = document.createElement('div');
    bar.className = 'md-toolbar';
    bar.setAttribute('role', 'toolbar');
    bar.setAttribute('aria-label', 'Mise en forme du paragraphe');
    bar.setAttribute('aria-controls', area.id);
    bar.append(
      button('bold', 'Gras', 'G', 'Ctrl+B'),
      button('italic', 'Italique', 'I', 'Ctrl+I'),
      button('link', 'Lien', 'Lien', 'Ctrl+K'),
      button('list', 'Liste à puces', '• Liste', ''),
    );
    bar.firstChild.tabIndex = 0;
    // On the block's heading row: the toolbar adds no height to the page.
    var heading = card.querySelector('.block-head h3');
    if (heading) heading.after(bar);
    else area.before(bar);
  }

  function cards() {
    return form.querySelectorAll('ol.blocks > li.block-card');
  }
  cards().forEach(addToolbar);
  var blocks = form.querySelector('ol.blocks');
  if (blocks && window.MutationObserver) {
    new MutationObserver(function () {
      cards().forEach(addToolbar);
    }).observe(blocks, { childList: true });
  }

  form.addEventListener('click', function (event) {
    var item = event.target.closest('.md-toolbar [data-md]');
    if (!item) return;
    var area = document.getElementById(item.parentElement.getAttribute('aria-controls'));
    if (area) run(area, item.getAttribute('data-md'));
  });

  // One tab stop per toolbar; ← and → move between its buttons.
  form.addEventListener('keydown', function (event) {
    var item = event.target.closest && event.target.closest('.md-toolbar [data-md]');
    if (item && (event.key === 'ArrowRight' || event.key === 'ArrowLeft')) {
      event.preventDefault();
      var next = event.key === 'ArrowRight' ? item.nextElementSibling || item.parentElement.firstElementChild : item.previousElementSibling || item.parentElement.lastElementChild;
      item.tabIndex = -1;
      next.tabIndex = 0;
      next.focus();
      return;
    }
    var area = event.target;
    if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || !area.matches || !area.matches('textarea[name$=".text"]')) return;
    var action = SHORTCUTS[event.key.toLowerCase()];
    if (!action || !area.closest('li.block-card').querySelector('.md-toolbar')) return;
    event.preventDefault();
    run(area, action);
  });

  // The live preview.
  var layout = form.querySelector('.editor-layout');
  // On the address's line under the title: the bar and the page's tools keep their one line.
  var place = form.querySelector('.editor-url');
  var url = form.getAttribute('action') + '/live-preview';
  if (!layout || !place) return;
  var DELAY = 300;
  var toggle = document.createElement('button');
  toggle.type = 'button';
  toggle.className = 'button button-secondary button-small live-preview-toggle';
  toggle.setAttribute('aria-pressed', 'false');
  toggle.setAttribute('aria-controls', 'live-preview');
  toggle.textContent = 'Aperçu en direct';
  place.append(' ', toggle);

  var panel = document.createElement('section');
  panel.id = 'live-preview';
  panel.className = 'live-preview';
  panel.hidden = true;
  panel.setAttribute('aria-labelledby', 'live-preview-title');
  var title = document.createElement('h2');
  title.id = 'live-preview-title';
  title.className = 'live-preview-title';
  title.textContent = 'Aperçu en direct (non enregistré)';
  var status = document.createElement('p');
  status.className = 'live-preview-status small muted';
  status.setAttribute('aria-live', 'polite');
  var frame = document.createElement('iframe');
  frame.title = 'Aperçu en direct de la page, telle que le site la montrera';
  // No script runs in it; same origin only so that its scroll survives each refresh.
  frame.setAttribute('sandbox', 'allow-same-origin');
  panel.append(title, status, frame);
  layout.querySelector('.editor-main').after(panel);

  var timer = null;
  var asked = 0;
  var shown = 0;

  function body() {
    var data = new URLSearchParams();
    new FormData(form).forEach(function (value, name) {
      if (typeof value === 'string' && name !== 'action') data.append(name, value);
    });
    return data;
  }

  function refresh() {
    clearTimeout(timer);
    if (panel.hidden) return;
    var number = ++asked;
    fetch(url, { method: 'POST', body: body(), credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (answer) {
        var html = (answer.headers.get('Content-Type') || '').indexOf('text/html') >= 0;
        return answer.text().then(function (text) {
          if (number < shown) return;
          if (!answer.ok || !html) {
            var reason = 'une valeur est à corriger';
            try {
              reason = JSON.parse(text).error || reason;
            } catch {
              reason = 'le serveur n’a pas répondu';
            }
            status.textContent = 'Aperçu non mis à jour\u00a0: ' + reason;
            return;
          }
          shown = number;
          var scroll = frame.contentWindow ? frame.contentWindow.scrollY : 0;
          frame.addEventListener(
            'load',
            function () {
              if (frame.contentWindow) frame.contentWindow.scrollTo(0, scroll);
              frame.setAttribute('data-shown', String(number));
            },
            { once: true },
          );
          frame.srcdoc = text;
          status.textContent = '';
        });
      })
      .catch(function () {
        status.textContent = 'Aperçu non mis à jour\u00a0: le serveur n’a pas répondu.';
      });
  }

  function later() {
    clearTimeout(timer);
    if (!panel.hidden) timer = setTimeout(refresh, DELAY);
  }

  toggle.addEventListener('click', function () {
    var on = panel.hidden;
    panel.hidden = !on;
    toggle.setAttribute('aria-pressed', on ? 'true' : 'false');
    layout.classList.toggle('with-live-preview', on);
    if (on) refresh();
  });
  form.addEventListener('input', later);
  form.addEventListener('change', later);
})();
