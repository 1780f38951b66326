// coordsim report: progressive touches only; every page works without this file.
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
