// Draw an entity's neighbourhood from the JSON the page embeds; the table below it says the same without JavaScript.
document.addEventListener("DOMContentLoaded", () => {
  const data = document.getElementById("neighbourhood-data");
  const container = document.getElementById("neighbourhood-graph");
  if (!data || !container || typeof cytoscape === "undefined") return;
  const colours = {entity: "#417690", fact: "#79aec8", message: "#ba2121"};
  cytoscape({
    container,
    elements: JSON.parse(data.textContent),
    style: [
      {selector: "node", style: {
        "label": "data(label)", "font-size": 10, "text-wrap": "ellipsis", "text-max-width": 140,
        "background-color": (n) => colours[n.data("kind")] || "#999", "color": "#333", "width": 18, "height": 18}},
      {selector: "node[?center]", style: {"width": 30, "height": 30, "font-weight": "bold"}},
      {selector: "edge", style: {
        "label": "data(label)", "font-size": 8, "curve-style": "bezier", "target-arrow-shape": "triangle",
        "width": 1, "line-color": "#bbb", "target-arrow-color": "#bbb"}},
    ],
    layout: {name: "concentric", concentric: (n) => (n.data("center") ? 2 : 1), minNodeSpacing: 40},
  });
});
