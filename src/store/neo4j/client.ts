import neo4j, { type Driver, type ManagedTransaction, type SessionMode } from 'neo4j-driver';
import type { Scope } from '../../domain/types';
import { cypherTemplate, cypherText } from './cypher';
import { toPlain } from './values';

export type Row = Record<string, unknown>;

export interface Neo4jSettings {
  uri: string;
  user: string | null;
  password: string | null;
  database: string | null;
}

/** Transient failures are retried by the driver for this long before the error reaches the caller (a 503). */
const RETRY_WINDOW_MS = 5_000;
/** The first pause before a retry, doubled after each (the driver's own schedule for managed transactions). */
const FIRST_RETRY_MS = 1_000;

/** One transaction: statements are named files under cypher/, results converted to plain values. */
export class CypherTransaction {
  constructor(private readonly tx: ManagedTransaction) {}

  run(name: string, params: Record<string, unknown> = {}): Promise<Row[]> {
    return this.runText(cypherText(name), params);
  }

  /** A file with `$$NAME$$` placeholders, each replaced by a validated identifier. */
  runTemplate(name: string, identifiers: Record<string, string>, params: Record<string, unknown> = {}): Promise<Row[]> {
    return this.runText(cypherTemplate(name, identifiers), params);
  }

  async runText(text: string, params: Record<string, unknown>): Promise<Row[]> {
    const result = await this.tx.run(text, params);
    return result.records.map((record) => toPlain(record.toObject()) as Row);
  }
}

/** Workspace parameters every scoped query takes; no tenant is the empty string. */
export function scopeParams(scope: Scope): { tenant_id: string; workspace_id: string } {
  return { tenant_id: scope.tenantId ?? '', workspace_id: scope.workspaceId };
}

/**
 * A thin wrapper over the driver: a fresh session per unit of work (nothing caches a connection that may have
 * died), managed transactions that the driver retries on transient errors, and a short live check.
 */
export class Neo4jClient {
  readonly driver: Driver;
  readonly database: string | undefined;

  constructor(readonly settings: Neo4jSettings) {
    const auth =
      settings.user !== null || settings.password !== null
        ? neo4j.auth.basic(settings.user ?? 'neo4j', settings.password ?? '')
        : undefined; // the driver sends the 'none' scheme: for servers with authentication off
    this.driver = neo4j.driver(settings.uri, auth, {
      disableLosslessIntegers: true,
      maxTransactionRetryTime: RETRY_WINDOW_MS,
      connectionTimeout: 3_000,
      connectionAcquisitionTimeout: 5_000,
      maxConnectionPoolSize: 50,
      logging: { level: 'error', logger: () => undefined },
    });
    this.database = settings.database ?? undefined;
  }

  read<T>(work: (tx: CypherTransaction) => Promise<T>): Promise<T> {
    return this.execute(neo4j.session.READ, work);
  }

  write<T>(work: (tx: CypherTransaction) => Promise<T>): Promise<T> {
    return this.execute(neo4j.session.WRITE, work);
  }

  /** One named statement in its own read transaction. */
  readRows(name: string, params: Record<string, unknown> = {}): Promise<Row[]> {
    return this.autoCommit(neo4j.session.READ, cypherText(name), params);
  }

  /** One named statement in its own write transaction. */
  writeRows(name: string, params: Record<string, unknown> = {}): Promise<Row[]> {
    return this.autoCommit(neo4j.session.WRITE, cypherText(name), params);
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

  /** `RETURN 1` within `timeoutMs`; false on any failure. */
  async ping(timeoutMs = 2_000): Promise<boolean> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: neo4j.session.READ });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const check = session
      .run(cypherText('schema/ping'))
      .then((result) => result.records.length === 1)
      .catch(() => false);
    try {
      return await Promise.race([check, timeout]);
    } finally {
      clearTimeout(timer);
      void session.close().catch(() => undefined);
    }
  }

  close(): Promise<void> {
    return this.driver.close();
  }

  /**
   * One statement as an auto-commit transaction: one round trip (RUN and PULL together) where a managed
   * transaction takes three (BEGIN, RUN and PULL, COMMIT); most store calls are a single statement. Transient
   * failures are retried within the same window and with the same backoff as managed transactions.
   */
  private async autoCommit(mode: SessionMode, text: string, params: Record<string, unknown>): Promise<Row[]> {
    const started = Date.now();
    for (let backoff = FIRST_RETRY_MS; ; backoff *= 2) {
      const session = this.driver.session({ database: this.database, defaultAccessMode: mode });
      try {
        const result = await session.run(text, params);
        return result.records.map((record) => toPlain(record.toObject()) as Row);
      } catch (err) {
        if (!neo4j.isRetryableError(err as Error) || Date.now() - started >= RETRY_WINDOW_MS) throw err;
      } finally {
        await session.close();
      }
      await new Promise((resolve) => setTimeout(resolve, backoff * (0.8 + Math.random() * 0.4)));
    }
  }

  private async execute<T>(mode: SessionMode, work: (tx: CypherTransaction) => Promise<T>): Promise<T> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: mode });
    try {
      const unit = (tx: ManagedTransaction) => work(new CypherTransaction(tx));
      return mode === neo4j.session.READ ? await session.executeRead(unit) : await session.executeWrite(unit);
    } finally {
      await session.close();
    }
  }
}
