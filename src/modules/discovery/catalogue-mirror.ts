// The catalogue as discovery's index holds it, kept current one provider at a time. A change made on this
// instance (`catalog.changed`; with Redis, also one relayed from another instance) is read with its
// version in one statement and applied before the next request is answered; a change made by another
// instance is noticed by a cheap query of per-block digests (in the background every VERSION_POLL_MS
// while requests come; awaited by a request when the last look is older than VERSION_STALE_MS) and
// applied the same way: only the changed blocks' provider versions are read, and only the providers
// whose version differs are re-read and re-indexed, so no request waits for a rebuild. Large changes (a
// bulk import) rebuild a new index beside the live one, in chunks that let requests run, and swap it in;
// meanwhile syncs keep the live index current, and what they read is read again into the new one before
// the swap, so a swap never takes back a change a request has seen.
import type { AppDeps } from '../../deps.js';
import {
  buildSearchIndexAsync,
  replaceProviderEndpoints,
  type SearchIndex,
  vectorDrift,
} from './ranking/search-index.js';
import type { IndexedEndpoint } from './ranking/types.js';
import { loadWordVectors, type WordVectors } from './ranking/vectors.js';
import {
  catalogDigests,
  type ProvidersRead,
  type ProviderVersion,
  providerVersions,
  readProviders,
} from './repo.js';
import type { WarningLog } from './sentence-encoder.js';

/** While requests come, at most this often one of them starts a background look for others' changes. */
export const VERSION_POLL_MS = 250;
/** A request waits for that look only when the last one is older than this (an instance left idle). */
export const VERSION_STALE_MS = 1_000;
/** More changed providers than this, and than this share of the catalogue: rebuild beside instead. */
const INCREMENTAL_MAX_PROVIDERS = 200;
const INCREMENTAL_MAX_SHARE = 0.05;
/** Rebuild beside once this share of the catalogue changed since the last full build (endpoint vectors
 *  keep the IDF of their time). */
const DRIFT_REBUILD_SHARE = 0.25;

export interface Snapshot {
  /** Changed in place by incremental updates (each one calls `changed`), replaced by a full rebuild. */
  index: SearchIndex;
  /** Version (update time + status) and block of every provider the index holds, from the database. */
  versions: Map<string, ProviderVersion>;
}

/** What the owner of the mirror learns: every change of the index, and the endpoints read. */
export interface MirrorHooks {
  /** The index changed (in place or swapped): whatever was derived from it is stale. */
  changed(): void;
  /** Endpoints read from the database; `all`: the whole catalogue (a full build). */
  endpointsRead(endpoints: IndexedEndpoint[], all: boolean): void;
}

export class CatalogueMirror {
  private snapshot: Snapshot | undefined;
  private firstBuild: Promise<void> | undefined;
  private fullRebuild: Promise<void> | undefined;
  /** Providers read for an update of the live index while a rebuild is under way: the rebuilt index may
   *  have read them before their change, so they are read again into it before it is swapped in. */
  private rebuildTouched: Set<string> | undefined;
  private syncing: Promise<void> | undefined;
  /** The running sync's part for changes made on this instance: up to which change, and when it is in. */
  private localStep: { target: number; applied: Promise<void> } | undefined;
  private syncsStarted = 0;
  private syncsDone = 0;
  /** Block digests of the catalogue the index reflects (undefined: compare every version on the next sync). */
  private digests: Map<number, string> | undefined;
  /** Catalogue changes announced on this instance, and how many of them the index already holds. */
  private changes = 0;
  private applied = 0;
  private pending = new Set<string>();
  private lastSync = Number.NEGATIVE_INFINITY;
  private closed = false;
  /** GloVe word vectors: read-only, a few MB, loaded by the first index build of this app. */
  private vectors: WordVectors | undefined;
  private readonly onCatalogChanged = ({ providerId }: { providerId: string }) => {
    this.changes += 1;
    this.pending.add(providerId);
  };

  constructor(
    private readonly deps: Pick<AppDeps, 'db' | 'clock' | 'events'>,
    private readonly hooks: MirrorHooks,
    private readonly log?: WarningLog,
  ) {
    deps.events.on('catalog.changed', this.onCatalogChanged);
  }

