// coordsim report: progressive touches only; every page works without this file.

// The stylesheet places a provenance under its value only when this script can keep it in
// view (below).
document.documentElement.classList.add('js');

// Escape closes the provenance of the marked region that has the focus.
document.addEventListener('keydown', function (event) {
  if (event.key !== 'Escape') {
    return;
  }
  var active = document.activeElement;
  if (active && active.closest && active.closest('.cs-r, .cs-b')) {
    active.blur();
  }
});

// A provenance that would pass the window's right edge moves left to stay in view.
function keepInView(event) {
  var region = event.target.closest && event.target.closest('.cs-r, .cs-b');
  if (!region) {
    return;
  }
  var tip = region.querySelector(':scope > .cs-p');
  if (!tip) {
    return;
  }
  tip.style.left = '';
  var box = tip.getBoundingClientRect();
  var room = document.documentElement.clientWidth - 8;
  if (box.width > 0 && box.right > room) {
    tip.style.left = Math.min(0, room - box.right) + 'px';
  }
}
document.addEventListener('focusin', keepInView);
document.addEventListener('mouseover', keepInView);


// The slider of a config's page (src/site/slider.rs): its section shown, a range input per
// swept parameter; the point whose values they pick shown (its row, timeline and outcomes),
// the others hidden. Without this script the section stays hidden.
document.querySelectorAll('section.sweep-slider').forEach(function (section) {
  var inputs = [].slice.call(section.querySelectorAll('input[type=range]'));
  var points = [].slice.call(section.querySelectorAll('.slider-point'));
  function show() {
    var at = inputs
      .map(function (input) {
        var values = JSON.parse(input.dataset.values);
        input.nextElementSibling.textContent = values[Number(input.value)];
        input.setAttribute('aria-valuetext', values[Number(input.value)]);
        return input.value;
      })
      .join(',');
    points.forEach(function (point) {
      point.hidden = point.dataset.at !== at;
    });
  }
  inputs.forEach(function (input) {
    input.addEventListener('input', show);
  });
  section.hidden = false;
  show();
});

// The live charts (charts.js) follow, run with the whole document as their root.
