// SPDX-License-Identifier: Apache-2.0
// The explorers of the cuda-coop docs: each <figure class="coop-explorer"> holds its frames as JSON
// (written by docs/_ext/coop_explorers.py from cuda.coop._models); this plays them: a control per
// parameter, steps, and the frame drawn as grids of cells. Without JavaScript the static diagram
// stays.
"use strict";

(function () {
  const MARKS = ["", "new", "undef", "off"];

  function colour(key, nkeys) {
    if (key < 0) return "#ffffff";
    const hue = Math.round((300 * key) / Math.max(nkeys - 1, 1));
    return "hsl(" + hue + ", 70%, 82%)";
  }

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function drawFrame(stage, frame, nkeys) {
    stage.replaceChildren();
    for (const panel of frame.panels) {
      const box = el("div", "coop-panel");
      box.appendChild(el("div", "coop-panel-title", panel.title));
      for (const [label, cells] of panel.rows) {
        const row = el("div", "coop-row");
        row.dataset.label = label;
        row.appendChild(el("span", "coop-label", label));
        for (const [text, key, mark] of cells) {
          const cell = el("span", ("coop-cell " + MARKS[mark]).trim(), text);
          cell.style.background = mark === 2 ? "" : colour(key, nkeys);
          cell.dataset.text = text;
          cell.dataset.key = String(key);
          cell.dataset.mark = MARKS[mark];
          row.appendChild(cell);
        }
        box.appendChild(row);
      }
      stage.appendChild(box);
    }
  }

  function setUp(figure) {
    const data = JSON.parse(figure.querySelector("script.coop-data").textContent);
    const ui = el("div", "coop-ui");
    const controls = el("div", "coop-controls");
    const selects = [];
    const initial = data.default.split("|");
    data.params.forEach(function (param, i) {
      const label = el("label", "coop-param", param.label + " ");
      const select = el("select");
      select.dataset.param = param.name;
      for (const option of param.options) {
        const opt = el("option", "", option);
        opt.value = option;
        select.appendChild(opt);
      }
      select.value = initial[i];
      label.appendChild(select);
      controls.appendChild(label);
      selects.push(select);
    });
    const steps = el("div", "coop-steps");
    const buttons = {};
    for (const [name, text, title] of [
      ["first", "first", "the first frame"],
      ["prev", "back", "the frame before"],
      ["play", "play", "play the frames"],
      ["next", "next", "the next frame"],
      ["last", "last", "the last frame"],
    ]) {
      const b = el("button", "coop-" + name, text);
      b.type = "button";
      b.title = title;
      b.dataset.action = name;
      buttons[name] = b;
      steps.appendChild(b);
    }
    const counter = el("span", "coop-counter");
    steps.appendChild(counter);
    const message = el("div", "coop-message");
    const caption = el("div", "coop-caption");
    caption.setAttribute("aria-live", "polite"); // a screen reader reads each step's caption
    const stage = el("div", "coop-stage");
    ui.append(controls, steps, message, caption, stage);
    figure.querySelector(".coop-static").after(ui);
    figure.classList.add("coop-live");

    let frames = [];
    let nkeys = 1;
    let at = 0;
    let timer = null;

    function key() {
      return selects.map((s) => s.value).join("|");
    }

    function show() {
      const frame = frames[at];
      counter.textContent = "frame " + (at + 1) + " / " + frames.length;
      figure.dataset.frame = String(at);
      caption.textContent = frame.caption;
      drawFrame(stage, frame, nkeys);
      buttons.first.disabled = buttons.prev.disabled = at === 0;
      buttons.next.disabled = buttons.last.disabled = at === frames.length - 1;
    }

    function choose(changed) {
      let k = key();
      if (!(k in data.cases)) {
        // keep what was just picked; take the first valid choice that has it
        const i = selects.indexOf(changed);
        const found = Object.keys(data.cases).find((c) => c.split("|")[i] === changed.value);
        if (found === undefined) {
          message.textContent = "Not a valid choice.";
          return;
        }
        found.split("|").forEach((v, j) => (selects[j].value = v));
        message.textContent = "Some controls changed: that combination is not a valid call.";
        k = found;
      } else {
        message.textContent = "";
      }
      figure.dataset.choice = k;
      frames = data.cases[k].frames;
      nkeys = data.cases[k].nkeys;
      at = 0;
      show();
    }

    function stop() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      buttons.play.textContent = "play";
    }

    selects.forEach((s) => s.addEventListener("change", () => (stop(), choose(s))));
    buttons.first.addEventListener("click", () => (stop(), (at = 0), show()));
    buttons.prev.addEventListener("click", () => (stop(), (at = Math.max(0, at - 1)), show()));
    buttons.next.addEventListener("click", () => (stop(), (at = Math.min(frames.length - 1, at + 1)), show()));
    buttons.last.addEventListener("click", () => (stop(), (at = frames.length - 1), show()));
    buttons.play.addEventListener("click", function () {
      if (timer !== null) return stop();
      if (at === frames.length - 1) at = 0;
      show();
      buttons.play.textContent = "stop";
      timer = setInterval(function () {
        if (at >= frames.length - 1) return stop();
        at += 1;
        show();
      }, 1200);
    });
    choose(selects[0]);
  }

  function start() {
    document.querySelectorAll("figure.coop-explorer").forEach(setUp);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