  /** Stops listening and starts no more database work (the app is closing). */
  close() {
    this.closed = true;
    this.deps.events.off('catalog.changed', this.onCatalogChanged);
  }

  /** The index as it is now (undefined before the first build): may be newer than a `current()` result. */
  get live(): Snapshot | undefined {
    return this.snapshot;
  }

  private now() {
    return this.deps.clock.now().getTime();
  }

  private wordVectors(): WordVectors {
    this.vectors ??= loadWordVectors();
    return this.vectors;
  }

  /** A new index of the whole catalogue, built in chunks so that requests keep being served meanwhile. */
  private async buildFull(): Promise<Snapshot> {
    const { versions, endpoints } = await readProviders(this.deps.db.orm);
    const index = await buildSearchIndexAsync(endpoints, this.wordVectors());
    this.hooks.endpointsRead(endpoints, true);
    return { index, versions };
  }

  private swapIn(snapshot: Snapshot) {
    this.snapshot = snapshot;
    this.hooks.changed();
    // Whatever changed while it was built is found by the next sync's version comparison.
    this.digests = undefined;
  }

  /**
   * Rebuild beside the live index and swap; requests keep using the live one, which syncs keep updating,
   * until then. The providers those updates read are read again into the new index before the swap (until
   * none is left), so the swap never takes back a change the live index already showed.
   */
  private startFullRebuild() {
    if (this.fullRebuild) return this.fullRebuild;
    const touched = new Set<string>();
    this.rebuildTouched = touched;
    this.fullRebuild = this.buildFull()
      .then(async (snapshot) => {
        for (let ids = [...touched]; ids.length > 0 && !this.closed; ids = [...touched]) {
          touched.clear();
          const read = await readProviders(this.deps.db.orm, ids);
          applyTo(snapshot, ids, read);
          this.hooks.endpointsRead(read.endpoints, false);
        }
        if (!this.closed) this.swapIn(snapshot);
      })
      .catch((err: unknown) => {
        this.log?.warn({ err }, 'discovery index rebuild failed');
        // The digests already count what the rebuild was for: the next sync compares every version
        // instead, finds it again, and rebuilds again.
        this.digests = undefined;
      })
      .finally(() => {
        this.fullRebuild = undefined;
        this.rebuildTouched = undefined;
      });
    return this.fullRebuild;
  }

  /** Reads providers for an update of the live index (and marks them for a rebuild under way). */
  private read(ids: string[]): Promise<ProvidersRead> {
    for (const id of ids) this.rebuildTouched?.add(id);
    return readProviders(this.deps.db.orm, ids);
  }

