// Password strength indicator (progressive enhancement: without JavaScript the rules
// stay visible and the form works the same). While the field is empty the rules are
// shown; once typing starts, a meter and a word take over.
(function () {
  'use strict';
  var LABELS = ['Trop court', 'Faible', 'Moyen', 'Bon', 'Excellent'];

  function score(value) {
    var length = Array.from(value).length;
    if (length < 8) return 0;
    var points = 1;
    if (length >= 12) points++;
    if (length >= 16) points++;
    var kinds = 0;
    if (/[a-zà-ÿ]/.test(value)) kinds++;
    if (/[A-ZÀ-Þ]/.test(value)) kinds++;
    if (/[0-9]/.test(value)) kinds++;
    if (/[^A-Za-z0-9À-ÿ]/.test(value)) kinds++;
    if (kinds >= 3) points++;
    if (/^(.)\1+$/.test(value) || /^(?:0123|1234|abcd|azer|qwer|password|motdepasse)/i.test(value)) points = 1;
    return Math.min(points, 4);
  }

  function enhance(field) {
    var input = field.querySelector('[data-strength-input]');
    var rules = field.querySelector('[data-password-rules]');
    var strength = field.querySelector('[data-password-strength]');
    if (!input || !rules || !strength) return;
    var meter = strength.querySelector('meter');
    var label = strength.querySelector('.strength-label');
    function update() {
      var empty = input.value.length === 0;
      rules.hidden = !empty;
      strength.hidden = empty;
      if (empty) return;
      var value = score(input.value);
      meter.value = value;
      label.textContent = 'Robustesse\u00a0: ' + LABELS[value];
      strength.setAttribute('data-score', String(value));
    }
    input.addEventListener('input', update);
    update();
  }

  var fields = document.querySelectorAll('[data-password-field]');
  for (var index = 0; index < fields.length; index++) enhance(fields[index]);
})();
