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
(function (root) {
// coordsim report: live charts, run as the body of `function (root) { … }` with `root` the
// element that holds the charts: the document on the site's pages (site.js), a lesson's
// fragment in the fragment (src/site/fragment.rs). It reads and changes nothing outside
// `root` but the CSV file it saves, and leaves no global behind.
//
// A line or bar chart's figure holds its points (a JSON block, see src/site/live.rs): a
// point under the pointer, a tap or the keyboard's focus shows its values; a CSV button
// saves the points; on a chart of several series a control picks one out. A chart drawn
// inline saves itself as SVG or PNG. Without this
// script the figure is its image alone. A figure's chart is an image (`img`, a page of the
// site) or drawn inline (`.cs-svg`, two SVG renderings, one shown: a fragment's).
// Saves `blob` as `file`: a link made here and clicked (no request is made).
function download(blob, file) {
  var link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = file;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(function () { URL.revokeObjectURL(link.href); }, 0);
}

// A chart drawn inline (a fragment's, which links to no file) saves the rendering shown as
// SVG, or as PNG drawn from it on a canvas; a page of the site links its files instead.
function saveButtons(figure) {
  var box = figure.querySelector('.cs-svg');
  var caption = figure.querySelector('.cs-caption');
  if (!box || !caption) {
    return;
  }
  var name = figure.dataset.name || 'chart';
  function svgText() {
    var small = box.querySelector('.cs-narrow');
    var shown = small && small.getBoundingClientRect().width > 0 ? small : box.querySelector('.cs-full');
    var svg = shown.cloneNode(true);
    svg.removeAttribute('class');
    svg.removeAttribute('style');
    var view = shown.viewBox && shown.viewBox.baseVal;
    if (view && view.width > 0) {
      svg.setAttribute('width', String(view.width));
      svg.setAttribute('height', String(view.height));
    }
    return new XMLSerializer().serializeToString(svg);
  }
  function button(text, act) {
    var b = document.createElement('button');
    b.type = 'button';
    b.className = 'chart-csv';
    b.textContent = text;
    b.addEventListener('click', act);
    caption.appendChild(document.createTextNode(' · '));
    caption.appendChild(b);
  }
  button('SVG', function () {
    download(new Blob([svgText()], { type: 'image/svg+xml' }), name + '.svg');
  });
  button('PNG', function () {
    var url = URL.createObjectURL(new Blob([svgText()], { type: 'image/svg+xml' }));
    var img = new Image();
    img.onload = function () {
      var canvas = document.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      var paint = canvas.getContext('2d');
      paint.fillStyle = '#fff';
      paint.fillRect(0, 0, canvas.width, canvas.height);
      paint.drawImage(img, 0, 0);
      URL.revokeObjectURL(url);
      canvas.toBlob(function (png) { download(png, name + '.png'); }, 'image/png');
    };
    img.src = url;
  });
}
root.querySelectorAll('.cs-figure').forEach(saveButtons);

var wordsBlock = root.querySelector('script.chart-words');
if (!wordsBlock) {
  return;
}
var words = JSON.parse(wordsBlock.textContent);
var svgNS = 'http://www.w3.org/2000/svg';

// A number as the page writes numbers (`1.234,5` on a Turkish page), from the digits
// the report's CSV files write: the shortest that read back exactly.
function number(n) {
  if (n === null || n === undefined) {
    return '';
  }
  var text = String(n);
  var parts = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!parts) {
    return text;
  }
  var whole = parts[2];
  if (whole.length >= Number(words.from)) {
    whole = whole.replace(/\B(?=(\d{3})+(?!\d))/g, words.grp);
  }
  return parts[1] + whole + (parts[3] === undefined ? '' : words.dec + parts[3]);
}

function csvField(text) {
  text = String(text);
  return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}

function setUp(figure, chart) {
  // What takes the pointer and the keys: the image, or the box of the inline renderings.
  var img = figure.querySelector('img, .cs-svg');
  var caption = figure.querySelector('figcaption, .cs-caption');
  if (!img || !caption) {
    return;
  }
  var inline = img.tagName !== 'IMG';
  var name = figure.dataset.name || figure.id.replace(/^chart-/, '');
  var series = chart.s;
  var chosen = -1;
  var current = null;
  var intervals = series.some(function (s) {
    return s.p.some(function (p) { return p.length > 6; });
  });

  var tip = document.createElement('div');
  tip.className = 'chart-tip';
  tip.setAttribute('role', 'status');
  tip.hidden = true;
  var ring = document.createElement('div');
  ring.className = 'chart-ring';
  ring.hidden = true;
  var overlay = document.createElementNS(svgNS, 'svg');
  overlay.setAttribute('class', 'chart-pick');
  overlay.setAttribute('aria-hidden', 'true');
  overlay.style.display = 'none';
  figure.appendChild(overlay);
  figure.appendChild(ring);
  figure.appendChild(tip);


  // The rendering shown (the phone's on a narrow screen, or in a narrow box): the element
  // it is drawn in, its size and where a point is.
  function rendering() {
    var narrow;
    var shown = img;
    if (inline) {
      var small = img.querySelector('.cs-narrow');
      narrow = small !== null && small.getBoundingClientRect().width > 0;
      shown = narrow ? small : img.querySelector('.cs-full');
    } else {
      narrow = /\.narrow\.svg$/.test(img.currentSrc || '');
    }
    return { size: narrow ? chart.n : chart.w, at: narrow ? 4 : 2, shown: shown };
  }
  function place(point) {
    var r = rendering();
    var x = point[r.at];
    var y = point[r.at + 1];
    if (x === null || y === null) {
      return null;
    }
    var box = r.shown.getBoundingClientRect();
    var frame = figure.getBoundingClientRect();
    return {
      x: box.left - frame.left + (x * box.width) / r.size[0],
      y: box.top - frame.top + (y * box.height) / r.size[1],
    };
  }
  function visible(s) {
    return chosen === -1 || s === chosen;
  }
  function drawn(s, k) {
    return place(series[s].p[k]) !== null;
  }

  function line(label, value) {
    var row = document.createElement('div');
    if (label) {
      var key = document.createElement('span');
      key.className = 'chart-key';
      key.textContent = label + ': ';
      row.appendChild(key);
    }
    var v = document.createElement('span');
    v.className = 'chart-value';
    v.textContent = value;
    row.appendChild(v);
    tip.appendChild(row);
  }
  function xText(x) {
    return chart.cat ? chart.cat[x] : number(x);
  }

  function show(s, k) {
    var point = series[s].p[k];
    var at = place(point);
    if (!at) {
      return;
    }
    current = { s: s, k: k };
    tip.textContent = '';
    var head = document.createElement('div');
    head.className = 'chart-series';
    var swatch = document.createElement('span');
    swatch.className = 'chart-swatch';
    swatch.style.background = series[s].c;
    head.appendChild(swatch);
    head.appendChild(document.createTextNode(series[s].l));
    tip.appendChild(head);
    line(chart.x, xText(point[0]));
    line(chart.y, number(point[1]));
    if (point.length > 6) {
      line(chart.ci, number(point[6]) + ' – ' + number(point[7]));
    }
    tip.dataset.series = String(s);
    tip.dataset.point = String(k);
    ring.hidden = false;
    ring.style.left = at.x - ring.offsetWidth / 2 + 'px';
    ring.style.top = at.y - ring.offsetHeight / 2 + 'px';
    tip.hidden = false;
    // Above the point, kept inside the figure; below it where there is no room above.
    var width = tip.offsetWidth;
    var room = figure.clientWidth;
    var left = Math.max(0, Math.min(at.x - width / 2, room - width));
    var top = at.y - tip.offsetHeight - 14;
    if (top < 0) {
      top = at.y + 14;
    }
    tip.style.left = left + 'px';
    tip.style.top = top + 'px';
  }
  function hide() {
    tip.hidden = true;
    ring.hidden = true;
  }

  // The drawn point nearest (x, y), in CSS pixels of the figure, within `reach`.
  function nearest(x, y, reach) {
    var best = null;
    var bestDistance = reach * reach;
    series.forEach(function (se, s) {
      if (!visible(s)) {
        return;
      }
      se.p.forEach(function (point, k) {
        var at = place(point);
        if (!at) {
          return;
        }
        var d = (at.x - x) * (at.x - x) + (at.y - y) * (at.y - y);
        if (d <= bestDistance) {
          bestDistance = d;
          best = { s: s, k: k };
        }
      });
    });
    return best;
  }
  function pointer(event, reach) {
    var frame = figure.getBoundingClientRect();
    var hit = nearest(event.clientX - frame.left, event.clientY - frame.top, reach);
    if (hit) {
      show(hit.s, hit.k);
    } else if (document.activeElement !== img) {
      hide();
    }
  }
  img.addEventListener('pointermove', function (event) {
    if (event.pointerType !== 'touch') {
      pointer(event, 24);
    }
  });
  img.addEventListener('pointerdown', function (event) {
    if (event.pointerType === 'touch') {
      pointer(event, 40);
    }
  });
  // The pointer gone, the keys start again at the first point.
  img.addEventListener('pointerleave', function (event) {
    if (event.pointerType !== 'touch' && document.activeElement !== img) {
      hide();
      current = null;
    }
  });

  // The keyboard: left and right along a series, up and down to the next series.
  function first() {
    for (var s = 0; s < series.length; s += 1) {
      if (!visible(s)) {
        continue;
      }
      for (var k = 0; k < series[s].p.length; k += 1) {
        if (drawn(s, k)) {
          return { s: s, k: k };
        }
      }
    }
    return null;
  }
  // The next drawn point `step` away along the series (from `from`, or the current one).
  function along(step, from) {
    var p = series[current.s].p;
    var start = from === undefined ? current.k + step : from;
    for (var k = start; k >= 0 && k < p.length; k += step) {
      if (drawn(current.s, k)) {
        return { s: current.s, k: k };
      }
    }
    return current;
  }
  function across(step) {
    var x = series[current.s].p[current.k][0];
    for (var s = current.s + step; s >= 0 && s < series.length; s += step) {
      if (!visible(s)) {
        continue;
      }
      var best = null;
      series[s].p.forEach(function (point, k) {
        if (!drawn(s, k)) {
          return;
        }
        if (best === null || Math.abs(point[0] - x) < Math.abs(series[s].p[best][0] - x)) {
          best = k;
        }
      });
      if (best !== null) {
        return { s: s, k: best };
      }
    }
    return current;
  }
  img.addEventListener('focus', function () {
    var at = current && visible(current.s) ? current : first();
    if (at) {
      show(at.s, at.k);
    }
  });
  img.addEventListener('blur', hide);
  img.addEventListener('keydown', function (event) {
    if (!current) {
      return;
    }
    var next = null;
    switch (event.key) {
      case 'ArrowRight':
        next = along(1);
        break;
      case 'ArrowLeft':
        next = along(-1);
        break;
      case 'ArrowDown':
        next = across(1);
        break;
      case 'ArrowUp':
        next = across(-1);
        break;
      case 'Home':
        next = along(1, 0);
        break;
      case 'End':
        next = along(-1, series[current.s].p.length - 1);
        break;
      case 'Escape':
        hide();
        return;
      default:
        return;
    }
    event.preventDefault();
    if (next) {
      show(next.s, next.k);
    }
  });

  // Save: the points as CSV, a file built here (no request is made). Then what the keys
  // do, which the image's focus also says.
  var save = document.createElement('button');
  save.type = 'button';
  save.className = 'chart-csv';
  save.textContent = 'CSV';
  save.title = words.csv;
  caption.appendChild(document.createTextNode(' · '));
  caption.appendChild(save);
  var hint = document.createElement('span');
  hint.className = 'chart-hint';
  hint.id = figure.id + '-keys';
  hint.textContent = words.keys;
  caption.appendChild(hint);
  img.tabIndex = 0;
  img.setAttribute('aria-describedby', hint.id);
  save.addEventListener('click', function () {
    var head = [chart.x, words.series, chart.y];
    if (intervals) {
      head.push(chart.ci + ': ' + words.low, chart.ci + ': ' + words.high);
    }
    var rows = [head.map(csvField).join(',')];
    series.forEach(function (se) {
      se.p.forEach(function (point) {
        var row = [chart.cat ? chart.cat[point[0]] : point[0], se.l, point[1]];
        if (intervals) {
          row.push(point.length > 6 ? point[6] : '', point.length > 6 ? point[7] : '');
        }
        rows.push(row.map(function (v) { return csvField(v === null ? '' : v); }).join(','));
      });
    });
    download(new Blob([rows.join('\n') + '\n'], { type: 'text/csv' }), name + '.csv');
  });

  // One series picked out: the rest of the chart paled, its points marked in its colour
  // (joined on a line chart's data series), and only its points under the pointer and keys.
  function pick() {
    while (overlay.firstChild) {
      overlay.removeChild(overlay.firstChild);
    }
    if (chosen === -1) {
      overlay.style.display = 'none';
      return;
    }
    var r = rendering();
    var box = r.shown.getBoundingClientRect();
    var frame = figure.getBoundingClientRect();
    overlay.style.display = 'block';
    overlay.style.left = box.left - frame.left + 'px';
    overlay.style.top = box.top - frame.top + 'px';
    overlay.style.width = box.width + 'px';
    overlay.style.height = box.height + 'px';
    overlay.setAttribute('viewBox', '0 0 ' + r.size[0] + ' ' + r.size[1]);
    var pale = document.createElementNS(svgNS, 'rect');
    pale.setAttribute('width', r.size[0]);
    pale.setAttribute('height', r.size[1]);
    pale.setAttribute('fill', '#ffffff');
    pale.setAttribute('fill-opacity', '0.7');
    overlay.appendChild(pale);
    var se = series[chosen];
    var at = se.p
      .map(function (p) { return [p[r.at], p[r.at + 1]]; })
      .filter(function (p) { return p[0] !== null && p[1] !== null; });
    if (!chart.bar && !se.r && at.length > 1) {
      var path = document.createElementNS(svgNS, 'polyline');
      path.setAttribute('points', at.map(function (p) { return p.join(','); }).join(' '));
      path.setAttribute('fill', 'none');
      path.setAttribute('stroke', se.c);
      path.setAttribute('stroke-width', '4');
      overlay.appendChild(path);
    }
    at.forEach(function (p) {
      var dot = document.createElementNS(svgNS, 'circle');
      dot.setAttribute('cx', p[0]);
      dot.setAttribute('cy', p[1]);
      dot.setAttribute('r', '7');
      dot.setAttribute('fill', se.c);
      overlay.appendChild(dot);
    });
  }
  if (series.length > 1) {
    var control = document.createElement('label');
    control.className = 'chart-control';
    control.appendChild(document.createTextNode(words.series + ' '));
    var select = document.createElement('select');
    var every = document.createElement('option');
    every.value = '-1';
    every.textContent = words.all;
    select.appendChild(every);
    series.forEach(function (se, s) {
      var option = document.createElement('option');
      option.value = String(s);
      option.textContent = se.l;
      select.appendChild(option);
    });
    control.appendChild(select);
    figure.insertBefore(control, figure.firstChild);
    select.addEventListener('change', function () {
      chosen = Number(select.value);
      hide();
      if (current && !visible(current.s)) {
        current = null;
      }
      pick();
    });
  }
  window.addEventListener('resize', function () {
    hide();
    pick();
  });
}

root.querySelectorAll('figure.live, .cs-figure.live').forEach(function (figure) {
  var block = figure.querySelector('script.chart-points');
  if (block) {
    setUp(figure, JSON.parse(block.textContent));
  }
});
})(document);
