/* citerender cards: where a hover card opens, chosen as it opens (an enhancement: without this
   script the stylesheet's anchored placement shows every card). A card opens next to its
   citation (within 40 px on a tablet or a desktop), inside the window, whole (no inner scroll
   while the window has room), never on its citation; on a phone, full width, never on the claim
   either (the citation's line and the two lines above); and, of the places that allow, the one
   that covers no other citation, so the pointer or a tap reaches every one with a card open. */
(() => {
  "use strict";
  const EDGE = 8, GAP = 6, NEAR = 40, PHONE = 600, STEP = 8;
  const root = document.documentElement;

  const box = (x, y, w, h) => ({ x, y, w, h });
  const meets = (a, b) => a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5;
  const of = (r) => box(r.left, r.top, r.width, r.height);

  /* the claim's boxes: the text since the previous citation of the block, on the citation's line
     and the two lines above; and the line of the citation (its top and bottom) */
  function claimOf(cite, trigger) {
    const block = cite.parentElement.closest("p, li, td, th, dd, dt, blockquote, h1, h2, h3, h4, h5, h6, figcaption") || cite.parentElement;
    const cites = [...block.querySelectorAll(".citerender-cite")].filter((c) => !c.parentElement.closest(".citerender-cite"));
    const i = cites.indexOf(cite), range = document.createRange();
    if (i > 0) range.setStartAfter(cites[i - 1]); else range.setStart(block, 0);
    range.setEndBefore(cite);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0.5 && r.height > 0.5).map(of);
    const t = of(trigger.getBoundingClientRect());
    const style = getComputedStyle(block);
    const lh = parseFloat(style.lineHeight) || 1.4 * parseFloat(style.fontSize);
    const last = rects.length ? Math.max(...rects.map((r) => r.y)) : t.y;
    const claim = rects.filter((r) => r.y >= last - 2 * lh - 4);
    const line = rects.filter((r) => r.y >= last - 2);
    const top = Math.min(t.y, ...line.map((r) => r.y)), bottom = Math.max(t.y + t.h, ...line.map((r) => r.y + r.h));
    return { claim, trigger: t, top, bottom, claimTop: Math.min(top, ...claim.map((r) => r.y)) };
  }

  /* every other citation's trigger on the screen, its hit area at least 24 px, and whether it comes
     after this one in the text */
  function others(own) {
    const out = [];
    let after = false;
    for (const t of document.querySelectorAll(".citerender-has-card > button, .citerender-cite a, .citerender-sn-num")) {
      if (t === own) { after = true; continue; }
      if (t.closest(".citerender-card, .citerender-sidenote")) continue;  // a card's own links are no citation
      const r = t.getBoundingClientRect();
      if (!r.width || r.bottom < 0 || r.top > innerHeight) continue;
      const w = Math.max(r.width, 24), h = Math.max(r.height, 24);
      out.push({ b: box(r.left + r.width / 2 - w / 2, r.top + r.height / 2 - h / 2, w, h), after });
    }
    return out;
  }

  /* the card's height at a width, and its links' boxes relative to it */
  function measure(card, w) {
    card.style.width = w + "px";
    card.style.maxHeight = "none";
    const c = card.getBoundingClientRect();
    const links = [...card.querySelectorAll("a")].map((a) => a.getBoundingClientRect())
      .map((r) => box(r.left - c.left, r.top - c.top, r.width, r.height));
    return { w, h: c.height, links };
  }

  /* how bad a place is (Infinity: not allowed) */
  function cost(p, size, at, vw, vh, phone, near) {
    const b = box(p.x, p.y, size.w, size.h);
    if (b.x < EDGE - 0.5 || b.y < EDGE - 0.5 || b.x + b.w > vw - EDGE + 0.5 || b.y + b.h > vh - EDGE + 0.5) return Infinity;
    if (meets(b, at.trigger)) return Infinity;
    const claim = at.claim.some((c) => meets(b, c));
    if (phone && claim) return Infinity;
    let n = 0;
    for (const o of near) {
      if (!meets(b, o.b)) continue;
      const onLink = size.links.some((l) => meets(box(b.x + l.x, b.y + l.y, l.w, l.h), o.b));
      n += (o.after ? 1000 : 60) * (onLink ? 2 : 1);
    }
    return n + (claim ? 300 : 0) + p.rank;
  }

  /* the places a card may take: beside its citation (desktop), or across the screen (phone) */
  function places(at, size, vw, vh, phone, rtl) {
    const out = [];
    const t = at.trigger;
    const below = at.bottom + GAP, above = (phone ? at.claimTop : at.top) - GAP - size.h;
    if (phone) {
      for (let y = below; y + size.h <= vh - EDGE; y += STEP) out.push({ x: EDGE, y, rank: (y - below) / 2 });
      for (let y = above; y >= EDGE; y -= STEP) out.push({ x: EDGE, y, rank: 10 + (above - y) / 2 });
      return out;
    }
    const start = rtl ? t.x + t.w - size.w : t.x;
    const xs = [start];
    for (let x = t.x - size.w - NEAR + 1; x <= t.x + t.w + NEAR - 1; x += STEP) xs.push(x);
    const clampX = (x) => Math.min(Math.max(x, EDGE), vw - EDGE - size.w);
    for (const x0 of xs) {
      const x = clampX(x0);
      const off = Math.abs(x - start) / 6;
      out.push({ x, y: below, rank: off }, { x, y: above, rank: 15 + off });
    }
    const ys = [];
    for (let y = t.y - size.h - NEAR + 1; y <= t.y + t.h + NEAR - 1; y += STEP) ys.push(Math.min(Math.max(y, EDGE), vh - EDGE - size.h));
    for (const y of ys) {
      const off = Math.abs(y - t.y) / 6;
      out.push({ x: t.x + t.w + GAP, y, rank: 25 + off }, { x: t.x - GAP - size.w, y, rank: 30 + off });
    }
    return out;
  }

  const STYLES = ["position", "inset", "margin", "position-area", "position-try-fallbacks", "transform", "width",
    "max-width", "max-height", "left", "top"];

  function place(card) {
    const cite = card.closest(".citerender-has-card");
    const trigger = cite && cite.querySelector(":scope > button");
    if (!trigger) return;
    const s = card.style;
    Object.assign(s, { position: "absolute", inset: "auto", margin: "0", positionArea: "none",
      positionTryFallbacks: "none", transform: "none", maxWidth: "none", left: "0px", top: "0px" });
    const vw = root.clientWidth, vh = innerHeight, phone = vw < PHONE;
    const rtl = getComputedStyle(cite).direction === "rtl";
    const at = claimOf(cite, trigger), near = others(trigger);
    const widths = phone ? [vw - 2 * EDGE] : [...new Set([Math.min(416, vw - 2 * EDGE), Math.min(320, vw - 2 * EDGE), Math.min(256, vw - 2 * EDGE)])];
    let best = null;
    for (const w of widths) {
      const size = measure(card, w);
      for (const p of places(at, size, vw, vh, phone, rtl)) {
        const c = cost(p, size, at, vw, vh, phone, near) + (w < widths[0] ? 50 : 0);
        if (!best || c < best.c) best = { c, p, size };
      }
      if (best && best.c < 50) break;
    }
    if (!best || best.c === Infinity) best = tallest(at, measure(card, widths[0]), vw, vh, phone);
    s.width = best.size.w + "px";
    s.maxHeight = best.maxH ? best.maxH + "px" : "none";
    s.left = best.p.x + scrollX + "px";
    s.top = best.p.y + scrollY + "px";
  }

  /* no place holds the whole card: the side with the most room, the card scrolling inside */
  function tallest(at, size, vw, vh, phone) {
    const t = at.trigger;
    const down = vh - EDGE - (at.bottom + GAP), up = (phone ? at.claimTop : at.top) - GAP - EDGE;
    const x = phone ? EDGE : Math.min(Math.max(t.x, EDGE), vw - EDGE - size.w);
    const room = Math.max(down, up, 48);
    const y = down >= up ? at.bottom + GAP : Math.max(EDGE, (phone ? at.claimTop : at.top) - GAP - Math.min(size.h, room));
    return { p: { x, y }, size, maxH: Math.min(size.h, room), c: 0 };
  }

  function reset(card) {
    for (const p of STYLES) card.style.removeProperty(p);
    delete card.dataset.placed;
  }

  /* placed, or (whatever goes wrong) left where the stylesheet puts it: shown either way */
  function show(card) {
    try { place(card); } catch (err) { reset(card); } finally { card.dataset.placed = ""; }
  }

  document.addEventListener("toggle", (e) => {
    const card = e.target;
    if (!(card instanceof Element) || !card.matches(".citerender-card")) return;
    if (e.newState === "open") show(card); else reset(card);
  }, true);
  addEventListener("resize", () => document.querySelectorAll(".citerender-card:popover-open").forEach(show));
  /* where an open card could not help lying over another citation, a tap there (not on one of
     the card's links) reaches that citation: its card opens instead */
  document.addEventListener("click", (e) => {
    const card = e.target instanceof Element ? e.target.closest(".citerender-card:popover-open") : null;
    if (!card || e.target.closest("a, button, input, label")) return;
    const under = document.elementsFromPoint(e.clientX, e.clientY)
      .find((el) => el.matches(".citerender-has-card > button") && !card.parentElement.contains(el));
    if (!under) return;
    e.preventDefault();
    under.click();
  }, true);
  root.classList.add("citerender-placed");
})();
