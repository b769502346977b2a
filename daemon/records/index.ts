/** Recordings and replays as the daemon holds them: the store, the recorder and the replayer. */
import type { ToolLookup } from '../call/define.js';
import type { Db } from '../../storage/db.js';
import { RecordStore } from '../../storage/records.js';
import { Recorder } from './recorder.js';
import { Replayer, type ReplayDeps } from './replay.js';
import { ServiceKey } from '../call/services.js';

/** Recordings and replays: tools reach them through this key (call/services.ts). */
export const RECORDS = new ServiceKey<Records>('records');

export class Records {
  readonly store: RecordStore;
  readonly recorder: Recorder;
  readonly replayer: Replayer;
  readonly tool: ToolLookup;

  constructor(db: Db, deps: ReplayDeps) {
    this.store = new RecordStore(db);
    this.tool = deps.tool;
    this.recorder = new Recorder(() => deps.env, this.store);
    this.replayer = new Replayer(deps, this.store);
  }

  /** At start: what a crash or restart left running is ended (recordings stopped, replays failed). */
  async start(): Promise<void> {
    await this.recorder.endUnfinished();
    await this.replayer.failUnfinished();
  }

  /** At shutdown, while the browsers are still up. */
  async close(): Promise<void> {
    this.replayer.close();
    await this.recorder.close();
  }
}
