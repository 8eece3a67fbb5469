// The role form with JavaScript: the key (hidden in «Clé pour l’API») follows the label
// as it is typed, the way the server derives it when the key is left empty, until the
// person types a key of their own. Without this script the server derives it on save.
(function () {
  'use strict';
  var label = document.getElementById('role-label');
  var key = document.getElementById('role-name');
  var shown = document.querySelector('[data-role-key-shown]');
  if (!label || !key) return;

  // Same rule as models/auth/roles.ts roleNameFromLabel.
  function derive(text) {
    var value = text
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 56)
      .replace(/-+$/, '');
    return value || 'role';
  }

  // A key already written by hand (or an existing role's) is left as it is.
  var follows = key.value === '' || key.value === derive(label.value);

  function show() {
    if (shown) shown.textContent = key.value || derive(label.value);
  }

  label.addEventListener('input', function () {
    if (follows) key.value = label.value.trim() ? derive(label.value) : '';
    show();
  });
  key.addEventListener('input', function () {
    follows = key.value === '';
    show();
  });
  show();
})();
