// The menu screen (/admin/menus), improved when JavaScript runs: Enter in the page
// search searches (without it, Enter presses the form's first button, «Enregistrer»).
// Everything else works without this script.
(function () {
  'use strict';
  document.querySelectorAll('form.menu-form input[name="q"]').forEach(function (field) {
    field.addEventListener('keydown', function (event) {
      if (event.key !== 'Enter' || event.isComposing) return;
      var search = field.form && field.form.querySelector('button[value="search"]');
      if (!search) return;
      event.preventDefault();
      search.click();
    });
  });
})();
