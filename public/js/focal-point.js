// The media screen with JavaScript: a click on the picture places its focal point (the
// marker shows it) and fills the two fields of the form, which «Enregistrer» saves.
// Without this script the two fields are typed in.
(function () {
  'use strict';
  var picker = document.querySelector('[data-focal-picker]');
  var x = document.getElementById('media-focal-x');
  var y = document.getElementById('media-focal-y');
  if (!picker || !x || !y) return;
  var image = picker.querySelector('img');
  var marker = picker.querySelector('.focal-marker');
  var help = document.querySelector('[data-focal-help]');

  function clamp(value) {
    var number = Math.round(Number(value));
    return isNaN(number) ? 50 : Math.min(100, Math.max(0, number));
  }

  // The marker over the picture as drawn (object-fit: contain may leave bands around it).
  function place() {
    var box = image.getBoundingClientRect();
    var frame = picker.getBoundingClientRect();
    var ratio = image.naturalWidth && image.naturalHeight ? image.naturalWidth / image.naturalHeight : box.width / box.height;
    var width = Math.min(box.width, box.height * ratio);
    var height = width / ratio;
    var left = box.left - frame.left + (box.width - width) / 2;
    var top = box.top - frame.top + (box.height - height) / 2;
    marker.style.left = left + (clamp(x.value) / 100) * width + 'px';
    marker.style.top = top + (clamp(y.value) / 100) * height + 'px';
    marker.hidden = false;
    return { left: left + frame.left, top: top + frame.top, width: width, height: height };
  }

  image.addEventListener('click', function (event) {
    var drawn = place();
    x.value = clamp(((event.clientX - drawn.left) / drawn.width) * 100);
    y.value = clamp(((event.clientY - drawn.top) / drawn.height) * 100);
    place();
  });
  x.addEventListener('input', place);
  y.addEventListener('input', place);
  window.addEventListener('resize', place);
  if (image.complete) place();
  else image.addEventListener('load', place);
  picker.classList.add('focal-picker-active');
  if (help) help.hidden = false;
})();
