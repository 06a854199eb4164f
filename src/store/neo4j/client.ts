import neo4j, { type Driver, type ManagedTransaction, type SessionMode } from 'neo4j-driver';
import type { Scope } from '../../domain/types';
import { Availability } from './availability';
import { cypherTemplate, cypherText } from './cypher';
import { ReplanPacer } from './replan';
import { withRetries } from './retry';
import { SessionBudget, defaultBudget } from './session-budget';
import { toPlain } from './values';

export type Row = Record<string, unknown>;

export interface Neo4jSettings {
  uri: string;
  user: string | null;
  password: string | null;
  database: string | null;
  /** The connection pool and how it is shared (./session-budget.ts); 50 connections, a 5 s wait by default. */
  pool?: Neo4jPoolSettings;
}

export interface Neo4jPoolSettings {
  maxSize: number;
  acquisitionTimeoutMs: number;
  /** Sessions for requests at once, and for one tenant's requests; null: the default split (./session-budget.ts). */
  requestSessions: number | null;
  requestSessionsPerTenant: number | null;
}

const DEFAULT_POOL: Neo4jPoolSettings = { maxSize: 50, acquisitionTimeoutMs: 5_000, requestSessions: null, requestSessionsPerTenant: null };

/** Transactions are run and retried here (./retry.ts), not by the driver, so that an outage answers at once (./availability.ts). */
type Runner = Pick<ManagedTransaction, 'run'>;

/**
 * One transaction: statements are named files under cypher/, results converted to plain values; how often
 * Neo4j may plan each one again is paced (./replan.ts).
 */
export class CypherTransaction {
  constructor(
    private readonly tx: Runner,
    private readonly replans: ReplanPacer,
  ) {}

  run(name: string, params: Record<string, unknown> = {}): Promise<Row[]> {
    return this.runText(cypherText(name), params);
  }

  /** A file with `$$NAME$$` placeholders, each replaced by a validated identifier. */
  runTemplate(name: string, identifiers: Record<string, string>, params: Record<string, unknown> = {}): Promise<Row[]> {
    return this.runText(cypherTemplate(name, identifiers), params);
  }

  async runText(text: string, params: Record<string, unknown>): Promise<Row[]> {
    const result = await this.tx.run(this.replans.text(text), params);
    return result.records.map((record) => toPlain(record.toObject()) as Row);
  }
}

/** Workspace parameters every scoped query takes; no tenant is the empty string. */
export function scopeParams(scope: Scope): { tenant_id: string; workspace_id: string } {
  return { tenant_id: scope.tenantId ?? '', workspace_id: scope.workspaceId };
}

/**
 * A thin wrapper over the driver: a fresh session per unit of work (nothing caches a connection that may have
 * died), transactions retried on transient errors, a circuit that refuses work at once while the database is
 * unreachable, and a short live check.
 */
export class Neo4jClient {
  readonly driver: Driver;
  readonly database: string | undefined;
  readonly availability: Availability;
  /** Shares of the pool by class of work and tenant: no one takes every connection. */
  readonly budget: SessionBudget;
  /** Our statements only: schema statements, the ping and analysts' own Cypher are sent as they are. */
  private readonly replans = new ReplanPacer();
  /**
   * The ping's own connection: a health probe never waits for a connection of the pool that requests and
   * ingestion share, however busy that pool is.
   */
  private readonly probeDriver: Driver;
  /** The ping in flight, which concurrent probes share. */
  private pinging: Promise<boolean> | null = null;

  constructor(
    readonly settings: Neo4jSettings,
    onAvailability?: (up: boolean, downForMs: number) => void,
  ) {
    const auth =
      settings.user !== null || settings.password !== null
        ? neo4j.auth.basic(settings.user ?? 'neo4j', settings.password ?? '')
        : undefined; // the driver sends the 'none' scheme: for servers with authentication off
    const pool = settings.pool ?? DEFAULT_POOL;
    this.budget = new SessionBudget(
      defaultBudget(pool.maxSize, pool.acquisitionTimeoutMs, {
        requests: pool.requestSessions ?? undefined,
        requestsPerTenant: pool.requestSessionsPerTenant ?? undefined,
      }),
    );
    this.driver = neo4j.driver(settings.uri, auth, {
      disableLosslessIntegers: true,
      connectionTimeout: 2_000,
      connectionAcquisitionTimeout: pool.acquisitionTimeoutMs,
      maxConnectionPoolSize: pool.maxSize,
      logging: { level: 'error', logger: () => undefined },
    });
    this.probeDriver = neo4j.driver(settings.uri, auth, {
      connectionTimeout: 2_000,
      connectionAcquisitionTimeout: 2_000,
      maxConnectionPoolSize: 1,
      logging: { level: 'error', logger: () => undefined },
    });
    this.database = settings.database ?? undefined;
    this.availability = new Availability((timeoutMs) => this.ping(timeoutMs), onAvailability);
  }

