/**
 * XML parsed for converters, with entity processing OFF: a DOCTYPE cannot define entities that expand (the
 * billion-laughs attack) or reach files. The five predefined entities and character references, which every
 * Office file uses, are decoded here by hand.
 */
import { XMLParser } from 'fast-xml-parser';
import { own } from '../../protocol/own.js';

/** A node as fast-xml-parser gives it with preserveOrder: one tag name key holding children, attributes under ':@'. */
export type XmlNode = Record<string, unknown> & { ':@'?: Record<string, string> };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  processEntities: false,
  htmlEntities: false,
  trimValues: false,
  parseTagValue: false,
  parseAttributeValue: false,
});

export function parseXml(text: string): XmlNode[] {
  return parser.parse(text) as XmlNode[];
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return own(NAMED, e.toLowerCase()) ?? m;
  });
}

/** The element name of a node ('#text' for text). */
export function tagOf(n: XmlNode): string {
  for (const k of Object.keys(n)) if (k !== ':@') return k;
  return '';
}

export function childrenOf(n: XmlNode): XmlNode[] {
  const v = n[tagOf(n)];
  return Array.isArray(v) ? (v as XmlNode[]) : [];
}

export function attr(n: XmlNode, name: string): string | undefined {
  return n[':@']?.[name];
}

/** Depth-first visit; `visit` returns false to skip a node's children. */
export function walkXml(nodes: XmlNode[], visit: (n: XmlNode) => boolean | void): void {
  const stack = [...nodes].reverse();
  while (stack.length) {
    const n = stack.pop()!;
    if (visit(n) === false) continue;
    const kids = childrenOf(n);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
}

/** All text under nodes, decoded. */
export function textOf(nodes: XmlNode[]): string {
  let s = '';
  walkXml(nodes, (n) => {
    if (tagOf(n) === '#text') s += decodeEntities(String(n['#text']));
  });
  return s;
}
