(function (root) {
// coordsim report: the explorer, run as the body of `function (root) { … }` with `root` the
// element that holds explorers: the document on the site's pages (the file explorer.js), a
// lesson's fragment in the fragment (src/site/explorer.rs writes each explorer's element,
// src/export/play.rs its graph). A reader plays an execution one free event at a time from
// the start, goes back and forward, tries other branches (the history is a tree), steps
// through a claim's deciding execution, and jumps to an execution that ends at any outcome.
// Nothing is fetched: the graph is a JSON block in the page, so it works from file://. Each
// `.explorer` element is one explorer with its own state, keys and graph; the script
// leaves no global behind and gives no element an id, so any number share a page.
var boxes = root.querySelectorAll('.explorer');
for (var b = 0; b < boxes.length; b++) {
  setUp(boxes[b]);
}

function setUp(root) {
  // Set up once, though the script may run again over the same page.
  if (root.getAttribute('data-played') !== null) {
    return;
  }
  root.setAttribute('data-played', '');
  var words = JSON.parse(root.querySelector('.explorer-words').textContent);
  var data = JSON.parse(root.querySelector('.explorer-data').textContent);
  var turkish = words.lang === 'tr';
  var points = [];
  data.points.forEach(function (graph, index) {
    if (!graph.refused) {
      points.push({ graph: graph, index: index });
    }
  });
  if (points.length === 0) {
    return;
  }
  root.hidden = false;
  // Focusable (not in the Tab order): a click anywhere in it gives it the keys.
  root.tabIndex = -1;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }
  function fill(text, key, value) {
    return text.split('{' + key + '}').join(value);
  }
  function number(x) {
    if (x === null) {
      return '–';
    }
    return String(x).replace('.', words.dec);
  }

  // The controls, the state and the lists, made once; drawn again on every move.
  var bar = el('div', 'explorer-bar');
  var select = null;
  if (points.length > 1) {
    select = el('select', 'explorer-point');
    select.setAttribute('aria-label', words.point);
    points.forEach(function (p, k) {
      var option = el('option', null, p.graph.l || words.point + ' ' + (p.index + 1));
      option.value = String(k);
      select.appendChild(option);
    });
    select.addEventListener('change', function () {
      choose(Number(select.value));
    });
    bar.appendChild(select);
  }
  function control(text, act) {
    var button = el('button', 'explorer-control', text);
    button.type = 'button';
    button.addEventListener('click', act);
    bar.appendChild(button);
    return button;
  }
  var backButton = control(words.back, function () { back(); });
  var forwardButton = control(words.forward, function () { forward(); });
  control(words.restart, function () { go(tree); });
  var guides = el('div', 'explorer-guides');
  var state = el('div', 'explorer-state');
  state.setAttribute('aria-live', 'polite');
  var free = el('div', 'explorer-free');
  var outcomes = el('div', 'explorer-outcomes');
  var history = el('div', 'explorer-history');
  [bar, guides, state, free, outcomes, history].forEach(function (part) {
    root.appendChild(part);
  });

  var graph = null;
  var point = null;
  var tree = null;
  var current = null;
  var guide = null;

  // A node of the history: a state reached by an edge from its parent's state.
  function node(at, parent, edge) {
    return { at: at, parent: parent, edge: edge, kids: [], last: null };
  }
  function choose(k) {
    point = points[k];
    graph = point.graph;
    tree = node(0, null, -1);
    guide = null;
    current = tree;
    drawGuides();
    drawOutcomes();
    draw();
  }
  // The edges of state `at`: the state each reaches, its rows, its probability (null: a
  // free order). See src/export/play.rs for the packing.
  function edgesOf(at) {
    var packed = graph.s[at][2];
    var edges = [];
    for (var i = 0; i < packed.length; i += 2) {
      var row = packed[i + 1];
      var more = row < 0 ? graph.x[-row - 1] : [[row], null];
      edges.push([at + packed[i], more[0], more[1]]);
    }
    return edges;
  }
  function endOf(at) {
    var k = graph.s[at][3];
    return k === undefined ? null : k;
  }
  function go(target) {
    current = target;
    draw();
  }
  function take(edge) {
    var kid = null;
    current.kids.forEach(function (k) {
      if (k.edge === edge) {
        kid = k;
      }
    });
    if (!kid) {
      kid = node(edgesOf(current.at)[edge][0], current, edge);
      current.kids.push(kid);
    }
    current.last = kid;
    go(kid);
  }
  function back() {
    if (current.parent) {
      current.parent.last = current;
      go(current.parent);
    }
  }
  function forward() {
    if (current.last) {
      go(current.last);
    }
  }
  // The states of `path` (from the start) taken from the start: the moves along it.
  function follow(path) {
    current = tree;
    for (var i = 1; i < path.length; i++) {
      var edges = edgesOf(current.at);
      var edge = -1;
      for (var e = 0; e < edges.length && edge < 0; e++) {
        if (edges[e][0] === path[i]) {
          edge = e;
        }
      }
      if (edge < 0) {
        break;
      }
      take(edge);
    }
  }

  function rowText(id) {
    var row = graph.r[id];
    return {
      actor: graph.t[row[0]],
      action: graph.t[turkish ? row[2] : row[1]],
      choice: graph.t[turkish ? row[4] : row[3]]
    };
  }
  function rowNode(id, tag) {
    var text = rowText(id);
    var line = el(tag || 'span', 'explorer-row');
    line.appendChild(el('span', 'explorer-actor', text.actor));
    line.appendChild(document.createTextNode(' '));
    line.appendChild(el('span', 'explorer-action', text.action));
    if (text.choice) {
      line.appendChild(document.createTextNode(' '));
      line.appendChild(el('span', 'explorer-choice', text.choice));
    }
    return line;
  }
  function actorName(index) {
    return graph.t[graph.actors[index][0]];
  }

  // The state: time, each actor with its program and where it stands, each resource.
  function drawState(at) {
    var s = graph.s[at];
    var cells = s[1].map(function (c) { return graph.c[c]; });
    state.textContent = '';
    state.appendChild(el('p', 'explorer-time', fill(words.time, 't', number(s[0]))));
    state.appendChild(el('h3', null, words.actors));
    var list = el('ul', 'explorer-actors');
    graph.actors.forEach(function (actor, a) {
      var code = cells[a];
      var item = el('li');
      item.appendChild(el('strong', null, graph.t[actor[0]]));
      var status = code === -1 ? words.notStarted : code === -2 ? words.idle
        : code === -3 ? words.crashed : code % 2 === 1 ? words.waiting : '';
      if (status) {
        item.appendChild(document.createTextNode(' (' + status + ')'));
      }
      var program = el('ol', 'explorer-program');
      actor[1].forEach(function (step, k) {
        var line = el('li', null, graph.t[turkish ? step[1] : step[0]]);
        if (code >= 0 && Math.floor(code / 2) === k) {
          line.className = 'explorer-here';
          line.setAttribute('aria-current', 'step');
        }
        program.appendChild(line);
      });
      item.appendChild(program);
      list.appendChild(item);
    });
    state.appendChild(list);
    var at2 = graph.actors.length;
    var res = graph.res;
    if (res[0].length + res[1].length + res[2].length + res[3].length === 0) {
      return;
    }
    state.appendChild(el('h3', null, words.resources));
    var things = el('ul', 'explorer-resources');
    function add(name, text) {
      var item = el('li');
      item.appendChild(el('strong', null, name));
      item.appendChild(document.createTextNode(' ' + text));
      things.appendChild(item);
    }
    res[0].forEach(function (name) {
      add(graph.t[name], '= ' + number(cells[at2++]));
    });
    res[1].forEach(function (name) {
      var lock = cells[at2++];
      var text = lock[0] < 0 ? words.unheld : fill(words.held, 'a', actorName(lock[0]));
      if (lock[1].length > 0) {
        text += '; ' + fill(words.waiters, 'a', lock[1].map(actorName).join(', '));
      }
      add(graph.t[name], text);
    });
    res[2].forEach(function (name) {
      var values = cells[at2++];
      add(graph.t[name], values.length ? '[' + values.map(number).join('; ') + ']' : words.empty);
    });
    res[3].forEach(function (name) {
      var pairs = cells[at2++];
      add(graph.t[name], pairs.length ? '{' + pairs.map(function (p) {
        return p[0] + ': ' + number(p[1]);
      }).join('; ') + '}' : words.empty);
    });
    state.appendChild(things);
  }

  // The free events as buttons, each worded as the trace says it; or the end's outcome.
  function drawFree(at) {
    var edges = edgesOf(at);
    free.textContent = '';
    if (edges.length === 0) {
      var k = endOf(at);
      if (k !== null) {
        free.appendChild(el('p', 'explorer-end', fill(words.ended, 'k', String(k + 1))));
        free.appendChild(outcomeCells(k));
        data.claims.forEach(function (claim, n) {
          if (claim.p === point.index && claim.o === k) {
            free.appendChild(el('p', null, fill(words.decides, 'n', String(claimNumber(n)))));
          }
        });
        // Each claim judged outcome by outcome: whether this end meets its test.
        var truth = ((data.truth || [])[point.index] || [])[k] || [];
        if (truth.length > 0) {
          var claims = el('ul', 'explorer-truth');
          truth.forEach(function (pair) {
            var text = fill(pair[1] ? words.meets : words.misses, 'n', String(pair[0]));
            claims.appendChild(el('li', pair[1] ? 'meets' : 'misses', text));
          });
          free.appendChild(claims);
        }
      }
      return;
    }
    free.appendChild(el('h3', null, words.free));
    var list = el('ul', 'explorer-events');
    var next = guide ? guideNext() : -1;
    edges.forEach(function (edge, e) {
      var button = el('button', 'explorer-event');
      button.type = 'button';
      button.setAttribute('data-rows', String(edge[1].length));
      edge[1].forEach(function (id) {
        button.appendChild(rowNode(id, 'span'));
      });
      if (edge[2] === null && edges.length > 1) {
        button.title = words.noProbability;
      }
      if (e === next) {
        button.classList.add('explorer-guided');
      }
      button.addEventListener('click', function () {
        take(e);
        focusFirst();
      });
      var item = el('li');
      item.appendChild(button);
      list.appendChild(item);
    });
    free.appendChild(list);
  }
  function focusFirst() {
    var first = free.querySelector('button') || backButton;
    first.focus();
  }
  function outcomeCells(k) {
    var o = graph.o[k];
    var list = el('ul', 'explorer-cells');
    data.metrics.forEach(function (name, i) {
      list.appendChild(el('li', null, name + ' = ' + number(o.m[i])));
    });
    return list;
  }

  // Claim n's number as the page counts claims (from 1): its trace's.
  function claimNumber(n) {
    return data.claims[n].c;
  }
  function drawGuides() {
    guides.textContent = '';
    data.claims.forEach(function (claim, n) {
      var o = graph.o[claim.o];
      // A claim decided by a scheduler's most likely execution has that path (g), else the
      // outcome's shortest.
      var path = claim.g || (o && o.path);
      if (claim.p !== point.index || !path) {
        return;
      }
      var button = el('button', 'explorer-control', fill(words.claim, 'n', String(claimNumber(n))));
      button.type = 'button';
      button.title = claim.n;
      button.addEventListener('click', function () {
        guide = { path: path, n: claimNumber(n) };
        go(tree);
      });
      guides.appendChild(button);
    });
  }
  // The edge the guided execution takes next from here, when here is on its path.
  function guideNext() {
    var depth = 0;
    for (var n = current; n.parent; n = n.parent) {
      depth++;
    }
    var on = true;
    for (var m = current, d = depth; m; m = m.parent, d--) {
      if (guide.path[d] !== m.at) {
        on = false;
      }
    }
    if (!on || depth + 1 >= guide.path.length) {
      return -1;
    }
    var edges = edgesOf(current.at);
    for (var e = 0; e < edges.length; e++) {
      if (edges[e][0] === guide.path[depth + 1]) {
        return e;
      }
    }
    return -1;
  }

  // Every outcome: its executions, its probability, and an execution that ends there.
  function drawOutcomes() {
    outcomes.textContent = '';
    outcomes.appendChild(el('h3', null, words.outcomes));
    var list = el('ol', 'explorer-outcome-list');
    graph.o.forEach(function (o, k) {
      var item = el('li');
      item.appendChild(el('strong', null, fill(words.outcome, 'k', String(k + 1))));
      var facts = words.executions + ': ' + o.x;
      if (o.p !== null) {
        facts += '; ' + words.probability + ': ' + number(o.p);
      }
      item.appendChild(document.createTextNode(' — ' + facts));
      item.appendChild(outcomeCells(k));
      if (o.path) {
        var button = el('button', 'explorer-control', words.show);
        button.type = 'button';
        button.addEventListener('click', function () {
          follow(o.path);
          focusFirst();
        });
        item.appendChild(button);
      }
      list.appendChild(item);
    });
    outcomes.appendChild(list);
  }

  // The history as a tree: every branch tried, the current state marked; a step goes there.
  function drawHistory() {
    history.textContent = '';
    history.appendChild(el('h3', null, words.history));
    function branch(n) {
      var item = el('li');
      var button = el('button', 'explorer-step');
      button.type = 'button';
      if (n.parent) {
        var edge = edgesOf(n.parent.at)[n.edge];
        edge[1].forEach(function (id) {
          button.appendChild(rowNode(id, 'span'));
        });
      } else {
        button.textContent = words.start;
      }
      if (n === current) {
        button.setAttribute('aria-current', 'step');
      }
      button.addEventListener('click', function () {
        go(n);
        // The tree is drawn again: the step now current takes the focus (and the keys).
        history.querySelector('[aria-current]').focus();
      });
      item.appendChild(button);
      if (n.kids.length > 0) {
        var kids = el('ul');
        n.kids.forEach(function (k) { kids.appendChild(branch(k)); });
        item.appendChild(kids);
      }
      return item;
    }
    var top = el('ul', 'explorer-tree');
    top.appendChild(branch(tree));
    history.appendChild(top);
  }

  function draw() {
    drawState(current.at);
    drawFree(current.at);
    drawHistory();
    // A button that is disabled loses the focus: the explorer keeps it (and the keys).
    [[backButton, !current.parent], [forwardButton, !current.last]].forEach(function (pair) {
      if (pair[1] && document.activeElement === pair[0]) {
        root.focus({ preventScroll: true });
      }
      pair[0].disabled = pair[1];
    });
  }

  // b / f (and the arrow keys) go back and forward in the explorer that has the focus.
  root.addEventListener('keydown', function (event) {
    var target = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey || (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName))) {
      return;
    }
    if (event.key === 'b' || event.key === 'ArrowLeft') {
      back();
      event.preventDefault();
    } else if (event.key === 'f' || event.key === 'ArrowRight') {
      forward();
      event.preventDefault();
    }
  });

  choose(0);
}
})(document);
