// Image blocks of the page editor with JavaScript: a file chosen in a block is uploaded
// at once through the media API (with its progress), and becomes the block's picture;
// «Choisir dans la médiathèque…» opens the library in a <dialog> (keyboard: Tab between
// pictures, Entrée to choose, Échap to close). The form keeps its fields: the picture is
// still the block's checked `media_id` radio, so saving works as without this script
// (where the file goes with the save and the library is listed in the block).
(function () {
  'use strict';
  var form = document.getElementById('page-editor');
  var dialog = document.getElementById('media-dialog');
  if (!form) return;
  var opener = null;

  function fieldOf(element) {
    return element.closest('[data-image-field]');
  }

  function say(field, message, failed) {
    var status = field.querySelector('.upload-progress span');
    var line = field.querySelector('.upload-progress');
    if (!status || !line) return;
    line.hidden = false;
    status.textContent = message;
    status.classList.toggle('field-error', Boolean(failed));
  }

  // The block's picture becomes `media`: its radio checked (made when the library listed
  // it not), its thumbnail shown, and its text alternative offered when none is typed.
  function choose(field, media) {
    var radios = field.querySelectorAll('input[type="radio"]');
    if (!radios.length) return;
    var name = radios[0].name;
    var radio = null;
    radios.forEach(function (candidate) {
      if (candidate.value === String(media.id)) radio = candidate;
    });
    if (!radio) {
      var label = document.createElement('label');
      radio = document.createElement('input');
      radio.type = 'radio';
      radio.name = name;
      radio.value = String(media.id);
      var text = document.createElement('span');
      text.textContent = media.name || media.alt || 'Image n° ' + media.id;
      label.append(radio, ' ', text);
      radios[radios.length - 1].closest('label').after(label);
    }
    radio.checked = true;
    var current = field.querySelector('[data-image-current]');
    if (current) {
      var image = document.createElement('img');
      image.src = media.url;
      image.alt = '';
      image.className = 'image-thumb';
      var caption = document.createElement('span');
      caption.textContent = 'Image choisie (' + (media.name || media.url.split('/').pop()) + ')';
      current.replaceChildren(image, ' ', caption);
    }
    var card = field.closest('li.block-card');
    var alt = card && card.querySelector('input[name$=".alt"]');
    if (alt && !alt.value && media.alt) {
      alt.value = media.alt;
      alt.dispatchEvent(new Event('input', { bubbles: true }));
    }
    radio.dispatchEvent(new Event('change', { bubbles: true }));
  }

  // Uploading a block's file at once, with its progress. A refusal is said in the block
  // and the field emptied: the save would be refused the same way.
  function upload(input) {
    var field = fieldOf(input);
    var file = input.files && input.files[0];
    if (!field || !file) return;
    var card = field.closest('li.block-card');
    var alt = card && card.querySelector('input[name$=".alt"]');
    var data = new FormData();
    data.append('file', file);
    if (alt && alt.value) data.append('alt', alt.value);
    var progress = field.querySelector('.upload-progress progress');
    if (progress) progress.value = 0;
    say(field, 'Envoi de l’image\u00a0: 0\u00a0%');
    var request = new XMLHttpRequest();
    request.open('POST', input.getAttribute('data-upload-url'));
    request.setRequestHeader('Accept', 'application/json');
    request.upload.addEventListener('progress', function (event) {
      if (!event.lengthComputable) return;
      var percent = Math.round((event.loaded / event.total) * 100);
      if (progress) progress.value = percent;
      say(field, 'Envoi de l’image\u00a0: ' + percent + '\u00a0%');
    });
    request.addEventListener('load', function () {
      var body = null;
      try {
        body = JSON.parse(request.responseText);
      } catch {
        // Not JSON (a proxy's page): said as «the server did not answer» below.
      }
      input.value = '';
      if (request.status === 201 && body && body.id) {
        if (progress) progress.value = 100;
        choose(field, { id: body.id, url: body.url, alt: body.alt, name: body.original_name });
        addToLibrary(body);
        say(field, 'Image envoyée et ajoutée à la médiathèque.');
        return;
      }
      say(field, 'Image refusée\u00a0: ' + ((body && body.error) || 'le serveur n’a pas répondu.'), true);
    });
    request.addEventListener('error', function () {
      say(field, 'Image non envoyée\u00a0: le serveur n’a pas répondu\u00a0; elle partira avec l’enregistrement du brouillon.', true);
    });
    request.send(data);
  }

  form.addEventListener('change', function (event) {
    if (event.target.matches && event.target.matches('input[type="file"][data-upload-url]')) upload(event.target);
  });

  // The library in a dialog.
  function addToLibrary(media) {
    if (!dialog) return;
    var list = dialog.querySelector('.media-dialog-list');
    if (!list) {
      list = document.createElement('ul');
      list.className = 'media-dialog-list';
      var empty = dialog.querySelector('p.muted');
      if (empty) empty.replaceWith(list);
      else dialog.append(list);
    }
    var item = document.createElement('li');
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'media-dialog-item';
    button.setAttribute('data-media-id', String(media.id));
    button.setAttribute('data-media-url', media.url);
    button.setAttribute('data-media-alt', media.alt || '');
    button.setAttribute('data-media-name', media.original_name || '');
    var image = document.createElement('img');
    image.src = media.url;
    image.alt = '';
    var text = document.createElement('span');
    text.textContent = media.alt || media.original_name || '';
    button.append(image, ' ', text);
    item.append(button);
    list.prepend(item);
  }

  function enhance(field) {
    if (!dialog || field.querySelector('[data-open-library]')) return;
    var picker = field.querySelector('details.media-picker');
    if (!picker) return;
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'button button-secondary button-small';
    button.setAttribute('data-open-library', '');
    button.setAttribute('aria-haspopup', 'dialog');
    button.textContent = 'Choisir dans la médiathèque…';
    picker.before(button);
    // The radios stay in the form (hidden), the dialog chooses among them.
    picker.hidden = true;
  }

  form.querySelectorAll('[data-image-field]').forEach(enhance);
  var list = form.querySelector('ol.blocks');
  if (list && window.MutationObserver) {
    new MutationObserver(function () {
      form.querySelectorAll('[data-image-field]').forEach(enhance);
    }).observe(list, { childList: true });
  }

  if (!dialog) return;
  form.addEventListener('click', function (event) {
    var button = event.target.closest('[data-open-library]');
    if (!button) return;
    opener = button;
    dialog.showModal();
    var first = dialog.querySelector('.media-dialog-item');
    if (first) first.focus();
  });
  dialog.addEventListener('click', function (event) {
    if (event.target.closest('[data-dialog-close]')) return dialog.close();
    var item = event.target.closest('.media-dialog-item');
    if (!item || !opener) return;
    choose(fieldOf(opener), {
      id: item.getAttribute('data-media-id'),
      url: item.getAttribute('data-media-url'),
      alt: item.getAttribute('data-media-alt'),
      name: item.getAttribute('data-media-name'),
    });
    dialog.close();
  });
  dialog.addEventListener('close', function () {
    if (opener) opener.focus();
    opener = null;
  });
})();