  read<T>(work: (tx: CypherTransaction) => Promise<T>): Promise<T> {
    return this.execute(neo4j.session.READ, work);
  }

  write<T>(work: (tx: CypherTransaction) => Promise<T>): Promise<T> {
    return this.execute(neo4j.session.WRITE, work);
  }

  /**
   * One named statement in its own read transaction (auto-commit: one round trip); with `identifiers`, the file
   * is a template (`runTemplate`).
   */
  readRows(name: string, params: Record<string, unknown> = {}, identifiers?: Record<string, string>): Promise<Row[]> {
    const text = identifiers ? cypherTemplate(name, identifiers) : cypherText(name);
    return withRetries(this.availability, () => this.autoCommit(neo4j.session.READ, text, params));
  }

  /** A statement text already read from cypher/ (composed of files) in its own read transaction. */
  readText(text: string, params: Record<string, unknown> = {}): Promise<Row[]> {
    return withRetries(this.availability, () => this.autoCommit(neo4j.session.READ, text, params));
  }

  /** One named statement in its own write transaction (auto-commit: one round trip). */
  writeRows(name: string, params: Record<string, unknown> = {}): Promise<Row[]> {
    return withRetries(this.availability, () => this.autoCommit(neo4j.session.WRITE, cypherText(name), params));
  }

  /** A schema statement (index, constraint) in an auto-commit transaction of its own. */
  async runSchema(text: string, params: Record<string, unknown> = {}): Promise<Row[]> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.WRITE });
    try {
      const result = await session.run(text, params);
      return result.records.map((record) => toPlain(record.toObject()) as Row);
    } finally {
      await session.close();
    }
  }

  /** `RETURN 1` within `timeoutMs` over the probe connection; false on any failure. Concurrent calls share one ping. */
  ping(timeoutMs = 2_000): Promise<boolean> {
    this.pinging ??= this.pingOnce(timeoutMs).finally(() => (this.pinging = null));
    return this.pinging;
  }

  private async pingOnce(timeoutMs: number): Promise<boolean> {
    const session = this.probeDriver.session({ database: this.database, defaultAccessMode: neo4j.session.READ });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const check = session
      .run(cypherText('schema/ping'))
      .then((result) => result.records.length === 1)
      .catch(() => false);
    try {
      const ok = await Promise.race([check, timeout]);
      if (ok) this.availability.answered();
      return ok;
    } finally {
      clearTimeout(timer);
      void session.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.availability.close();
    await Promise.all([this.driver.close(), this.probeDriver.close()]);
  }

  private execute<T>(mode: SessionMode, work: (tx: CypherTransaction) => Promise<T>): Promise<T> {
    return withRetries(this.availability, () => this.attempt(mode, work));
  }

  /**
   * One statement as an auto-commit transaction: one round trip (RUN and PULL together) where an explicit
   * transaction takes three (BEGIN, RUN and PULL, COMMIT); most store calls are a single statement.
   */
  private autoCommit(mode: SessionMode, text: string, params: Record<string, unknown>): Promise<Row[]> {
    return this.budget.run(() => this.autoCommitInSession(mode, text, params));
  }

  private async autoCommitInSession(mode: SessionMode, text: string, params: Record<string, unknown>): Promise<Row[]> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: mode });
    try {
      const result = await session.run(this.replans.text(text), params);
      return result.records.map((record) => toPlain(record.toObject()) as Row);
    } finally {
      await session.close().catch(() => undefined);
    }
  }

  /** One unit of work in an explicit transaction of its own. */
  private attempt<T>(mode: SessionMode, work: (tx: CypherTransaction) => Promise<T>): Promise<T> {
    return this.budget.run(() => this.attemptInSession(mode, work));
  }

  private async attemptInSession<T>(mode: SessionMode, work: (tx: CypherTransaction) => Promise<T>): Promise<T> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: mode });
    try {
      const tx = session.beginTransaction();
      try {
        const result = await work(new CypherTransaction(tx, this.replans));
        await tx.commit();
        return result;
      } catch (err) {
        if (tx.isOpen()) await tx.rollback().catch(() => undefined);
        throw err;
      }
    } finally {
      await session.close().catch(() => undefined);
    }
  }
}
