// Presence (issue 23). In the editor, a heartbeat every few seconds (the server's
// PAGE_PRESENCE_INTERVAL_MS) tells the server the page is open here and brings back who
// else has it open; on the page tree, the same for every page shown. Without this
// script the server-rendered lines say what was true when the page was loaded. Presence
// only informs: nothing is locked, edits merge when saved.
(function () {
  'use strict';
  var JSON_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json' };

  function ask(url, options) {
    return fetch(url, Object.assign({ credentials: 'same-origin', headers: JSON_HEADERS }, options))
      .then(function (answer) {
        return answer.ok ? answer.json() : null;
      })
      .catch(function () {
        return null;
      });
  }

  function messagesOf(editors) {
    return editors.map(function (editor) {
      return editor.message;
    });
  }

  function show(element, messages) {
    var text = messages.join(' ; ');
    if (element.textContent !== text) element.textContent = text;
    element.hidden = messages.length === 0;
  }

  function every(element, run) {
    var interval = Number(element.getAttribute('data-presence-interval')) || 20000;
    setInterval(run, interval);
  }

  var line = document.querySelector('[data-presence-url]');
  if (line) {
    var url = line.getAttribute('data-presence-url');
    every(line, function () {
      ask(url, { method: 'POST', body: '{}' }).then(function (answer) {
        if (answer) show(line, messagesOf(answer.editors));
      });
    });
  }

  var tree = document.querySelector('[data-presence-tree]');
  if (tree) {
    var listUrl = tree.getAttribute('data-presence-tree');
    every(tree, function () {
      ask(listUrl).then(function (answer) {
        if (!answer) return;
        var byPage = {};
        answer.items.forEach(function (item) {
          byPage[item.page_id] = messagesOf(item.editors);
        });
        tree.querySelectorAll('[data-presence-page]').forEach(function (badge) {
          show(badge, byPage[badge.getAttribute('data-presence-page')] || []);
        });
      });
    });
  }
})();
