// One Markdown block, the unit the DOM walk (md-walk.ts), the table renderer (md-table.ts) and the
// truncation (md-truncate.ts) pass between them. Its own file so that the walker and the table renderer,
// which call each other, share the type without importing each other in a circle.
export type BlockKind = 'p' | 'heading' | 'list' | 'table' | 'code' | 'quote' | 'hr';
export interface Block {
  kind: BlockKind;
  text: string;
}