  /** One look at the database for catalogue changes, applied to the index (single flight). */
  private sync(): Promise<void> {
    this.syncing ??= this.runSync().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  private async runSync() {
    const seq = ++this.syncsStarted;
    const target = this.changes;
    if (this.closed) {
      // Closing: nothing more is read, and no request waits for it.
      this.applied = target;
      this.syncsDone = seq;
      return;
    }
    const local = [...this.pending];
    this.pending.clear();
    const db = this.deps.db.orm;
    // This instance's changes are read at once, beside the digests, and applied as soon as they arrive:
    // a request that must see them waits for that one statement, not for the rest of the look.
    let localDone = false;
    const localApplied = (async () => {
      const snapshot = this.snapshot;
      if (local.length > 0 && snapshot) {
        if (this.incremental(local.length, snapshot.versions.size))
          this.applyRead(snapshot, local, await this.read(local));
        else void this.startFullRebuild();
      }
      this.applied = Math.max(this.applied, target);
      localDone = true;
    })();
    this.localStep = { target, applied: localApplied };
    try {
      const [digests] = await Promise.all([catalogDigests(db), localApplied]);
      // Changes made elsewhere (or anywhere, after a full build): the changed blocks' versions tell
      // which providers differ from the index.
      const snapshot = this.snapshot;
      const blocks = this.digests && changedBlocks(this.digests, digests.blocks);
      if (snapshot && (!blocks || blocks.length > 0)) {
        const versions = await providerVersions(db, blocks);
        const ids = new Set<string>();
        for (const [id, v] of versions) if (snapshot.versions.get(id)?.version !== v.version) ids.add(id);
        for (const [id, v] of snapshot.versions)
          if (!versions.has(id) && (!blocks || blocks.includes(v.block))) ids.add(id);
        if (ids.size > 0 && this.incremental(ids.size, digests.providers))
          this.applyRead(snapshot, ids, await this.read([...ids]));
        else if (ids.size > 0) void this.startFullRebuild();
      }
      this.digests = digests.blocks;
      this.lastSync = this.now();
      this.syncsDone = seq;
    } catch (err) {
      if (!localDone) for (const id of local) this.pending.add(id);
      throw err;
    }
  }

  /** Few enough changed providers to update the index in place (else a new one is built beside). */
  private incremental(changed: number, providers: number) {
    return changed <= INCREMENTAL_MAX_PROVIDERS || changed <= INCREMENTAL_MAX_SHARE * providers;
  }

  /**
   * Puts the providers read into the live index (unless another was swapped in meanwhile: a rebuild reads
   * them again before its swap). Synchronous: no request sees half a change.
   */
  private applyRead(snapshot: Snapshot, ids: Iterable<string>, read: ProvidersRead) {
    if (this.snapshot !== snapshot) return;
    applyTo(snapshot, ids, read);
    this.hooks.endpointsRead(read.endpoints, false);
    this.hooks.changed();
    if (vectorDrift(snapshot.index) > DRIFT_REBUILD_SHARE) void this.startFullRebuild();
  }

  /**
   * The live index, current as of this call: built by the first call, kept current by syncs (see the
   * top of this file). `forceCheck`: wait for a look at the database that starts after this call.
   */
  async current(forceCheck = false): Promise<Snapshot> {
    if (!this.snapshot) {
      this.firstBuild ??= (async () => {
        const digests = await catalogDigests(this.deps.db.orm);
        const target = this.changes;
        this.pending.clear();
        this.swapIn(await this.buildFull());
        this.digests = digests.blocks;
        this.applied = Math.max(this.applied, target);
        this.lastSync = this.now();
      })().finally(() => {
        this.firstBuild = undefined;
      });
      await this.firstBuild;
    }
    const sinceSync = this.now() - this.lastSync;
    if (forceCheck || sinceSync >= VERSION_STALE_MS) {
      // A look that starts after this request did (one already under way may predate the change).
      const need = this.syncsStarted + 1;
      while (this.syncsDone < need) await this.sync();
    } else if (sinceSync >= VERSION_POLL_MS && !this.syncing) {
      this.sync().catch((err: unknown) => this.log?.warn({ err }, 'discovery catalogue check failed'));
    }
    // A request that starts after a change made on this instance must see it: it waits for the look that
    // reads that change, until the change is in the index (not for the rest of that look).
    while (this.applied < this.changes) {
      const step = this.localStep;
      if (this.syncing && step && step.target >= this.changes) await step.applied;
      else await this.sync();
    }
    return this.snapshot as Snapshot;
  }
}

/**
 * Puts the providers read into an index with their versions: each one's endpoints are replaced, and a
 * provider read without a version (deleted) leaves.
 */
function applyTo(snapshot: Snapshot, ids: Iterable<string>, read: ProvidersRead) {
  const byProvider = new Map<string, IndexedEndpoint[]>();
  for (const e of read.endpoints) {
    const list = byProvider.get(e.providerId);
    if (list) list.push(e);
    else byProvider.set(e.providerId, [e]);
  }
  for (const id of ids) {
    replaceProviderEndpoints(snapshot.index, id, byProvider.get(id) ?? []);
    const version = read.versions.get(id);
    if (version === undefined) snapshot.versions.delete(id);
    else snapshot.versions.set(id, version);
  }
}

/** Blocks whose digest differs between two looks at the catalogue (added, changed or emptied). */
function changedBlocks(before: Map<number, string>, now: Map<number, string>): number[] {
  const changed = [...now].filter(([block, digest]) => before.get(block) !== digest).map(([block]) => block);
  for (const block of before.keys()) if (!now.has(block)) changed.push(block);
  return changed;
}
