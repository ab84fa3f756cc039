/* graphmem interactive graph view: reads the inline JSON, draws it with Cytoscape.js, and wires
   search and the details panel. Memory text is user content, so it is only ever set as textContent. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("graph-data").textContent);
  var statusEl = document.getElementById("status");
  var detailsEl = document.getElementById("details");
  var view = { cy: null, ready: null, errors: window.__graphmemErrors, select: null, search: null };
  window.graphmemView = view;

  var byId = {};
  data.nodes.forEach(function (node) { byId[node.id] = node; });
  var useActivation = data.nodes.some(function (node) { return (node.activation || 0) > 0; });
  var metric = function (node) {
    return useActivation ? Math.sqrt(node.activation || 0) : Math.sqrt(node.degree || 0);
  };
  var maxMetric = Math.max.apply(null, data.nodes.map(metric).concat([1e-9]));

  var elements = data.nodes.map(function (node) {
    var ratio = metric(node) / maxMetric;
    // Memories are what the user stored: they never shrink below a readable box.
    var size = node.node_type === "memory" ? 22 + 40 * ratio : 10 + 36 * ratio;
    return { group: "nodes", data: { id: node.id, label: node.label, color: node.color, size: size,
                                      node_type: node.node_type, kind: node.kind } };
  }).concat(data.edges.map(function (edge, index) {
    return { group: "edges", data: { id: "e" + index, source: edge.source, target: edge.target,
                                      edge_type: edge.edge_type, family: edge.family,
                                      label: edge.family === "relation" ? edge.edge_type : "" } };
  }));

  function edgeStyleRules() {
    return Object.keys(data.edgeStyles).map(function (type) {
      var style = data.edgeStyles[type];
      return { selector: 'edge[edge_type = "' + type + '"]',
               style: { "line-color": style.color, "target-arrow-color": style.color,
                        "line-style": style.line, "target-arrow-shape": style.arrow ? "triangle" : "none" } };
    });
  }

  var style = [
    { selector: "node", style: { "background-color": "data(color)", width: "data(size)", height: "data(size)",
                                 label: "data(label)", "font-size": 9, "text-wrap": "ellipsis",
                                 "text-max-width": 140, color: "#333", "text-valign": "bottom",
                                 "text-margin-y": 3, "min-zoomed-font-size": 7 } },
    { selector: 'node[node_type = "memory"]', style: { shape: "round-rectangle", "border-width": 1,
                                                         "border-color": "#555" } },
    { selector: 'node[node_type = "concept"]', style: { shape: "ellipse" } },
    { selector: "edge", style: { width: 1, "curve-style": "haystack", "line-color": "#ccc", opacity: 0.8 } },
    { selector: 'edge[family = "relation"]', style: { width: 2.5, "curve-style": "bezier", label: "data(label)",
                                                        "font-size": 8, "text-rotation": "autorotate",
                                                        color: "#444", "arrow-scale": 1.1 } }
  ].concat(edgeStyleRules()).concat([
    { selector: ".faded", style: { opacity: 0.12, "text-opacity": 0.1 } },
    { selector: ".match", style: { "border-width": 4, "border-color": "#ffbf00" } },
    { selector: "node:selected", style: { "border-width": 4, "border-color": "#000" } }
  ]);

  var cy = cytoscape({ container: document.getElementById("graph"), elements: elements, style: style,
                       minZoom: 0.05, maxZoom: 5 });
  view.cy = cy;
  var layout = cy.layout(data.nodes.length <= 1500
    ? { name: "cose", animate: false, fit: true, padding: 30, randomize: true, nodeRepulsion: function () { return 9000; },
        idealEdgeLength: function () { return 60; }, numIter: 1500 }
    : { name: "concentric", animate: false, fit: true, padding: 30, minNodeSpacing: 4,
        concentric: function (node) { return node.degree(); }, levelWidth: function () { return 2; } });
  view.ready = new Promise(function (resolve) {
    layout.one("layoutstop", function () {
      statusEl.textContent = cy.nodes().length + " nodes, " + cy.edges().length + " edges";
      document.body.setAttribute("data-rendered-nodes", String(cy.nodes().length));
      resolve(cy.nodes().length);
    });
  });
  layout.run();

  function element(tag, text, className) {
    var el = document.createElement(tag);
    if (text !== undefined) { el.textContent = text; }
    if (className) { el.className = className; }
    return el;
  }

  function showDetails(id) {
    var node = byId[id];
    detailsEl.textContent = "";
    if (!node) { return; }
    var badge = element("span", node.node_type + (node.kind ? " · " + node.kind : ""), "badge");
    badge.style.background = node.color;
    var heading = element("h2");
    heading.appendChild(badge);
    heading.appendChild(document.createTextNode(node.node_type === "concept" ? node.label : node.id));
    detailsEl.appendChild(heading);
    if (node.attrs.content) { detailsEl.appendChild(element("div", node.attrs.content, "content")); }
    var table = element("table");
    Object.keys(node.attrs).sort().forEach(function (key) {
      if (key === "content" || key === "label") { return; }
      var row = element("tr");
      row.appendChild(element("td", key));
      row.appendChild(element("td", String(node.attrs[key])));
      table.appendChild(row);
    });
    detailsEl.appendChild(table);
    detailsEl.appendChild(relationsList(id));
  }

  function relationsList(id) {
    var section = element("div");
    var edges = cy.getElementById(id).connectedEdges();
    section.appendChild(element("h2", "Relations (" + edges.length + ")"));
    var list = element("ul");
    edges.sort(function (a, b) { return a.data("family") === "relation" ? -1 : b.data("family") === "relation" ? 1 : 0; })
      .slice(0, 200).forEach(function (edge) {
        var outgoing = edge.data("source") === id;
        var other = byId[outgoing ? edge.data("target") : edge.data("source")];
        var item = element("li", (outgoing ? "→ " : "← ") + edge.data("edge_type") + " ");
        var link = element("a", other.node_type === "concept" ? other.label : other.label || other.id);
        link.setAttribute("data-node", other.id);
        link.addEventListener("click", function () { view.select(other.id); });
        item.appendChild(link);
        list.appendChild(item);
      });
    section.appendChild(list);
    return section;
  }

  view.select = function (id) {
    var target = cy.getElementById(id);
    if (target.empty()) { return false; }
    cy.nodes().unselect();
    target.select();
    showDetails(id);
    return true;
  };

  view.search = function (query) {
    var text = query.trim().toLowerCase();
    cy.elements().removeClass("faded match");
    if (!text) { statusEl.textContent = cy.nodes().length + " nodes, " + cy.edges().length + " edges"; return cy.collection(); }
    var matches = cy.nodes().filter(function (node) {
      var source = byId[node.id()];
      return (source.label + " " + (source.attrs.content || "") + " " + node.id()).toLowerCase().indexOf(text) >= 0;
    });
    cy.elements().addClass("faded");
    matches.removeClass("faded").addClass("match");
    matches.connectedEdges().removeClass("faded");
    statusEl.textContent = matches.length + " of " + cy.nodes().length + " nodes match";
    return matches;
  };

  var searchEl = document.getElementById("search");
  searchEl.addEventListener("input", function () { view.search(searchEl.value); });
  searchEl.addEventListener("keydown", function (event) {
    if (event.key !== "Enter") { return; }
    var matches = view.search(searchEl.value);
    if (matches.length) { cy.fit(matches, 60); view.select(matches[0].id()); }
  });
  cy.on("tap", "node", function (event) { view.select(event.target.id()); });
  cy.on("tap", function (event) {
    if (event.target === cy) { cy.nodes().unselect(); detailsEl.textContent = ""; }
  });

  (function legend() {
    var legendEl = document.getElementById("legend");
    var kinds = {}, edgeTypes = {};
    data.nodes.forEach(function (node) { kinds[node.node_type + (node.kind ? ": " + node.kind : "")] = node.color; });
    data.edges.forEach(function (edge) { edgeTypes[edge.edge_type] = data.edgeStyles[edge.edge_type] || data.defaultEdgeStyle; });
    legendEl.appendChild(element("h3", "Nodes (size: " + (useActivation ? "activation" : "degree") + ")"));
    Object.keys(kinds).sort().forEach(function (name) {
      var item = element("div", undefined, "item"), swatch = element("span", undefined, "swatch");
      swatch.style.background = kinds[name];
      item.appendChild(swatch); item.appendChild(document.createTextNode(name)); legendEl.appendChild(item);
    });
    legendEl.appendChild(element("h3", "Edges"));
    Object.keys(edgeTypes).sort().forEach(function (name) {
      var item = element("div", undefined, "item"), line = element("span", undefined, "line");
      line.style.borderTopStyle = edgeTypes[name].line; line.style.borderTopColor = edgeTypes[name].color;
      item.appendChild(line); item.appendChild(document.createTextNode(name)); legendEl.appendChild(item);
    });
  })();
})();
