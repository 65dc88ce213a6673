"""What the page survey reads on every page, as a person would (tests/test_demo_walk.py): scripts run in the page,
each returning what it found wrong, so a failure names the text or the element."""

import re

# Text a reader never sees outside code: a predicate (EMPLOYED_BY), an internal key (long_term, valid_from,
# web_search), an audit action's key (merge.approve), an ISO date or time, the start of a uuid, or a hexadecimal id.
RAW = re.compile(r"\b[A-Z]+(?:_[A-Z]+)+\b|\b[a-z]+(?:_[a-z]+)+\b|\b\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2})?"
                 r"|\b(?:client|consent|correction|erasure|export|fact|grant|held|memory|merge|message|retention"
                 r"|subject|token|trace)\.[a-z_]+\b"
                 r"|\b[0-9a-f]{8}-[0-9a-f]{4}-|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{12,}\b")
# A staff page that speaks to its reader as if they were the person whose memory it shows.
PERSON_VOICE = re.compile(r"\b(?:[Yy]our (?:memory|phone|email|address|conversations?|facts?|preferences?|agents?"
                          r"|consent|payment|card|login|account details|words)|waits? for you|added to your"
                          r"|You (?:live|lived|work|worked|like|liked|are|were|own|owned|use|prefer))\b")

# The text a reader sees: every rendered text node outside code, with closed details opened first.
VISIBLE_TEXT = """() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const texts = [...document.querySelectorAll('option')].map(o => o.textContent);
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const parent = node.parentElement;
    if (!parent.closest('code, pre, textarea, script, style, template') && parent.checkVisibility()) {
      texts.push(node.textContent);
    }
  }
  return texts.join(' ');
}"""

# Text drawn smaller than 12 px (an SVG's text at the size its scaling draws it), and labels of a drawing that
# overlap one another.
SMALL_OR_OVERLAPPING = """() => {
  const found = [];
  const seen = new Set();
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const element = node.parentElement;
    if (!node.textContent.trim() || seen.has(element) || !element.checkVisibility()) continue;
    if (element.closest('script, style, template, option, .sr-only, .visually-hidden')) continue;
    seen.add(element);
    let size = parseFloat(getComputedStyle(element).fontSize);
    const svg = element.closest('svg');
    if (svg && element.getScreenCTM) size *= Math.hypot(element.getScreenCTM().a, element.getScreenCTM().b);
    if (size < 11.95) found.push(`${size.toFixed(1)} px: "${node.textContent.trim().slice(0, 40)}"`);
  }
  for (const svg of document.querySelectorAll('svg')) {
    if (!svg.checkVisibility()) continue;
    const boxes = [...svg.querySelectorAll('text')].map(t => [t, t.getBoundingClientRect()]).filter(([, b]) => b.width);
    boxes.forEach(([a, p], i) => boxes.slice(i + 1).forEach(([b, q]) => {
      if (p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1) {
        found.push(`overlap: "${a.textContent.slice(0, 30)}" and "${b.textContent.slice(0, 30)}"`);
      }
    }));
  }
  return found;
}"""

# What a finger taps (buttons, fields, menus, and links that stand alone rather than inside a sentence) smaller than
# 44 px either way; a check box or radio button counts with its label.
SMALL_TAP_TARGETS = """() => {
  const found = [];
  const inSentence = (a) => {
    const block = a.parentElement.closest('p, li, dd, td, th, div, span, label, h1, h2, h3, caption, legend, summary');
    if (!block) return false;
    const text = block.textContent.replace(/\\s+/g, ' ').trim();
    return text.length > a.textContent.trim().length + 2 && !block.matches('li, td, th') ||
           (block.matches('li, td, th') && text.length > a.textContent.trim().length + 12);
  };
  const targets = document.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button]');
  for (const element of targets) {
    if (!element.checkVisibility() || element.closest('code, pre, .sr-only, [aria-hidden=true]')) continue;
    if (element.matches('a') && inSentence(element)) continue;
    let box = element.getBoundingClientRect();
    if (box.bottom <= 0 || box.right <= 0) continue;  // off screen until focused (a skip link)
    if (element.matches('input[type=checkbox], input[type=radio]')) {
      const label = element.closest('label') || (element.id && document.querySelector(`label[for="${element.id}"]`));
      if (label) {
        const l = label.getBoundingClientRect();
        box = {width: Math.max(box.right, l.right) - Math.min(box.left, l.left),
               height: Math.max(box.bottom, l.bottom) - Math.min(box.top, l.top)};
      }
    }
    if (box.width < 43.5 || box.height < 43.5) {
      const name = (element.textContent || element.value || element.name || element.type || '').trim().slice(0, 30);
      found.push(`${element.tagName.toLowerCase()} "${name}" ${Math.round(box.width)}x${Math.round(box.height)}`);
    }
  }
  return found;
}"""

# Words a line break cut in two (an e-mail address or a link may break; a word of letters may not).
BROKEN_WORDS = r"""() => {
  const found = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const element = node.parentElement;
    if (!element.checkVisibility() || element.closest('code, pre, script, style, textarea')) continue;
    for (const match of node.textContent.matchAll(/[A-Za-z\u00C0-\u024F]{4,}/g)) {
      const token = node.textContent.slice(0, match.index).split(/\s/).pop() + match[0];
      if (/[@/.:]/.test(token) || /[@/.:]/.test(node.textContent.slice(match.index).split(/\s/)[0])) continue;
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width).map(r => Math.round(r.top)));
      if (lines.size > 1) found.push(match[0]);
    }
  }
  return found;
}"""
