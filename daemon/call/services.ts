/**
 * Feature services a tool handler or a route reaches by key (ToolContext.service, ServerDeps.services): the
 * hand-offs, crawl runs, tasks, recordings and monitors are built on top of the call pipeline, so the pipeline
 * cannot name their types. Each feature
 * declares its key beside its service (crawl/service.ts CRAWLS, ...); main.ts provides the services once, and a
 * tool that uses one imports its key: the dependency is explicit and points down, from tool to feature.
 */
import { BrowserdError } from '../../protocol/errors.js';

export class ServiceKey<T> {
  /** Only carries T for the type checker; never set. */
  declare private readonly service?: T;
  constructor(readonly name: string) {}
}

export class Services {
  private readonly provided = new Map<ServiceKey<unknown>, unknown>();

  provide<T>(key: ServiceKey<T>, service: T): this {
    if (this.provided.has(key)) throw new Error(`service ${key.name} provided twice`);
    this.provided.set(key, service);
    return this;
  }

  get<T>(key: ServiceKey<T>): T {
    if (!this.provided.has(key)) throw new BrowserdError('internal_error', `the ${key.name} service is not running in this daemon`, { next: 'Report this to the operator: the daemon was started without it.' });
    return this.provided.get(key) as T;
  }
}
