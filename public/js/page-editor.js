// The page editor with JavaScript: blocks reorder by dragging their handle, «Ajouter le
// bloc» and «Insérer ici» add a block in place (cloned from the page's <template>s)
// instead of a round trip, the draft is saved by itself when typing stops, and leaving
// the page with unsaved changes asks first. The form stays the one the server reads:
// the blocks' order is the order of their `blocks` fields, so moving a block's element
// is all a reorder takes. Without this script every button submits the whole form and
// the server does the same.
(function () {
  'use strict';
  var form = document.getElementById('page-editor');
  if (!form) return;
  var list = form.querySelector('ol.blocks');
  var status = form.querySelector('.editor-status');
  var dirty = false;
  var leaving = false;
  var added = 0;

  function changed(message) {
    dirty = true;
    if (status && message) status.textContent = message;
    later();
  }

  function cards() {
    return Array.prototype.slice.call(list.querySelectorAll(':scope > li.block-card'));
  }

  // Every number naming a block's place: its heading and what its tools say to screen
  // readers («Supprimer le bloc 3»), which a block cloned from a <template> has wrong.
  function renumber() {
    cards().forEach(function (card, index) {
      card.querySelectorAll('.block-number, .block-position').forEach(function (number) {
        number.textContent = String(index + 1);
      });
    });
  }

  form.addEventListener('input', function () {
    changed('');
  });
  form.addEventListener('change', function () {
    changed('');
  });
  form.addEventListener('submit', function () {
    leaving = true;
    clearTimeout(timer);
  });
  window.addEventListener('beforeunload', function (event) {
    if (!dirty || leaving) return;
    autosave(true);
    event.preventDefault();
    event.returnValue = '';
  });

  // Autosave: the draft is saved 5 s after typing stops, and when the page is hidden or
  // left (a request that outlives the page). It posts the form as the server reads it,
  // with action=autosave, and gets JSON back: the revision the form now stands on and
  // the ids of new blocks. Never merged: a form someone else saved since is told to use
  // «Enregistrer le brouillon», which merges and shows any clash, and stops autosaving.
  var AUTOSAVE_DELAY = 5000;
  var NOT_SAVED = 'Brouillon non enregistré automatiquement\u00a0: ';
  var REASONS = {
    revision_conflict:
      'quelqu’un d’autre a enregistré la page entre-temps\u00a0; «\u00a0Enregistrer le brouillon\u00a0» fusionne vos modifications avec les siennes.',
    validation_error: 'une valeur est à corriger\u00a0; «\u00a0Enregistrer le brouillon\u00a0» montre laquelle.',
    unknown: 'le serveur n’a pas répondu (connexion ou session)\u00a0; «\u00a0Enregistrer le brouillon\u00a0» réessaie.',
  };
  var timer = null;
  var saving = false;
  var again = false;
  // The conflict screen waits for a person's choice: nothing is saved by itself there.
  var stopped = Boolean(document.querySelector('.conflict-fields, .conflict-current'));
  var revision = form.querySelector('input[name="if_revision"]');

  // The form as the server reads it, urlencoded: a file still in a block's field (its
  // upload failed) goes with an explicit save, never with a script's request.
  function formBody() {
    var data = new URLSearchParams();
    new FormData(form).forEach(function (value, name) {
      if (typeof value === 'string') data.append(name, value);
    });
    return data;
  }

  function later() {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(autosave, AUTOSAVE_DELAY);
  }

  function say(message) {
    if (!status) return;
    status.textContent = message;
    var saved = form.querySelector('.editor-saved');
    if (saved) saved.remove();
  }

  function keepIds(ids) {
    cards().forEach(function (card, index) {
      var id = card.querySelector('input[name$=".id"]');
      if (id && !id.value && ids[index]) id.value = ids[index];
    });
  }

  function autosave(leavingPage) {
    if (!dirty || stopped || leaving) return;
    if (saving) {
      again = true;
      return;
    }
    clearTimeout(timer);
    var data = formBody();
    data.set('action', 'autosave');
    saving = true;
    dirty = false;
    // form.action would be the buttons named «action», not the form's address.
    fetch(form.getAttribute('action'), {
      method: 'POST',
      body: data,
      credentials: 'same-origin',
      redirect: 'manual',
      keepalive: leavingPage === true,
      headers: { Accept: 'application/json' },
    })
      .then(function (answer) {
        var json = (answer.headers.get('Content-Type') || '').indexOf('application/json') >= 0;
        if (!json) throw new Error('not json');
        return answer.json().then(function (body) {
          if (answer.ok) {
            revision.value = String(body.revision);
            keepIds(body.block_ids || []);
            say(body.message);
            return;
          }
          dirty = true;
          if (body.code === 'revision_conflict') stopped = true;
          say(NOT_SAVED + (REASONS[body.code] || body.error || REASONS.unknown));
        });
      })
      .catch(function () {
        dirty = true;
        say(NOT_SAVED + REASONS.unknown);
      })
      .then(function () {
        saving = false;
        if (again) {
          again = false;
          later();
        }
      });
  }

  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') autosave(true);
  });

  // Adding a block in place.
  function newKey() {
    var key;
    do {
      added += 1;
      key = 'n' + added;
    } while (form.querySelector('input[name="blocks"][value="' + key + '"]'));
    return key;
  }

  function addBlock(type, afterKey) {
    var template = document.querySelector('template[data-block-type="' + type + '"]');
    if (!template) return false;
    var holder = document.createElement('ol');
    holder.innerHTML = template.innerHTML.replace(/zzkeyzz/g, newKey());
    var card = holder.querySelector('li.block-card');
    if (!card) return false;
    card.removeAttribute('id');
    var after = afterKey ? list.querySelector(':scope > li.block-card[data-key="' + afterKey + '"]') : null;
    if (after) after.after(card);
    else list.appendChild(card);
    var empty = form.querySelector('.blocks-empty');
    if (empty) empty.remove();
    enableDrag(card);
    renumber();
    changed('Bloc ajouté : il sera gardé à l’enregistrement du brouillon.');
    var field = card.querySelector('input:not([type="hidden"]), textarea, select');
    (field || card).focus();
    return true;
  }

  form.addEventListener('click', function (event) {
    var button = event.target.closest('button[name="action"]');
    if (!button) return;
    var value = button.value;
    var done = false;
    if (value === 'add') {
      var select = form.querySelector('select[name="add_type"]');
      done = select ? addBlock(select.value, null) : false;
    } else {
      var match = /^insert:([a-z0-9]{1,16}):([a-z0-9_-]{1,64})$/.exec(value);
      if (match) {
        done = addBlock(match[2], match[1]);
        var details = button.closest('details');
        if (details) details.open = false;
      }
    }
    if (done) event.preventDefault();
  });

  // Dragging a block by its handle.
  var dragged = null;

  function clearMarks() {
    cards().forEach(function (card) {
      card.classList.remove('drop-before', 'drop-after');
    });
  }

  function enableDrag(card) {
    var handle = card.querySelector('.block-handle');
    if (!handle) return;
    handle.hidden = false;
    handle.title = 'Glisser pour déplacer le bloc';
    // The handle is what drags: the block's fields stay selectable with the mouse.
    handle.draggable = true;
    handle.addEventListener('dragstart', function (event) {
      dragged = card;
      card.classList.add('is-dragging');
      event.dataTransfer.effectAllowed = 'move';
      event.dataTransfer.setData('text/plain', card.getAttribute('data-key') || '');
      if (event.dataTransfer.setDragImage) event.dataTransfer.setDragImage(card, 20, 20);
    });
    handle.addEventListener('dragend', function () {
      card.classList.remove('is-dragging');
      clearMarks();
      dragged = null;
    });
  }

  function dropSide(card, event) {
    var box = card.getBoundingClientRect();
    return event.clientY < box.top + box.height / 2 ? 'before' : 'after';
  }

  list.addEventListener('dragover', function (event) {
    var card = event.target.closest('li.block-card');
    if (!dragged || !card || card === dragged) return;
    event.preventDefault();
    clearMarks();
    card.classList.add(dropSide(card, event) === 'before' ? 'drop-before' : 'drop-after');
  });
  list.addEventListener('drop', function (event) {
    var card = event.target.closest('li.block-card');
    if (!dragged || !card || card === dragged) return;
    event.preventDefault();
    if (dropSide(card, event) === 'before') card.before(dragged);
    else card.after(dragged);
    clearMarks();
    renumber();
    changed('Bloc déplacé : l’ordre sera gardé à l’enregistrement du brouillon.');
  });

  cards().forEach(enableDrag);

  // Alt+↑ / Alt+↓ move the block holding the focus by one place; the focus stays in the
  // field (and its cursor where it was), and the bar says where the block now is.
  form.addEventListener('keydown', function (event) {
    if (!event.altKey || event.ctrlKey || event.metaKey || (event.key !== 'ArrowUp' && event.key !== 'ArrowDown')) return;
    var card = event.target.closest && event.target.closest('ol.blocks > li.block-card');
    if (!card) return;
    var up = event.key === 'ArrowUp';
    var other = up ? card.previousElementSibling : card.nextElementSibling;
    event.preventDefault();
    if (!other) return;
    var field = document.activeElement;
    var start = field && 'selectionStart' in field ? field.selectionStart : null;
    var end = field && 'selectionEnd' in field ? field.selectionEnd : null;
    if (up) other.before(card);
    else other.after(card);
    renumber();
    if (field && field.focus) {
      field.focus();
      if (start !== null && field.setSelectionRange) field.setSelectionRange(start, end);
    }
    changed('Bloc déplacé en position ' + (cards().indexOf(card) + 1) + '\u00a0: l’ordre sera gardé à l’enregistrement du brouillon.');
  });

  // «Aperçu» opens the preview in a new tab, as without a script, but the draft is saved
  // from here: this form then stands on the revision saved, so its autosave goes on.
  var previewButton = form.querySelector('[data-preview-button]');
  if (previewButton) {
    previewButton.addEventListener('click', function (event) {
      var tab = window.open('', '_blank');
      if (!tab) return; // a blocked window: the form opens it itself (formtarget).
      event.preventDefault();
      tab.opener = null;
      clearTimeout(timer);
      var data = formBody();
      data.set('action', 'preview');
      fetch(form.getAttribute('action'), {
        method: 'POST',
        body: data,
        credentials: 'same-origin',
        redirect: 'manual',
        headers: { Accept: 'application/json' },
      })
        .then(function (answer) {
          return answer.json().then(function (body) {
            if (!answer.ok || !body.preview_url) throw new Error(body.error || 'no preview');
            // Merged with someone else's save: their changes are not in this form, so it
            // keeps its revision (the next explicit save merges again, autosave waits).
            if (!body.merged) {
              revision.value = String(body.revision);
              keepIds(body.block_ids || []);
              dirty = false;
            }
            tab.location.href = body.preview_url;
            say(body.message || '');
          });
        })
        .catch(function (error) {
          tab.close();
          say('Aperçu impossible\u00a0: ' + (error && error.message ? error.message : REASONS.unknown));
        });
    });
  }

  // The properties: open in the side panel when the screen is wide enough to show it,
  // folded below that (as the server sends them). «Programmer…» opens its section.
  var properties = Array.prototype.slice.call(form.querySelectorAll('details.property'));
  if (window.matchMedia && window.matchMedia('(min-width: 1024px)').matches) {
    properties.forEach(function (section) {
      section.open = true;
    });
  }
  var scheduleLink = form.querySelector('.editor-schedule-link');
  var schedule = document.getElementById('schedule');
  if (scheduleLink && schedule) {
    scheduleLink.addEventListener('click', function (event) {
      event.preventDefault();
      schedule.open = true;
      schedule.scrollIntoView({ block: 'nearest' });
      var field = schedule.querySelector('input[name="schedule_at"]');
      if (field) field.focus();
    });
  }
})();
