/**
 * PowerPoint (.pptx): slides in the order the presentation lists them (not file order: slide10 would come
 * before slide2), each with its title, its paragraphs and the speaker notes.
 */
import type JSZip from 'jszip';
import { posix } from 'node:path';
import { openCheckedZip } from './zip-guard.js';
import { attr, childrenOf, parseXml, tagOf, textOf, walkXml, type XmlNode } from './xml.js';
import { BrowserdError } from '../../protocol/errors.js';

async function xmlOf(zip: JSZip, path: string): Promise<XmlNode[] | undefined> {
  const f = zip.file(path);
  return f ? parseXml(await f.async('string')) : undefined;
}

/** Relationship id -> target path (resolved against the part's folder) of a part's .rels file. */
async function relsOf(zip: JSZip, part: string): Promise<Map<string, { target: string; type: string }>> {
  const dir = posix.dirname(part);
  const rels = await xmlOf(zip, posix.join(dir, '_rels', `${posix.basename(part)}.rels`));
  const map = new Map<string, { target: string; type: string }>();
  if (!rels) return map;
  walkXml(rels, (n) => {
    if (tagOf(n) !== 'Relationship') return;
    const id = attr(n, 'Id');
    const target = attr(n, 'Target');
    if (id && target) map.set(id, { target: posix.normalize(posix.join(dir, target)), type: attr(n, 'Type') ?? '' });
  });
  return map;
}

interface ShapeText { placeholder?: string; paragraphs: string[] }

/** Each shape's paragraphs (a:p), with its placeholder type (title, body, sldNum...). */
function shapes(doc: XmlNode[]): ShapeText[] {
  const out: ShapeText[] = [];
  walkXml(doc, (n) => {
    if (tagOf(n) !== 'p:sp' && tagOf(n) !== 'p:graphicFrame') return;
    const shape: ShapeText = { paragraphs: [] };
    walkXml(childrenOf(n), (m) => {
      const tag = tagOf(m);
      if (tag === 'p:ph') shape.placeholder = attr(m, 'type') ?? 'body';
      if (tag === 'a:p') {
        const text = paragraphText(childrenOf(m)).trim();
        if (text) shape.paragraphs.push(text);
        return false;
      }
    });
    out.push(shape);
    return false;
  });
  return out;
}

function paragraphText(nodes: XmlNode[]): string {
  let s = '';
  walkXml(nodes, (n) => {
    const tag = tagOf(n);
    if (tag === 'a:t') { s += textOf(childrenOf(n)); return false; }
    if (tag === 'a:br') s += '\n';
  });
  return s;
}

export async function pptxToMarkdown(bytes: Buffer): Promise<{ markdown: string; title?: string; parts: number }> {
  const zip = await openCheckedZip(bytes, 'PowerPoint file');
  const pres = await xmlOf(zip, 'ppt/presentation.xml');
  if (!pres) throw new BrowserdError('validation_error', 'the file is not a PowerPoint presentation (no ppt/presentation.xml)', { next: 'Check that the file is a .pptx.' });
  const rels = await relsOf(zip, 'ppt/presentation.xml');
  const order: string[] = [];
  walkXml(pres, (n) => {
    if (tagOf(n) !== 'p:sldId') return;
    const target = rels.get(attr(n, 'r:id') ?? '')?.target;
    if (target) order.push(target);
  });
  const slides: string[] = [];
  let firstTitle: string | undefined;
  for (const [i, path] of order.entries()) {
    const doc = await xmlOf(zip, path);
    if (!doc) continue;
    const parts = shapes(doc);
    const title = parts.find((s) => s.placeholder === 'title' || s.placeholder === 'ctrTitle')?.paragraphs.join(' ');
    firstTitle ??= title;
    const body = parts
      .filter((s) => s.placeholder !== 'title' && s.placeholder !== 'ctrTitle' && s.placeholder !== 'sldNum' && s.placeholder !== 'dt' && s.placeholder !== 'ftr')
      .flatMap((s) => s.paragraphs);
    let md = `## Slide ${i + 1}${title ? `: ${title}` : ''}`;
    if (body.length) md += `\n\n${body.join('\n\n')}`;
    const notesPath = [...(await relsOf(zip, path)).values()].find((r) => r.type.endsWith('/notesSlide'))?.target;
    const notesDoc = notesPath ? await xmlOf(zip, notesPath) : undefined;
    if (notesDoc) {
      const notes = shapes(notesDoc).filter((s) => s.placeholder === 'body').flatMap((s) => s.paragraphs);
      if (notes.length) md += `\n\n**Notes:**\n\n${notes.join('\n\n')}`;
    }
    slides.push(md);
  }
  return { markdown: slides.join('\n\n'), title: firstTitle, parts: slides.length };
}
