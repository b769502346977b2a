/** Recordings and replays as the daemon holds them (env.records): the store, the recorder and the replayer. */
import type { DaemonEnv } from '../env.js';
import type { Db } from '../../storage/db.js';
import { RecordStore } from '../../storage/records.js';
import { Recorder } from './recorder.js';
import { Replayer } from './replay.js';

export class Records {
  readonly store: RecordStore;
  readonly recorder: Recorder;
  readonly replayer: Replayer;

  constructor(db: Db, env: () => DaemonEnv) {
    this.store = new RecordStore(db);
    this.recorder = new Recorder(env, this.store);
    this.replayer = new Replayer(env, this.store);
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
